"""A ladder for the author's page's tests: registered bots (alice, bob, carol, dave) that played
real games (one-hand chochlik, the driver with random answers, real logs), each entrant under
its registration's identity as ``arena serve --db`` stores it; and a small HTTP client that
keeps the session cookie itself and follows no redirect (the tests read each answer)."""

from __future__ import annotations

import contextlib
import functools
import http.client
import itertools
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import trio

from arena.events.pg_open import open_existing
from arena.events.registry import Registry, identity
from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord, PlannedTable
from arena.web.author_jobs import AuthorSettings
from arena.web.serve import serve_pages
from tests.web.events import play

NAMES = ("alice", "bob", "carol", "dave")
OPTIONS = {"hands": 1, "players": 3}
#: Seconds an answer may take (the first page of a loaded machine waits for the first fit).
TIMEOUT = 180


def ladder(folder: Path, *, duplicate: bool = False) -> tuple[Path, dict[str, str]]:
    """The database (games 0..3: every three of the four bots; game 3 is bob, carol and dave)
    and each bot's token.  ``duplicate``: a duplicate event (its sets not over)."""
    db = folder / "ladder.db"
    with Registry(db) as registry:
        tokens = {name: registry.add(name) for name in NAMES}
        rows = registry.rows()
    storage = SqliteStorage(db)
    storage.write_event({"game": "chochlik", "options": OPTIONS, "duplicate": duplicate,
                         "seed": "t"}, [(name, identity(rows[name].salt)) for name in NAMES])
    rng = random.Random(7)
    for index, entrants in enumerate(itertools.combinations(range(len(NAMES)), 3)):
        seed = f"seed{index}"
        driver, path = play("chochlik", OPTIONS, [NAMES[e] for e in entrants], seed,
                            f"g{index}", folder / "logs", rng)
        result = driver.result
        assert result is not None
        storage.add_game(GameRecord(
            number=index, game_id=f"g{index}", entrants=entrants,
            names=tuple(NAMES[e] for e in entrants), seed=seed, scores=tuple(result.scores),
            ranks=tuple(result.ranks), winners=tuple(result.winners), aborted=None,
            defaults=tuple(sum(s.defaults.values()) for s in driver.stats),
            errors=tuple(s.errors for s in driver.stats), rounds=result.rounds, log_path=path,
            seconds=0.1, tag=PlannedTable(index, index, 0, tuple(entrants), seed)))
    storage.close()
    return db, tokens


@contextlib.asynccontextmanager
async def served(db: Path | str, game: str = "chochlik",
                 builds: Path | None = None) -> AsyncIterator[str]:
    """The pages of ``db`` (a file or URL) with the author's page open: their address."""
    storage = open_existing(db)
    assert builds is not None or isinstance(db, Path)
    settings = AuthorSettings(str(db), game, builds if builds is not None
                              else Path(db).with_name(Path(db).name + ".builds"))
    try:
        async with trio.open_nursery() as nursery:
            yield await nursery.start(functools.partial(serve_pages, storage, port=0,
                                                        authors=settings))
            nursery.cancel_scope.cancel()
    finally:
        storage.close()


class Answer:
    def __init__(self, status: int, headers: http.client.HTTPMessage, text: str) -> None:
        self.status, self.headers, self.text = status, headers, text

    def form_token(self) -> str:
        found = re.search(r'name="form_token" value="([^"]+)"', self.text)
        assert found, self.text
        return found.group(1)


class Client:
    """A browser of the pages at ``base``: it keeps the session cookie and sends this site's
    ``Origin`` with each POST (unless told another)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookie: str | None = None
        self.set_cookie: str | None = None

    def _request(self, method: str, path: str, body: bytes | None,
                 headers: dict[str, str]) -> Answer:
        where = urlsplit(self.base)
        connection = http.client.HTTPConnection(where.hostname or "", where.port,
                                                timeout=TIMEOUT)
        try:
            if self.cookie:
                headers = {"Cookie": self.cookie, **headers}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            text = response.read().decode(errors="replace")
        finally:
            connection.close()
        cookie = response.headers.get("set-cookie")
        if cookie is not None:
            self.set_cookie = cookie
            value = cookie.split(";")[0]
            self.cookie = None if value.endswith("=") else value
        return Answer(response.status, response.headers, text)

    async def request(self, method: str, path: str, body: bytes | None = None,
                      **headers: str) -> Answer:
        return await trio.to_thread.run_sync(self._request, method, path, body, headers)

    async def get(self, path: str) -> Answer:
        return await self.request("GET", path)

    async def post(self, path: str, fields: dict[str, Any], origin: str | None = "") -> Answer:
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if origin is not None:
            headers["Origin"] = origin or self.base
        return await self.request("POST", path, urlencode(fields).encode(), **headers)

    async def upload(self, content: bytes, filename: str, form_token: str | None,
                     origin: str | None = "") -> Answer:
        boundary = "arena-test-boundary-7c1f"
        parts = [] if form_token is None else [
            f'--{boundary}\r\nContent-Disposition: form-data; name="form_token"\r\n\r\n'
            f"{form_token}\r\n".encode()]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                     f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                     .encode() + content + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        if origin is not None:
            headers["Origin"] = origin or self.base
        return await self.request("POST", "/author/upload", b"".join(parts), **headers)

    async def sign_in(self, name: str, token: str) -> Answer:
        return await self.post("/author/signin", {"name": name, "token": token})
