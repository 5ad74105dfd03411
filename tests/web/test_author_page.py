"""The author's page (issue 33 §3) through HTTP, as a browser and an attacker use it: signing
in with the bot's token (and being refused, then held back, without it), the session cookie,
the forms' CSRF defences, and that a signed-in author reaches her own bot's versions, logs,
output and games only, her games from her own seat only."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from arena.events.hosted_store import SqliteHosted
from arena.gameplay.gamelog import read_log
from arena.launch.hosted_run import output_file
from arena.web.author_auth import SIGNIN_FAILURES
from arena.web.frames import frames
from tests.web.authors import Client, ladder, served


def versions(db: Path, store: Any = None, builds: Path | None = None) -> None:
    """alice: version 1 valid, 2 active; bob: 1 valid, 2 active, each with its own logs, source
    and output (bob's marked BOB-SECRET).  ``store``: another than ``db``'s file's."""
    builds = builds if builds is not None else db.with_name(db.name + ".builds")
    with store if store is not None else SqliteHosted(db) as store:
        for name in ("alice", "bob"):
            mark = "BOB-SECRET" if name == "bob" else "alice-own"
            for number in (1, 2):
                source = f"{mark}-SOURCE-{number}".encode()
                store.submit(name, "python", source, f"{name}-src-{number}")
                store.built(name, number, f"{mark}-FILES".encode(), f"{name}-build-{number}",
                            f"{mark}-BUILD-LOG-{number}", ("python3", "{dir}/main.py"))
                passed = store.passed(name, number, f"{mark}-CHECK-LOG-{number}")
                out = output_file(builds, passed)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(f"{mark}-OUTPUT-{number}\n")


async def test_signing_in_takes_the_bots_token_and_failures_are_held_back(tmp_path):
    db, tokens = ladder(tmp_path)
    async with served(db) as base:
        alice = Client(base)
        first = await alice.get("/author")
        assert first.status == 200 and 'action="/author/signin"' in first.text
        signed = await alice.sign_in("Alice", tokens["alice"])  # a name is found without case
        assert signed.status == 303 and signed.headers["location"] == "/author"
        cookie = alice.set_cookie or ""
        assert cookie.startswith("arena_author=") and len(cookie.split(";")[0]) > 40
        attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", "samesite=strict", "path=/author"} <= attributes
        assert "secure" not in attributes  # plain http: a Secure cookie would not come back
        assert tokens["alice"] not in cookie
        home = await alice.get("/author")
        assert home.status == 200 and "alice" in home.text and "/author/signout" in home.text
        assert home.headers["cache-control"] == "no-store"

        mallory = Client(base)
        wrong = await mallory.sign_in("alice", tokens["bob"])
        assert wrong.status == 403 and mallory.cookie is None
        assert "do not match" in wrong.text
        unknown = await mallory.sign_in("nobody", tokens["alice"])
        assert unknown.status == 403 and "do not match" in unknown.text
        for _ in range(SIGNIN_FAILURES - 2):
            assert (await mallory.sign_in("alice", "x" * 32)).status == 403
        held = await mallory.sign_in("alice", tokens["alice"])  # even the right token, now
        assert held.status == 429 and mallory.cookie is None
        assert "too many failed sign-ins: try again in 15 minutes" in held.text

        # signing out ends the session (the old cookie is no key any more)
        kept = alice.cookie
        out = await alice.post("/author/signout", {"form_token": home.form_token()})
        assert out.status == 303 and alice.cookie is None
        alice.cookie = kept
        again = await alice.get("/author")
        assert 'action="/author/signin"' in again.text and "/author/signout" not in again.text


async def test_forms_need_the_session_form_token_and_this_sites_origin(tmp_path):
    db, tokens = ladder(tmp_path)
    versions(db)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        token = (await alice.get("/author")).form_token()
        no_token = await alice.post("/author/activate", {"number": 1})
        assert no_token.status == 403 and "form token" in no_token.text
        wrong = await alice.post("/author/activate", {"number": 1, "form_token": "x" * 43})
        assert wrong.status == 403
        elsewhere = await alice.post("/author/activate", {"number": 1, "form_token": token},
                                     origin="http://evil.example")
        assert elsewhere.status == 403 and "another site" in elsewhere.text
        null = await alice.post("/author/signout", {"form_token": token}, origin="null")
        assert null.status == 403
        upload = await alice.upload(b"print(1)\n", "main.py", None)
        assert upload.status == 403 and "form token" in upload.text
        upload = await alice.upload(b"print(1)\n", "main.py", token, origin="http://evil.example")
        assert upload.status == 403
        with SqliteHosted(db) as store:
            assert [v.state.value for v in store.versions("alice")] == ["valid", "active"]
            assert len(store.versions("alice")) == 2  # no upload was queued either
        assert "/author/signout" in (await alice.get("/author")).text  # still signed in

        made = await alice.post("/author/activate", {"number": 1, "form_token": token})
        assert made.status == 303  # with both, the form works: version 1 plays again
        with SqliteHosted(db) as store:
            assert [v.state.value for v in store.versions("alice")] == ["active", "valid"]


async def test_alice_reaches_nothing_of_bobs_whatever_the_url(tmp_path):
    db, tokens = ladder(tmp_path)
    versions(db)
    with SqliteHosted(db) as store:
        store.retire("bob", 2)  # bob: 1 valid, 2 retired (no version 3 of alice's either)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        home = await alice.get("/author")
        token = home.form_token()
        assert "alice-own-OUTPUT-2" in home.text  # her active version's standard error
        seen = [home]
        own = await alice.get("/author/version/1")
        assert own.status == 200
        assert "alice-own-BUILD-LOG-1" in own.text and "alice-own-CHECK-LOG-1" in own.text
        assert "alice-own-OUTPUT-1" in own.text
        seen.append(own)
        for path in ("/author/version/1?bot=bob", "/author/version/1?name=bob",
                     "/author/version/1/../../version/2?bot=bob", "/author/game/3?bot=bob"):
            seen.append(await alice.get(path))
        for path in ("/author/version/3", "/author/version/0", "/author/version/99999999999",
                     "/author/bob/version/1", "/author/version/bob", "/author/game/3",
                     "/author/game/99", "/author/output/bob/1", "/author/source/1"):
            seen.append(await alice.get(path))
            assert seen[-1].status == 404, path  # game 3: bob, carol and dave played it
        for fields in ({"number": 2, "bot": "bob"}, {"number": 3}, {"number": "1 OR 1=1"}):
            answer = await alice.post("/author/activate", {**fields, "form_token": token})
            assert answer.status == 400
            seen.append(answer)
        for answer in seen:
            assert "BOB-SECRET" not in answer.text, answer.text
        with SqliteHosted(db) as store:
            assert [v.state.value for v in store.versions("bob")] == ["valid", "retired"]
            assert [v.state.value for v in store.versions("alice")] == ["valid", "active"]

        bob = Client(base)  # and bob's own page shows his (the marks were his to see)
        await bob.sign_in("bob", tokens["bob"])
        assert "BOB-SECRET-BUILD-LOG-1" in (await bob.get("/author/version/1")).text


async def test_signed_out_visitors_get_the_public_pages_only(tmp_path):
    db, _ = ladder(tmp_path)
    versions(db)
    async with served(db) as base:
        visitor = Client(base)
        for path in ("/author/version/1", "/author/game/0"):
            answer = await visitor.get(path)
            assert answer.status == 403 and "sign in first" in answer.text
            assert "SECRET" not in answer.text and "alice-own" not in answer.text
        page = await visitor.get("/author")
        assert 'action="/author/signin"' in page.text and "alice-own" not in page.text
        assert (await visitor.post("/author/activate", {"number": 1})).status == 403
        assert (await visitor.upload(b"print(1)\n", "main.py", "x")).status == 403
        assert (await visitor.get("/")).status == 200  # the public pages are as they were


def observed_hands(text: str) -> tuple[list[dict], list[list[int]]]:
    data = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', text,
                      re.S)
    assert data, text
    steps = json.loads(data.group(1))["steps"]
    observed = [step["observation"] for step in steps if "observation" in step]
    return steps, [o["hand"] for o in observed]


