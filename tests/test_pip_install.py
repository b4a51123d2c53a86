"""A plain (not editable) `pip install` runs outside the checkout: the phrase
data ships inside the package, and a missing extra is named in one line."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import ROOT

DEPS = ("numpy", "rapidfuzz")   # the core's dependencies, taken from the running venv


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pip")
    source = tmp / "src"                       # a copy: the build leaves nothing in the checkout
    shutil.copytree(ROOT / "voicehost", source / "voicehost",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
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
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(source)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "PIP_NO_INPUT": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    shutil.rmtree(source)                      # nothing may be read from the copy either
    work = tmp / "elsewhere"
    work.mkdir()
    return venv, work


def _run(installed, *args, stdin: str = "") -> subprocess.CompletedProcess:
    venv, work = installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VOICEHOST_ROOT")}
    return subprocess.run([str(venv / "bin" / "voicehost"), *args], cwd=work, input=stdin,
                          capture_output=True, text=True, timeout=120, env=env)


def test_check_phrase_runs_from_a_plain_install_outside_the_checkout(installed):
    venv, _ = installed
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import voicehost; print(voicehost.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=installed[1])
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout
    done = _run(installed, "check-phrase", "--speaker", "1", "--text", "выставляю седьмого спасибо")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert any(e.get("type") == "nomination" and e.get("target") == 7 for e in events), events
    done = _run(installed, "check-phrase", "--ruleset", "ua-club", "--speaker", "1", "--text", "виставляю сьомого")
    assert done.returncode == 0, done.stderr


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
