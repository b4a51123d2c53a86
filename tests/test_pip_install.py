"""A plain (not editable) `pip install` of a wheel built from the checkout runs
outside it: the wheel carries every module and the top-level grammars/ mapped
into the package, and a missing extra is named in one line."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

DEPS = ("numpy", "rapidfuzz", "babel")   # the core's dependencies, taken from the running venv


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pip")
    source = tmp / "src"                       # a copy: the build leaves nothing in the checkout
    for folder in ("voicehost", "grammars"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    venv = tmp / "venv"
    subprocess.run([sys._base_executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    deps = tmp / "deps"
    deps.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in site.iterdir():
        if entry.name.split("-")[0].split(".")[0].lower() in DEPS:
            (deps / entry.name).symlink_to(entry)
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    Path(target, "voicehost-test-deps.pth").write_text(f"{deps}\n")
    # the build backend (setuptools) comes from the package index, as for any user
    pip = [str(python), "-m", "pip", "-q"]
    env = {**os.environ, "PIP_NO_INPUT": "1"}
    done = subprocess.run([*pip, "wheel", "--no-deps", str(source), "-w", str(tmp / "wheels")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    shutil.rmtree(source)                      # nothing may be read from the copy either
    (wheel,) = (tmp / "wheels").glob("voicehost-*.whl")
    done = subprocess.run([*pip, "install", "--no-deps", str(wheel)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    work = tmp / "elsewhere"
    work.mkdir()
    return venv, work, wheel


def test_the_wheel_holds_every_module_and_the_phrase_data(installed):
    names = set(zipfile.ZipFile(installed[2]).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "voicehost").rglob("*.py")}
    assert modules and modules <= names, sorted(modules - names)
    data = {f"voicehost/grammars/{p.name}" for p in (ROOT / "grammars").glob("*.toml")}
    assert {"voicehost/grammars/ru.toml", "voicehost/grammars/phrasebook.uk.toml"} <= data <= names
    shipped = {"voicehost/models.toml", "voicehost/rules/presets.toml", "voicehost/web/static/host.html"}
    assert shipped <= names
    assert not any(name.startswith("grammars/") for name in names)   # inside the package only


def _run(installed, *args, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess:
    venv, work, _ = installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VOICEHOST_ROOT")}
    return subprocess.run([str(venv / "bin" / "voicehost"), *args], cwd=cwd or work, input=stdin,
                          capture_output=True, text=True, timeout=120, env=env)


def test_check_phrase_runs_from_a_plain_install_outside_the_checkout(installed):
    venv = installed[0]
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import voicehost; print(voicehost.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=installed[1])
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout
    done = _run(installed, "check-phrase", "--speaker", "1", "--text", "выставляю седьмого спасибо")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert any(e.get("type") == "nomination" and e.get("target") == 7 for e in events), events
    done = _run(installed, "check-phrase", "--ruleset", "ua-club", "--speaker", "1", "--text", "виставляю сьомого")
    assert done.returncode == 0, done.stderr


def test_a_clubs_grammars_beside_its_config_go_over_the_installed_ones(installed):
    """After a plain install the club's folder holds config.toml and grammars/:
    a word form its numbers.ru.toml adds is heard, a typo is one line."""
    club = installed[1] / "club"
    (club / "grammars").mkdir(parents=True)
    (club / "config.toml").write_text('ruleset = "4mafia"\n', "utf-8")
    seven = tomllib.loads((ROOT / "grammars" / "numbers.ru.toml").read_text("utf-8"))["7"]["cardinal"]
    words = ", ".join(f'"{w}"' for w in [*seven, "семёрку"])
    (club / "grammars" / "numbers.ru.toml").write_text(f"[7]\ncardinal = [{words}]\n", "utf-8")
    done = _run(installed, "check-phrase", "--speaker", "1", "--text", "выставляю семёрку", cwd=club)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line).get("target") for line in done.stdout.splitlines()] == [7]
    (club / "grammars" / "phrasebook.ru.toml").write_text('[say]\nacepted = "Есть {seat}"\n', "utf-8")
    done = _run(installed, "check-phrase", "--speaker", "1", "--text", "выставляю семёрку", cwd=club)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "grammars/phrasebook.ru.toml: [say] 'acepted' is no key" in done.stderr, done.stderr


def test_simulate_runs_from_a_plain_install(installed):
    script = (ROOT / "tests" / "games" / "red_wins_by_votes.jsonl").read_text("utf-8")
    done = _run(installed, "simulate", "-", "--protocol", "p.json", stdin=script)
    assert done.returncode == 0, done.stderr
    assert json.loads((installed[1] / "p.json").read_text("utf-8"))["winner"] == "red"


def test_serve_without_the_web_extra_names_it_in_one_line(installed):
    done = _run(installed, "serve")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pip install 'voicehost[web]'" in done.stderr


def test_voice_play_without_the_live_extra_names_it_in_one_line(installed):
    done = _run(installed, "run", "--audio-file", "nothing.wav")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pip install 'voicehost[live]'" in done.stderr


def test_the_model_manifest_ships_with_the_package(installed):
    done = _run(installed, "models", "list")
    assert done.returncode == 0, done.stderr
    assert "small-ru" in done.stdout


def test_run_without_the_live_extra_plays_typed_in_the_tables_language(installed):
    done = _run(installed, "run", "--mute", "--journal", "j.jsonl", stdin="/roles d4 m2 m7 s6\n/quit\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Игры голосом в этой установке нет (pip install 'voicehost[live]'")
    assert "· ночь 1" in done.stdout and done.stderr == ""


def test_train_without_the_live_extra_says_pip_not_scripts_setup(installed):
    done = _run(installed, "train", stdin="выставляю седьмого\n\n")
    assert done.returncode == 0, done.stderr
    assert "scripts/setup" not in done.stdout + done.stderr and done.stderr == ""
    assert done.stdout.splitlines()[-1] == "Принят номер 7"
