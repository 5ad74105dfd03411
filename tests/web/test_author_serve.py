"""The author's page of ``arena serve --web PORT --db FILE``: served by the pages' own process,
which reads the ladder and writes what an author changes (the version that plays)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest

from arena.events.hosted_store import SqliteHosted
from tests.serve_harness import Served
from tests.web.authors import Answer, Client
from tests.web.test_author_page import versions
from tests.web.test_pages_process import pages_address

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")


def post(client: Client, path: str, fields: dict[str, object]) -> Answer:
    return client._request("POST", path, urlencode(fields).encode(), {
        "Content-Type": "application/x-www-form-urlencoded", "Origin": client.base})


def test_the_pages_process_of_arena_serve_opens_the_authors_page(tmp_path):
    from tests.cli.test_bots_command import add

    db = tmp_path / "ladder.db"
    tokens = {name: add(db, name) for name in ("alice", "bob")}
    versions(db)
    with Served(tmp_path, "--game", "chochlik", "--db", str(db), "--web", "0") as served:
        alice = Client(pages_address(served))
        assert post(alice, "/author/signin", {"name": "alice", "token": tokens["bob"]}
                    ).status == 403
        assert post(alice, "/author/signin", {"name": "alice", "token": tokens["alice"]}
                    ).status == 303
        home = alice._request("GET", "/author", None, {})
        assert 'data-number="2" data-state="active"' in home.text
        assert "alice-own-OUTPUT-2" in home.text and "BOB-SECRET" not in home.text
        made = post(alice, "/author/activate", {"number": 1, "form_token": home.form_token()})
        assert made.status == 303, made.text
        assert served.interrupt() == 0
    with SqliteHosted(db) as store:
        assert [v.state.value for v in store.versions("alice")] == ["active", "valid"]
