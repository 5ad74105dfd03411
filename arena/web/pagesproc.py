"""The pages of ``arena serve --web`` in a process of their own, started and watched by the game
server (this module is the game server's side; :mod:`arena.web.pagesjob` is the process).

Served in the game server's loop, the pages slowed its games: page requests and the live
tables' event streams took its loop's time and its interpreter's lock.  Now:

- the game server opens the pages' listening socket itself (a port taken is one line before
  any game) and hands it to the pages' process, which serves every request; the socket stays
  open in the game server, so a restarted process serves on the same address;
- the live tables come from the game server's feed (:mod:`arena.edge.page_feed`) over a
  socket pair whose other end only the pages' process inherits: no file, no port, nothing
  another process can open; the feed carries what a spectator may see, one feed per table
  however many browsers follow it, and the browsers' connections never reach the game server;
- the pages' process reads the event's database itself (``--db``), as ``arena web`` does;
  without one the leaderboard says so and the live tables are shown;
- it runs in a session of its own, whose scheduling group (Linux groups processes by session,
  ``sched_autogroup``) is at niceness :data:`arena.web.pagesjob.PAGES_NICENESS`: the pages'
  work is neither charged to the game server's group nor ranked with it, and the games come
  first (a task's niceness ranks it only inside its group);
- it ignores Ctrl-C (the game server ends the feed as it stops, and the process exits; it is
  killed after :data:`STOP_GRACE` seconds) and exits by itself when the feed ends, so it never
  outlives the game server, even one killed outright;
- if it dies, the game server says so in one line (with the last line it wrote on its error
  output) and starts another after :data:`RESTART_PAUSE` seconds, at most
  :data:`MAX_RESTARTS` times in :data:`RESTART_WINDOW` seconds: at the next death it says the
  pages stay down; the games go on either way.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import trio

from arena.edge.page_feed import PageFeed
from arena.web.author_jobs import AuthorSettings
from arena.web.play_table import PlaySettings

#: Seconds the pages' process gets to exit once its feed ended (then it is killed).
STOP_GRACE = 5.0
#: Seconds before a pages' process that died is started again.
RESTART_PAUSE = 1.0
#: Restarts at most in :data:`RESTART_WINDOW` seconds (then the pages stay down).
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
#: Bytes of the process's error output kept (its last line is reported).
ERRORS_KEPT = 4096
#: Connections waiting for the pages' process to accept them (while it starts, say).
BACKLOG = 128
#: Where ``arena`` is, for the pages' process when it is not installed.
PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent


def listen(host: str, port: int) -> socket.socket:
    """The pages' listening socket (``OSError`` when it cannot be had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=BACKLOG)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # the accepted ones too
    return listener


def address_of(listener: socket.socket) -> str:
    host, port = listener.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def ended(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-returncode).name}"
        return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


class PagesProcess:
    """The pages' process of ``server`` (an ``ArenaServer``), serving on ``listener``,
    reading ``db`` (a file or URL, or None); ``err`` writes the operator's lines."""

    def __init__(self, server: Any, listener: socket.socket, db: Path | str | None,
                 err: Callable[[str], None], empty: str, play: PlaySettings | None = None,
                 authors: AuthorSettings | None = None) -> None:
        self.server = server
        self.play = play
        self.authors = authors
        self.listener = listener
        self.db = db
        self.err = err
        self.empty = empty
        #: The current process's feed (tests read its statistics).
        self.feed: PageFeed | None = None
        #: The current process (None between two).
        self.process: trio.Process | None = None

    def command(self, feed_fd: int) -> list[str]:
        settings = {"listener": self.listener.fileno(), "feed": feed_fd,
                    "spectators": self.server.config.spectators.mode,
                    "db": None if self.db is None else str(self.db), "empty": self.empty,
                    "play": None if self.play is None else self.play.to_json(),
                    "authors": None if self.authors is None else self.authors.to_json()}
        return [sys.executable, "-m", "arena.web.pagesjob", json.dumps(settings)]

    async def run(self) -> None:
        """Keep a pages' process running until cancelled (then stop it), restarting one that
        dies (see the module's docstring)."""
        restarts: collections.deque[float] = collections.deque()
        while True:
            try:
                why = await self.run_once()
            except OSError as exc:  # no process could be started (no memory, no file left)
                why = f"it could not start: {exc.strerror or exc}"
            now = trio.current_time()
            while restarts and now - restarts[0] > RESTART_WINDOW:
                restarts.popleft()
            if len(restarts) >= MAX_RESTARTS:
                self.err(f"arena: the pages' process ended ({why}) after {MAX_RESTARTS} "
                         f"restarts in {RESTART_WINDOW:g} s: the pages stay down (the games go "
                         "on)")
                return
            self.err(f"arena: the pages' process ended ({why}); the games go on, the pages "
                     f"start again in {RESTART_PAUSE:g} s")
            restarts.append(now)
            await trio.sleep(RESTART_PAUSE)

    async def run_once(self) -> str:
        """One pages' process from start to end; why it ended, in a few words.  Cancelled:
        its feed ends, it gets :data:`STOP_GRACE` seconds to exit, then it is killed."""
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(PROJECT_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
        try:
            process = await trio.lowlevel.open_process(
                self.command(theirs.fileno()), pass_fds=(theirs.fileno(), self.listener.fileno()),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                env=env, start_new_session=True)  # its CPU is not charged to the games' group
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()  # the process's end is its own: its exit ends the feed
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
        feed = self.feed = PageFeed(lambda: self.server.tables, self.server.spectators)
        self.process = process
        errors = bytearray()
        broken: str | None = None
        try:
            async with trio.open_nursery() as nursery:
                assert process.stderr is not None
                nursery.start_soon(drain, process.stderr, errors)

                async def serve_feed() -> None:
                    nonlocal broken
                    broken = await feed.serve(stream)
                    await stream.aclose()  # the process sees the feed end and exits

                nursery.start_soon(serve_feed)
                await process.wait()
                nursery.cancel_scope.cancel()
        finally:
            self.process = None
            with trio.CancelScope(shield=True):
                await stream.aclose()
                with trio.move_on_after(STOP_GRACE):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
        last = errors.decode(errors="replace").strip().splitlines()
        return broken or ended(process.returncode) + (f": {last[-1]}" if last else "")


async def drain(stream: trio.abc.ReceiveStream, into: bytearray) -> None:
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        async for chunk in stream:
            into += chunk[-ERRORS_KEPT:]
            del into[:-ERRORS_KEPT]


@contextlib.asynccontextmanager
async def pages_process(server: Any, listener: socket.socket, db: Path | str | None,
                        out: Callable[[str], None], err: Callable[[str], None],
                        play: PlaySettings | None = None,
                        authors: AuthorSettings | None = None) -> AsyncIterator[PagesProcess]:
    """``arena serve --web``: the pages' process serving on ``listener`` (:func:`listen`)
    while the body runs, stopped when it ends; the listener is closed then.  ``play``: the
    play page's settings (its tables run in the pages' process); ``authors``: the author's
    page's (:mod:`arena.web.author`)."""
    empty = "no games stored here (arena serve --db FILE stores them)"
    pages = PagesProcess(server, listener, db, err, empty, play, authors)
    address = address_of(listener)
    out(f"arena: the pages at {address}/ (live tables at {address}/live)")
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(pages.run)
            try:
                yield pages
            finally:
                nursery.cancel_scope.cancel()
    finally:
        listener.close()
