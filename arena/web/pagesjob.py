"""The pages' process of ``arena serve --web``: ``python -m arena.web.pagesjob SETTINGS``, started
and watched by the game server (:mod:`arena.web.pagesproc`, which documents it).

``SETTINGS`` is one JSON object: ``listener`` (the listening socket the game server opened,
inherited), ``feed`` (this end of the game server's feed, inherited), ``spectators`` (the
server's ``--spectators``), ``db`` (the event's file or URL, or null), ``empty`` (what the
leaderboard says when there is no event to show), ``play`` (the play page's settings, or
null: :meth:`arena.web.play_table.PlaySettings.to_json`), ``authors`` (the author's page's
settings, or null: :meth:`arena.web.author_jobs.AuthorSettings.to_json`).  It serves until
the feed ends (the game server is gone or stopping), then exits 0.  It runs in a session of
its own (the game server starts it so) at niceness :data:`PAGES_NICENESS`; Ctrl-C is the game
server's to handle (it then ends the feed), so it is ignored here.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import trio

#: The pages' process runs at this niceness (its session's, where the kernel groups processes
#: by session): the games come first.  ``ARENA_PAGES_NICENESS`` (0 to 19) chooses another.
PAGES_NICENESS = 10
NICENESS_VARIABLE = "ARENA_PAGES_NICENESS"
#: Where Linux sets the niceness of this process's session's group (``sched_autogroup``).
AUTOGROUP = Path("/proc/self/autogroup")


def niceness() -> int:
    """The pages' niceness: ``ARENA_PAGES_NICENESS`` when it is a whole number from 0 to 19
    (a machine that serves the pages alone, or a test suite that waits for them), else
    :data:`PAGES_NICENESS`."""
    asked = os.environ.get(NICENESS_VARIABLE, "").strip()
    return int(asked) if asked.isdigit() and int(asked) <= 19 else PAGES_NICENESS


def yield_to_the_games() -> None:
    """Lower this process's priority below the game server's.  Where the kernel groups
    processes by session (``sched_autogroup``: this process has a session of its own) a task's
    niceness only ranks it inside its group, so the group's is set; else the process's."""
    nice = niceness()
    try:
        AUTOGROUP.write_text(f"{nice}\n")
    except OSError:
        if hasattr(os, "nice"):
            os.nice(nice)


async def serve(settings: dict[str, Any], storage: Any, empty: str) -> None:
    from arena.web.author_jobs import AuthorSettings
    from arena.web.live import LiveTables
    from arena.web.play_table import PlaySettings
    from arena.web.serve import serve_pages

    feed = trio.SocketStream(trio.socket.from_stdlib_socket(
        socket.socket(fileno=settings["feed"])))
    live = LiveTables(feed, settings["spectators"])
    play = settings.get("play")
    authors = settings.get("authors")
    async with trio.open_nursery() as nursery:
        await nursery.start(functools.partial(
            serve_pages, storage, live=live, listener=settings["listener"], empty=empty,
            play=None if play is None else PlaySettings.from_json(play),
            authors=None if authors is None else AuthorSettings.from_json(authors)))
        await live.gone.wait()  # the game server is gone or stopping
        nursery.cancel_scope.cancel()


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the game server ends the feed
    yield_to_the_games()
    settings = json.loads(argv[0])
    from arena.events.pg_open import NotAnEvent, open_existing

    storage, empty = None, settings["empty"]
    if settings["db"] is not None:
        try:
            storage = open_existing(settings["db"])
        except NotAnEvent as exc:
            empty = f"no games stored yet: {exc}"
    try:
        trio.run(serve, settings, storage, empty)
    finally:
        if storage is not None:
            storage.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
