"""Serving the pages with hypercorn's trio worker, on its own (``arena web``) or as a task
beside a live server (``arena serve --web``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from arena.events.storage import Storage
from arena.web.app import make_app
from arena.web.data import NO_EVENT, REFRESH, EventData
from arena.web.live import LiveTables

DEFAULT_HOST = "127.0.0.1"


def config_for(host: str, port: int) -> Config:
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1.0
    return config


async def serve_pages(storage: Storage | None, *, host: str = DEFAULT_HOST, port: int = 0,
                      logs: Path | None = None, server: Any = None, empty: str = NO_EVENT,
                      refresh: float = REFRESH,
                      task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the pages until cancelled; ``task_status`` gets the address (``http://...``).
    ``server``: a running ``ArenaServer`` whose tables the live pages show."""
    data = EventData(storage, logs=logs, empty=empty, refresh=refresh)
    app = make_app(data, LiveTables(server) if server is not None else None)

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(serve, app, config_for(host, port))
        task_status.started(binds[0])
