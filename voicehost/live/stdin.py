"""The host's typed lines, read without ever holding up the loop: a pipe or a
terminal is watched by the loop itself, anything else (a file, a StringIO)
is read by a daemon thread that never outlives the loop."""
from __future__ import annotations

import asyncio
import io
import logging
import os
import threading
from collections.abc import Callable
from typing import TextIO

log = logging.getLogger(__name__)


def line_queue(stdin: TextIO, loop: asyncio.AbstractEventLoop) -> tuple[asyncio.Queue[str | None], Callable[[], None]]:
    """Lines from stdin as they come, and how to stop reading. A pipe or a
    terminal is watched by the loop itself (nothing blocks, nothing to join);
    anything else (a file, a StringIO) is read by a daemon thread."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    try:
        fd = stdin.fileno()
        loop.add_reader(fd, lambda: None)
        loop.remove_reader(fd)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation, NotImplementedError):
        return queue, _read_in_thread(stdin, loop, queue)
    pending = bytearray()

    def ready() -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        pending.extend(chunk)
        *lines, rest = bytes(pending).split(b"\n")
        pending[:] = rest
        for line in lines:
            queue.put_nowait(line.decode("utf-8", "replace") + "\n")
        if not chunk:
            loop.remove_reader(fd)
            if pending:
                queue.put_nowait(pending.decode("utf-8", "replace"))
            queue.put_nowait(None)

    loop.add_reader(fd, ready)

    def stop() -> None:
        loop.remove_reader(fd)
    return queue, stop


def _read_in_thread(stdin: TextIO, loop: asyncio.AbstractEventLoop,
                    queue: asyncio.Queue[str | None]) -> Callable[[], None]:
    def put(item: str | None) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is gone: the session has ended
            pass

    def read() -> None:
        try:
            for line in iter(stdin.readline, ""):
                put(line)
        except (OSError, ValueError) as exc:
            log.warning("stdin: %s", exc)
        put(None)

    threading.Thread(target=read, name="stdin", daemon=True).start()
    return lambda: None


async def next_line(lines: asyncio.Queue[str | None], *stops: asyncio.Event) -> str | None:
    """The next line, or None at the end of input or when any of `stops` is set."""
    get = asyncio.ensure_future(lines.get())
    halts = [asyncio.ensure_future(stop.wait()) for stop in stops]
    done, _ = await asyncio.wait({get, *halts}, return_when=asyncio.FIRST_COMPLETED)
    for task in (get, *halts):
        if task not in done:
            task.cancel()
    return get.result() if get in done else None