async def test_her_game_is_shown_from_her_own_seat_without_the_others_cards(tmp_path):
    db, tokens = ladder(tmp_path)
    log = next((tmp_path / "logs").glob("*g1*"))  # game 1: alice, bob, dave
    records = read_log(str(log))

    def first_hand(seat: int) -> list[int]:
        return next(s["observation"]["hand"] for s in frames(records, f"seat{seat}")["steps"]
                    if "observation" in s)

    async with served(db) as base:
        dave = Client(base)  # dave sits at seat 2 of game 1
        await dave.sign_in("dave", tokens["dave"])
        answer = await dave.get("/author/game/1")
        assert answer.status == 200
        steps, hands = observed_hands(answer.text)
        assert hands and first_hand(2) in hands  # his own cards, as his bot was sent them
        assert first_hand(0) not in hands and first_hand(1) not in hands
        assert {step["seat"] for step in steps if step["type"] == "request"} == {2}
        assert ">seat 0" not in answer.text and "?view=full" not in answer.text
        home = await dave.get("/author")
        assert 'href="/author/game/1"' in home.text and 'href="/author/game/0"' not in home.text


async def test_a_game_of_a_duplicate_set_not_over_is_not_shown_to_its_author(tmp_path):
    db, tokens = ladder(tmp_path, duplicate=True)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        answer = await alice.get("/author/game/0")
        assert answer.status == 404 and "cannot be shown yet" in answer.text
        assert "replay-data" not in answer.text


