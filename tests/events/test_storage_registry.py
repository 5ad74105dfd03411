"""Registered bots on both backends (SQLite and a real PostgreSQL): the same names, tokens and
errors, every change moving the version a server's view reads the rows again by; ``arena bots
--db URL`` works as with a file."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.pg_registry import PgRegistry
from arena.events.registry import Registry, RegistryError, RegistryView


@pytest.fixture(params=["sqlite", "postgresql"])
def opened(request, tmp_path):
    """``opened()``: the test's registry (SQLite file or PostgreSQL database), again."""
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    made = []

    def again(shared: bool = False):
        registry = (PgRegistry(url, shared=shared) if url else
                    Registry(tmp_path / "bots.db", shared=shared))
        made.append(registry)
        return registry

    yield again
    for registry in made:
        registry.close()


def test_bots_are_added_checked_renamed_and_removed_alike(opened):
    registry = opened()
    start = registry.version()
    token = registry.add("Alpha")
    registry.add("beta", "b" * 16)
    assert registry.names() == ["Alpha", "beta"] and registry.version() == start + 2
    assert registry.verify("alpha", token) and registry.verify("beta", "b" * 16)
    assert registry.verify("beta", token) is False and registry.verify("gamma", token) is None
    with pytest.raises(RegistryError, match="registered already"):
        registry.add("ALPHA")
    with pytest.raises(RegistryError, match="at least 16"):
        registry.add("short", "x")
    registry.rename("Alpha", "Gamma")
    with pytest.raises(RegistryError, match="not registered"):
        registry.remove("alpha")
    registry.remove("beta")
    assert opened().names() == ["Gamma"] and opened().verify("gamma", token)
    assert registry.version() == start + 4  # the failed changes moved nothing


def test_a_servers_view_sees_a_bot_registered_after_it_was_opened(opened):
    view = RegistryView(None, opened(shared=True))  # type: ignore[arg-type]
    assert view.check("late", "t" * 16) == (None, False)
    opened().add("late", "t" * 16)
    assert view.check("late", "t" * 16) == ("late", True)
    assert view.check("late", "u" * 16) == ("late", False)


def test_arena_bots_takes_a_postgresql_url(pg_url):
    added = CliRunner().invoke(main, ["bots", "add", "remote-1", "--db", pg_url])
    assert added.exit_code == 0, added.output
    name, token = added.output.split()
    listed = CliRunner().invoke(main, ["bots", "list", "--db", pg_url])
    assert listed.output.split() == ["remote-1"]
    assert PgRegistry(pg_url).verify(name, token)
