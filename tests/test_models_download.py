"""`voicehost models download` against a local HTTP server: progress, resume
of an interrupted download, SHA-256 checks (manifest, published, pinned),
zip unpacking, and one clear line when offline."""
from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from voicehost import models

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


class Files(BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    published: dict[str, str] = {}
    cut_first: set[str] = set()
    ranges: list[str] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = 0
        header = self.headers.get("Range")
        if header:
            self.ranges.append(header)
            start = int(header.split("=")[1].rstrip("-"))
            self.send_response(206)
        else:
            self.send_response(200)
        if self.path in self.published:
            self.send_header("X-Linked-Etag", f'"{self.published[self.path]}"')
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if self.path in self.cut_first:
            self.cut_first.discard(self.path)
            self.wfile.write(body[start:start + len(body) // 3])
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        self.wfile.write(body[start:])


@pytest.fixture
def server():
    Files.files, Files.published, Files.cut_first, Files.ranges = {}, {}, set(), []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Files)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class Quiet(models.Progress):
    seen: list[int] = []

    def __init__(self, name, total, stream=None):
        super().__init__(name, total, io.StringIO())

    def update(self, done):
        Quiet.seen.append(done)
        super().update(done)


def test_download_checks_the_manifest_sha256(server, tmp_path):
    Files.files["/voice.onnx"] = PAYLOAD
    path = models.fetch(models.RemoteFile(f"{server}/voice.onnx", DIGEST), tmp_path, progress=Quiet)
    assert path.read_bytes() == PAYLOAD and Quiet.seen[-1] == len(PAYLOAD)


def test_interrupted_download_resumes(server, tmp_path):
    Files.files["/model.zip"] = PAYLOAD
    Files.cut_first.add("/model.zip")
    remote = models.RemoteFile(f"{server}/model.zip", DIGEST)
    with pytest.raises(models.DownloadError):
        models.fetch(remote, tmp_path, progress=Quiet)
    part = tmp_path / "model.zip.partial"
    assert 0 < part.stat().st_size < len(PAYLOAD)
    had = part.stat().st_size
    models.fetch(remote, tmp_path, progress=Quiet)
    assert Files.ranges == [f"bytes={had}-"]
    assert (tmp_path / "model.zip").read_bytes() == PAYLOAD and not part.exists()


def test_checksum_mismatch_removes_the_damaged_file(server, tmp_path):
    Files.files["/voice.onnx"] = PAYLOAD
    with pytest.raises(models.DownloadError, match="does not match"):
        models.fetch(models.RemoteFile(f"{server}/voice.onnx", "0" * 64), tmp_path, progress=Quiet)
    assert list(tmp_path.iterdir()) == []


def test_published_checksum_is_used_when_the_manifest_has_none(server, tmp_path):
    Files.files["/voice.onnx"] = PAYLOAD
    Files.published["/voice.onnx"] = "1" * 64
    with pytest.raises(models.DownloadError, match="does not match"):
        models.fetch(models.RemoteFile(f"{server}/voice.onnx", ""), tmp_path, progress=Quiet)
    Files.published["/voice.onnx"] = DIGEST
    models.fetch(models.RemoteFile(f"{server}/voice.onnx", ""), tmp_path, progress=Quiet)


def test_unpublished_checksum_is_pinned_then_enforced(server, tmp_path):
    Files.files["/model.zip"] = PAYLOAD
    remote = models.RemoteFile(f"{server}/model.zip", "")
    models.fetch(remote, tmp_path, progress=Quiet)
    assert models.verify(tmp_path) == [("model.zip", True)]
    (tmp_path / "model.zip").unlink()
    Files.files["/model.zip"] = PAYLOAD[::-1]  # the server now sends something else
    with pytest.raises(models.DownloadError, match="does not match"):
        models.fetch(remote, tmp_path, progress=Quiet)


def test_install_unpacks_a_zip(server, tmp_path):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("vosk-model-test/conf/model.conf", "--x\n")
    Files.files["/m.zip"] = archive.getvalue()
    entry = models.Entry("asr", "test", "", (models.RemoteFile(f"{server}/m.zip", ""),), "zip",
                         "vosk-model-test")
    folder = models.install(entry, tmp_path, progress=Quiet)
    assert (folder / "conf" / "model.conf").is_file() and not (tmp_path / "m.zip").exists()


def test_offline_is_one_clear_line(tmp_path):
    remote = models.RemoteFile("http://127.0.0.1:9/vosk-model-small-ru-0.22.zip", "")
    with pytest.raises(models.DownloadError, match="cannot reach 127.0.0.1:9") as info:
        models.fetch(remote, tmp_path, progress=Quiet)
    assert "models download" in str(info.value) and "\n" not in str(info.value)


def test_manifest_names_the_official_models():
    entries = models.load_manifest()
    asr = models.pick(entries, "asr", None)
    assert asr.folder == "vosk-model-small-ru-0.22"
    assert asr.files[0].url == "https://alphacephei.com/vosk/models/vosk-model-small-ru-0.22.zip"
    assert models.pick(entries, "voice", None).key == "irina"
    for voice in ("irina", "denis", "dmitri", "ruslan"):
        urls = [f.url for f in models.pick(entries, "voice", voice).files]
        assert urls[0].endswith(f"ru_RU-{voice}-medium.onnx") and urls[1].endswith(".onnx.json")
        assert urls[0].startswith("https://huggingface.co/rhasspy/piper-voices/")
    with pytest.raises(models.DownloadError, match="unknown voice 'olga'"):
        models.pick(entries, "voice", "olga")


def test_models_download_without_network_explains_itself():
    """This machine has no route to the model hosts: the command says what to do."""
    proc = subprocess.run([sys.executable, "-m", "voicehost", "models", "download", "--only", "voice"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "cannot reach huggingface.co" in line and "models download" in line


def test_each_table_language_has_its_own_default_model_and_voice():
    """ua-club (language uk) listens with a Ukrainian Vosk model and speaks
    with a Ukrainian Piper voice; the Russian rulesets keep theirs."""
    entries = models.load_manifest()
    asr, voice = models.pick(entries, "asr", None, "uk"), models.pick(entries, "voice", None, "uk")
    assert (asr.key, asr.language, asr.folder) == ("small-uk", "uk", "vosk-model-small-uk-v3-small")
    assert asr.files[0].url == "https://alphacephei.com/vosk/models/vosk-model-small-uk-v3-small.zip"
    assert voice.key == "ukrainian_tts" and voice.language == "uk"
    assert [f.name for f in voice.files] == ["uk_UA-ukrainian_tts-medium.onnx", "uk_UA-ukrainian_tts-medium.onnx.json"]
    assert voice.files[0].url.startswith("https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/uk/uk_UA/")
    assert models.pick(entries, "asr", None, "ru").key == "small-ru"
    assert all(e.language in ("ru", "uk") for e in entries.values())
    for language in ("ru", "uk"):  # one default of each kind per language
        for kind in ("asr", "voice"):
            assert sum(e.default for e in entries.values() if (e.kind, e.language) == (kind, language)) == 1
    with pytest.raises(models.DownloadError, match="no default asr for the language 'de'"):
        models.pick(entries, "asr", None, "de")


def test_an_empty_model_or_voice_setting_loads_the_table_languages(tmp_path):
    from voicehost.config import AsrSettings, Config, TtsSettings
    from voicehost.paths import MODELS

    config = Config()
    assert config.model_dir("uk") == MODELS / "vosk-model-small-uk-v3-small"
    assert config.voice_file("uk") == MODELS / "uk_UA-ukrainian_tts-medium.onnx"
    assert config.model_dir("ru") == MODELS / "vosk-model-small-ru-0.22"
    assert config.voice_file("ru") == MODELS / "ru_RU-irina-medium.onnx"
    named = Config(asr=AsrSettings(model=str(tmp_path / "m")), tts=TtsSettings(voice="models/x.onnx"))
    assert named.model_dir("uk") == tmp_path / "m" and named.voice_file("uk").name == "x.onnx"


def test_models_download_for_ua_club_fetches_the_ukrainian_model():
    proc = subprocess.run([sys.executable, "-m", "voicehost", "models", "download", "--only", "asr",
                           "--ruleset", "ua-club"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout.startswith("asr small-uk: Vosk small Ukrainian model")
    (line,) = proc.stderr.strip().splitlines()
    assert "cannot reach alphacephei.com" in line


def test_models_list_offers_the_ukrainian_model_and_voice():
    proc = subprocess.run([sys.executable, "-m", "voicehost", "models", "list"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert any(line.startswith("asr.small-uk ") and "(default for uk)" in line for line in lines)
    assert any(line.startswith("voice.ukrainian_tts ") and "(default for uk)" in line for line in lines)
    assert any(line.startswith("asr.small-ru ") and "(default for ru)" in line for line in lines)