async def test_the_authors_page_works_on_postgresql(tmp_path, pg_url):
    from arena.events.pg_hosted import PgHosted
    from arena.events.pg_registry import PgRegistry
    from arena.events.pg_storage import PostgresStorage
    from arena.events.registry import identity

    with PgRegistry(pg_url) as registry:
        tokens = {name: registry.add(name) for name in ("alice", "bob")}
        rows = registry.rows()
    storage = PostgresStorage(pg_url)
    storage.write_event({"game": "chochlik", "options": {"hands": 1, "players": 3},
                         "duplicate": False, "seed": "t"},
                        [(name, identity(rows[name].salt)) for name in ("alice", "bob")])
    storage.close()
    builds = tmp_path / "builds"
    versions(tmp_path / "unused.db", PgHosted(pg_url), builds)
    async with served(pg_url, builds=builds) as base:
        alice = Client(base)
        assert (await alice.sign_in("alice", tokens["bob"])).status == 403
        assert (await alice.sign_in("alice", tokens["alice"])).status == 303
        home = await alice.get("/author")
        assert 'data-number="2" data-state="active"' in home.text
        assert "alice-own-OUTPUT-2" in home.text and "BOB-SECRET" not in home.text
        made = await alice.post("/author/activate", {"number": 1,
                                                     "form_token": home.form_token()})
        assert made.status == 303  # the pages' connection writes
        version = await alice.get("/author/version/1")
        assert "alice-own-CHECK-LOG-1" in version.text and "BOB-SECRET" not in version.text
    with PgHosted(pg_url) as store:
        assert [v.state.value for v in store.versions("alice")] == ["active", "valid"]
        assert [v.state.value for v in store.versions("bob")] == ["valid", "active"]


def test_arena_web_authors_needs_a_ladder_of_a_known_game(tmp_path):
    from click.testing import CliRunner

    from arena.cli import main
    from arena.events.storage import SqliteStorage

    db = tmp_path / "odd.db"
    storage = SqliteStorage(db)
    storage.write_event({"game": "no-such-game"}, [("alice", "builtin")])
    storage.close()
    result = CliRunner().invoke(main, ["web", "--db", str(db), "--authors"])
    assert result.exit_code == 2
    assert "--authors: the database names no game this host has ('no-such-game')" in \
        result.output


