"""Serving the pages with hypercorn's trio worker: ``arena web``, and the pages' process of
``arena serve --web`` (:mod:`arena.web.pagesjob`), which serves on a listening socket its game
server opened and reads the live tables from that server's feed."""

from __future__ import annotations

from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from arena.events.storage import Storage
from arena.web.app import make_app
from arena.web.author_jobs import AuthorSettings
from arena.web.data import NO_EVENT, REFRESH, EventData
from arena.web.live import LiveTables
from arena.web.play_table import PlaySettings
from protocol.limits import MAX_LINE_BYTES

DEFAULT_HOST = "127.0.0.1"
#: The longest WebSocket message a browser may send (the play page's: one protocol line).
WEBSOCKET_BYTES = 2 * MAX_LINE_BYTES


def config_for(host: str, port: int, listener: int | None = None) -> Config:
    """Hypercorn's configuration: listen on ``host``:``port``, or on the listening socket
    ``listener`` (a file descriptor) when given."""
    config = Config()
    config.bind = [f"fd://{listener}" if listener is not None
                   else f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1.0
    config.websocket_max_message_size = WEBSOCKET_BYTES
    return config


async def serve_pages(storage: Storage | None, *, host: str = DEFAULT_HOST, port: int = 0,
                      logs: Path | None = None, live: LiveTables | None = None,
                      listener: int | None = None, empty: str = NO_EVENT,
                      refresh: float = REFRESH, play: PlaySettings | None = None,
                      authors: AuthorSettings | None = None,
                      task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the pages until cancelled; ``task_status`` gets the address (``http://...``).
    ``live``: a game server's running tables (read from its feed); ``listener``: a listening
    socket to serve on (a file descriptor) instead of ``host``:``port``; ``play``: the play
    page's settings (None: play is not open); ``authors``: the author's page's (None: not
    open)."""
    data = EventData(storage, logs=logs, empty=empty, refresh=refresh)
    app = make_app(data, live, play, authors)

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(serve, app, config_for(host, port, listener))
        task_status.started(binds[0])
