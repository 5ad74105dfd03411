"""Hosted bots' versions stored (issue 33 §1) on both backends: numbered per bot, a build stored
once by its digest, one active version a bot, an older one made active again, retirement, and
the moves a state does not allow refused."""

from __future__ import annotations

import pytest

from arena.events.hosted_store import HostedStore, SqliteHosted
from arena.events.hosted_versions import MOVES, VersionError, VersionState
from arena.events.registry import Registry

S = VersionState


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        path = tmp_path / "bots.db"
        with Registry(path) as registry:
            registry.add("Alice")
            registry.add("bob")
        opened: HostedStore = SqliteHosted(path)
    else:
        from arena.events.pg_hosted import PgHosted
        from arena.events.pg_registry import PgRegistry

        url = request.getfixturevalue("pg_server").new_database()
        with PgRegistry(url) as registry:
            registry.add("Alice")
            registry.add("bob")
        opened = PgHosted(url)
    yield opened
    opened.close()


def submit_and_build(store: HostedStore, name: str, build: bytes, digest: str) -> int:
    number = store.submit(name, "python", b"source" + build, "s-" + digest, now=1.0).number
    store.built(name, number, build, digest, "built ok\n", ("python3", "main.py"))
    return number


def test_versions_are_numbered_built_once_and_one_is_active(store):
    first = submit_and_build(store, "alice", b"B1", "d1")
    assert store.version("ALICE", first).state is S.VALIDATING
    store.passed("alice", first, "all checks passed")
    second = submit_and_build(store, "alice", b"B1", "d1")  # the same build: stored once
    store.passed("alice", second, "ok")
    third = store.submit("alice", "c", b"broken", "s3").number
    store.refuse("alice", third, "gcc: error: expected ';'", build_log="main.c:1: error")
    assert [(v.number, v.state, v.bot) for v in store.versions("alice")] == [
        (1, S.VALID, "Alice"), (2, S.ACTIVE, "Alice"), (3, S.REFUSED, "Alice")]
    assert store.builds() == 1 and store.build("d1") == b"B1"
    assert store.version("alice", 2).run == ("python3", "main.py")
    assert store.logs("alice", 3) == ("main.c:1: error", "")
    assert store.version("alice", 3).summary() == "3  c       refused: gcc: error: expected ';'"
    assert store.source("alice", 1) == b"sourceB1"

    store.activate("alice", 1)  # the author returns to an older version
    assert [v.state for v in store.versions("alice")] == [S.ACTIVE, S.VALID, S.REFUSED]
    with pytest.raises(VersionError, match="version 3 is refused: it cannot be made active"):
        store.activate("alice", 3)
    assert store.versions("bob") == [] and [v.number for v in store.active()] == [1]


def test_retiring_a_version_or_a_bot(store):
    for _ in range(2):
        store.passed("bob", submit_and_build(store, "bob", b"B", "d"), "ok")
    building = store.submit("bob", "python", b"x", "s").number
    assert store.retire("bob", 1) == [1]
    assert store.version("bob", 1).reason == "by the organiser"
    assert store.retire("bob") == [2]  # the bot: each version that could play
    assert [v.state for v in store.versions("bob")] == [S.RETIRED, S.RETIRED, S.BUILDING]
    assert store.active() == []
    store.activate("bob", 1)  # the organiser may bring a retired version back
    assert store.version("bob", 1).state is S.ACTIVE and store.version("bob", 1).reason == ""
    with pytest.raises(VersionError, match="building: it cannot be made retired"):
        store.retire("bob", building)


def test_unknown_bots_and_versions_are_one_clear_error(store):
    with pytest.raises(VersionError, match="'carol' is not registered"):
        store.submit("carol", "python", b"x", "s")
    with pytest.raises(VersionError, match="alice has no version 7"):
        store.activate("alice", 7)


def test_the_moves_table_allows_no_way_back_from_refused():
    assert not {end for start, end in MOVES if start is S.REFUSED}
    assert {start for start, end in MOVES if end is S.ACTIVE} == {S.VALIDATING, S.VALID,
                                                                   S.RETIRED}


def registry_of(store: HostedStore) -> Registry:
    if isinstance(store, SqliteHosted):
        return Registry(store.path)
    from arena.events.pg_registry import PgRegistry

    return PgRegistry(store.url)  # type: ignore[attr-defined]


