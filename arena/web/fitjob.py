"""The fit's process (``python -m arena.web.fitjob``): the request on standard input, the
compact standings in frames on standard output, as :mod:`arena.web.fitproc` describes."""

from __future__ import annotations

import json
import os
import pickle
import sys
from collections.abc import Iterator
from typing import Any

import attrs

from arena.events.storage import Storage
from arena.web.data import fit
from arena.web.fitproc import FIT_NICENESS, HEADER, REFS_CHUNK
from arena.web.history import rating_history


def frames(storage: Storage, resamples: int) -> Iterator[tuple[str, Any]]:
    """The answer's frames (in the fit's process; blocking)."""
    standings, games = fit(storage, resamples=resamples, history=False)
    yield "standings", attrs.evolve(standings, refs={})
    refs = list(standings.refs.items())
    for start in range(0, len(refs), REFS_CHUNK):
        yield "refs", dict(refs[start:start + REFS_CHUNK])
    yield "ready", None
    yield "history", rating_history(storage, standings.names, games,
                                    seed=standings.meta.get("seed", 0))


def main() -> None:
    """``python -m arena.web.fitjob``: a request on standard input, frames on standard
    output."""
    from arena.events.pg_open import open_existing

    if hasattr(os, "nice"):
        os.nice(FIT_NICENESS)
    request = json.loads(sys.stdin.readline())
    storage = open_existing(request["db"])
    out = sys.stdout.buffer
    try:
        for frame in frames(storage, int(request["resamples"])):
            payload = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
            out.write(HEADER.pack(len(payload)) + payload)
            out.flush()
    finally:
        storage.close()



if __name__ == "__main__":
    main()