async def test_a_session_ends_when_its_bot_is_removed_or_registered_anew(tmp_path):
    from arena.events.registry import Registry

    db, tokens = ladder(tmp_path)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        assert "/author/signout" in (await alice.get("/author")).text
        with Registry(db) as registry:
            registry.remove("alice")
            registry.add("alice")  # someone else's now, with another token
        again = await alice.get("/author")
        assert 'action="/author/signin"' in again.text and "/author/signout" not in again.text
        assert (await alice.get("/author/version/1")).status == 403


def test_a_session_lasts_its_hours_from_the_sign_in_and_no_longer():
    from arena.web.author_auth import SESSION_SECONDS, Sessions

    now = [1000.0]
    sessions = Sessions(lambda: now[0])
    session_id, session = sessions.start("alice", "registered:x")
    assert sessions.get(session_id) == session
    assert sessions.get(session_id[:-1] + ("A" if session_id[-1] != "A" else "B")) is None
    now[0] += SESSION_SECONDS - 1
    assert sessions.get(session_id) == session
    now[0] += 1
    assert sessions.get(session_id) is None and len(sessions) == 0


def test_a_window_counts_the_last_minutes_only_and_forgets_stale_keys(monkeypatch):
    from arena.web import author_auth

    now = [0.0]
    window = author_auth.Window(2, 60.0, lambda: now[0])
    window.add("a")
    window.add("a")
    assert window.wait("a") == 60.0 and window.wait("b") == 0.0
    now[0] = 59.0
    assert window.wait("a") == 1.0
    now[0] = 60.0
    assert window.wait("a") == 0.0
    monkeypatch.setattr(author_auth, "WINDOW_KEYS", 3)
    for key in "bcd":
        window.add(key)
    now[0] = 200.0
    window.add("e")  # b, c and d failed long ago: forgotten
    assert set(window._times) == {"e"}


async def test_a_names_next_holder_never_sees_the_output_of_the_old_ones_versions(tmp_path):
    """bob is removed and his name registered anew (someone else's): the new bob's version 1
    shows no output of the old bob's version 1; a renamed bot keeps its versions' output."""
    from arena.events.registry import Registry

    db, tokens = ladder(tmp_path)
    versions(db)
    with Registry(db) as registry:
        registry.remove("bob")
        new_bob = registry.add("bob")
        registry.rename("alice", "alicia")
    with SqliteHosted(db) as store:
        store.submit("bob", "python", b"new", "new-bob-src")
        store.built("bob", 1, b"NEW-FILES", "new-bob-build", "", ("python3", "{dir}/main.py"))
        store.passed("bob", 1, "")
    async with served(db) as base:
        bob = Client(base)
        await bob.sign_in("bob", new_bob)
        seen = [await bob.get("/author"), await bob.get("/author/version/1")]
        assert all(page.status == 200 for page in seen)
        assert "no output yet" in seen[0].text and "no output yet" in seen[1].text
        for page in seen:
            assert "BOB-SECRET" not in page.text, page.text
        alicia = Client(base)
        await alicia.sign_in("alicia", tokens["alice"])
        assert "alice-own-OUTPUT-2" in (await alicia.get("/author")).text
        assert "alice-own-OUTPUT-1" in (await alicia.get("/author/version/1")).text


async def test_a_version_number_too_large_or_not_ascii_is_not_found_not_an_error(tmp_path):
    """Numbers SQLite cannot hold (past 64 bits) and digits that are not ASCII (``²``) are
    "no such version", never an error of the server's."""
    db, tokens = ladder(tmp_path)
    versions(db)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        token = (await alice.get("/author")).form_token()
        assert (await alice.get(f"/author/version/{10**30}")).status == 404
        assert (await alice.get(f"/author/game/{10**30}")).status == 404
        for number in (str(10**30), "²", "１"):
            answer = await alice.post("/author/activate", {"number": number,
                                                           "form_token": token})
            assert answer.status == 400 and "no such version" in answer.text, (number, answer)