def test_a_removed_bots_versions_never_reach_the_next_holder_of_its_name(store):
    """Removing a bot retires its versions (kept, for the records of its games) where no
    name reaches them: whoever registers the name next starts at version 1, sees none of the
    old ones, and the ladder plays none of them."""
    first = submit_and_build(store, "alice", b"B1", "d1")
    store.passed("alice", first, "ok")
    building = store.submit("alice", "python", b"old source 2", "s-old2").number
    with registry_of(store) as registry:
        registry.remove("Alice")
        assert store.active() == []
        registry.add("ALICE")
    assert store.versions("alice") == []
    fresh = store.submit("alice", "python", b"new source", "s-new")
    assert (fresh.number, fresh.bot) == (1, "ALICE")
    assert store.source("alice", 1) == b"new source"
    with pytest.raises(VersionError, match="no version 2"):
        store.built("alice", building, b"B2", "d2", "", ("python3", "main.py"))
    assert store.active() == []
    assert store.build("d1") == b"B1"  # the old build stays, for its games' records


def test_a_renamed_bot_takes_its_versions_along(store):
    number = submit_and_build(store, "alice", b"B1", "d1")
    store.passed("alice", number, "ok")
    with registry_of(store) as registry:
        registry.rename("alice", "Carol")
        assert [(v.number, v.state, v.bot) for v in store.versions("carol")] == [
            (1, S.ACTIVE, "Carol")]
        assert [v.bot for v in store.active()] == ["Carol"]
        registry.add("alice")
    assert store.versions("alice") == []
    assert store.submit("alice", "python", b"x", "s-x").number == 1


def test_versions_left_under_an_unregistered_name_are_never_listed_nor_inherited(store):
    """A database where versions stayed under a name nobody holds (left by an arena before
    this rule): the ladder does not list them, and registering the name does not give them."""
    number = submit_and_build(store, "bob", b"B1", "d1")
    store.passed("bob", number, "ok")
    with store._transaction():
        store._run("UPDATE hosted_versions SET bot = 'dave', name = 'dave'")
    assert store.active() == []
    with registry_of(store) as registry:
        registry.add("Dave")
    assert store.versions("dave") == [] and store.active() == []


def test_a_build_finishing_after_its_bot_was_removed_never_moves_the_new_holders_version(
        store):
    """alice's version 1 is being built when the organiser removes alice and someone
    registers the name and submits their own version 1: the old build's end (which names the
    version it started with) is refused, and the new holder's version stays as it was."""
    old = store.submit("alice", "python", b"old source", "s-old")
    with registry_of(store) as registry:
        registry.remove("alice")
        registry.add("alice")
    new = store.submit("alice", "python", b"new source", "s-new")
    assert new.number == old.number == 1
    with pytest.raises(VersionError, match="another submission"):
        store.built("alice", 1, b"OLD BUILD", "d-old", "", ("python3", "main.py"), expected=old)
    with pytest.raises(VersionError, match="another submission"):
        store.refuse("alice", 1, "old build failed", expected=old)
    assert store.version("alice", 1).state is S.BUILDING
    built = store.built("alice", 1, b"NEW", "d-new", "", ("python3", "main.py"), expected=new)
    with pytest.raises(VersionError, match="another submission"):
        store.passed("alice", 1, "ok", expected=old)
    assert store.passed("alice", 1, "ok", expected=built).state is S.ACTIVE


def test_a_build_finishing_after_its_bot_was_renamed_moves_its_version_under_the_new_name(
        store):
    version = store.submit("alice", "python", b"source", "s1")
    with registry_of(store) as registry:
        registry.rename("alice", "Carol")
    built = store.built("alice", 1, b"B", "d1", "", ("python3", "main.py"), expected=version)
    assert (built.bot, built.state) == ("Carol", S.VALIDATING)
    assert store.passed("alice", 1, "ok", expected=built).state is S.ACTIVE
    assert [v.bot for v in store.active()] == ["Carol"]


def test_a_version_refused_after_its_build_keeps_no_build_bytes_but_shared_ones(store):
    """A build refused by its validation would stay in the database for ever (64 MB a build,
    random bytes, a few an hour an author): its bytes go with the refusal, unless another
    version (not refused) has the same build."""
    kept = submit_and_build(store, "alice", b"SHARED", "d-shared")
    store.passed("alice", kept, "ok")
    twin = submit_and_build(store, "alice", b"SHARED", "d-shared")
    lone = submit_and_build(store, "alice", b"RANDOM" * 1000, "d-lone")
    assert store.builds() == 2
    store.refuse("alice", lone, "validation failed: FAIL  handshake", check_log="no hello")
    store.refuse("alice", twin, "validation failed: FAIL  handshake")
    assert store.builds() == 1 and store.build("d-shared") == b"SHARED"
    with pytest.raises(VersionError):
        store.build("d-lone")
    refused = store.version("alice", lone)
    assert refused.state is S.REFUSED and refused.build_digest is None
    assert store.logs("alice", lone) == ("built ok\n", "no hello")
    assert store.version("alice", kept).build_digest == "d-shared"
