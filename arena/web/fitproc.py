"""The standings' fit in a process of its own (``python -m arena.web.fitjob``; this module is
the serving side), so that the serving process (``arena web``, or a live server with ``arena
serve --web``) neither reads every game nor holds the GIL for the fit: with a fit in a thread of
the serving process, pages (and a live server's tables) waited up to seconds during each refit
at 200 bots and 100,000 games.

The request is one JSON line on standard input (``{"db": ..., "resamples": ...}``: the event's
SQLite file or ``postgresql://`` URL); the answer on standard output is a few frames (8 bytes of
length, then a pickle; this process is ours, its output is trusted), in this order:

- ``("standings", Standings)``: the compact standings (:func:`arena.web.data.fit`) without their
  game references and without the rating history;
- ``("refs", dict)``: the game references, a chunk of :data:`REFS_CHUNK` games per frame (the
  serving process unpickles each in a worker thread, and never long in one go);
- ``("ready", None)``: the standings are whole (the pages get them now);
- ``("history", History)``: each bot's rating over time (the longer part).
"""

from __future__ import annotations

import json
import os
import pickle
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.events.storage import Storage
from arena.web.history import History

#: Game references per frame.
REFS_CHUNK = 5000
#: The fit's process runs at this niceness: the server and its pages come first.
FIT_NICENESS = 10
#: Where ``arena`` is, for the fit's process when it is not installed.
PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
HEADER = struct.Struct(">Q")


class FitFailed(Exception):
    """The fit's process ended without its standings (a one-line reason)."""


def where_of(storage: Storage | None) -> str | None:
    """What another process opens ``storage`` by (its file or URL); None when it cannot."""
    url = getattr(storage, "url", None)
    if isinstance(url, str):
        return url
    path = getattr(storage, "path", None)
    return str(path) if isinstance(path, Path) else None


async def fit_in_process(where: str, resamples: int, ready: Callable[[Any], None],
                         history: Callable[[History], None]) -> None:
    """Fit ``where``'s standings in a process of its own: ``ready(standings)`` once they are
    whole (without their history), then ``history(...)``; :class:`FitFailed` if the process
    fails before the standings are whole.  Cancelling kills the process."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(
               [str(PROJECT_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "arena.web.fitjob"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    errors = bytearray()
    whole = False
    try:
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        await process.stdin.send_all(json.dumps({"db": where, "resamples": resamples}).encode()
                                     + b"\n")
        await process.stdin.aclose()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain, process.stderr, errors)
            whole = await read_frames(process.stdout, ready, history)
    finally:
        if process.returncode is None:
            process.kill()
        with trio.CancelScope(shield=True):
            await process.wait()
    if not whole:
        why = errors.decode(errors="replace").strip().splitlines()
        raise FitFailed(f"the standings' fit failed (exit {process.returncode})"
                        + (f": {why[-1]}" if why else ""))


async def drain(stream: trio.abc.ReceiveStream, into: bytearray) -> None:
    async for chunk in stream:
        into += chunk[-4096:]
        del into[:-4096]


async def read_frames(stream: trio.abc.ReceiveStream, ready: Callable[[Any], None],
                      history: Callable[[History], None]) -> bool:
    """Read the frames, handing on the standings and the history; whether the standings
    came whole."""
    buffer = bytearray()
    whole = False
    standings: Any = None
    refs: dict[int, Any] = {}
    async for chunk in stream:
        buffer += chunk
        while len(buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(buffer)
            if len(buffer) < HEADER.size + size:
                break
            payload = bytes(buffer[HEADER.size:HEADER.size + size])
            del buffer[:HEADER.size + size]
            kind, value = await trio.to_thread.run_sync(pickle.loads, payload)
            if kind == "standings":
                standings = value
            elif kind == "refs":
                refs.update(value)
            elif kind == "ready":
                ready(attrs.evolve(standings, refs=refs))
                whole = True
            elif kind == "history":
                history(value)
    return whole

