"""The one atomic writer: a file is replaced whole or not at all, synced before
the rename, and no temp file is left behind on any failure."""
from __future__ import annotations

import os

import pytest

from voicehost import files


def test_write_atomic_syncs_then_renames(tmp_path, monkeypatch):
    target = tmp_path / "protocol.json"
    target.write_text("old", "utf-8")
    order: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(files.os, "fsync", lambda fd: (order.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(files.os, "replace", lambda a, b: (order.append("replace"), real_replace(a, b))[1])
    files.write_atomic(target, "new \ud800 text")   # a lone surrogate is written escaped
    assert order == ["fsync", "replace"]
    assert target.read_text("utf-8") == "new \\ud800 text"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["protocol.json"]


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_write_atomic_failure_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch, failing):
    target = tmp_path / "protocol.json"
    target.write_text("old", "utf-8")

    def broken(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, failing, broken)
    with pytest.raises(OSError, match="No space left"):
        files.write_atomic(target, "new")
    assert target.read_text("utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["protocol.json"]


def test_the_protocol_writer_and_the_exports_use_the_one_writer():
    from pathlib import Path

    root = Path(files.__file__).resolve().parent
    writers = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
               if "mkstemp" in p.read_text("utf-8") and "web" not in p.parts]
    # files.py writes; simulate.py only names the journal's temp file before a script plays.
    assert sorted(writers) == ["files.py", "simulate.py"]
