"""Games are found through the entry-point group ``arena.games``, arena's own three included;
a broken game package is named in one line and skipped, the others still work."""

from __future__ import annotations

import importlib.metadata
import sys
import types
from importlib.metadata import EntryPoint, entry_points

import attrs
import pytest

import arena.games as registry
from arena.games import BUILT_IN, GAMES, GROUP, discover
from tests.games.toy import SPEC as TOY


@pytest.fixture
def modules(monkeypatch):
    """A fake module ``fakegames`` holding a good spec, a spec of another name and a string."""
    module = types.ModuleType("fakegames")
    module.GOOD = attrs.evolve(TOY, name="good")  # type: ignore[attr-defined]
    module.MISNAMED = attrs.evolve(TOY, name="other")  # type: ignore[attr-defined]
    module.NOT_A_SPEC = "a string"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fakegames", module)
    return module


def point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name, value, GROUP)


def test_arena_declares_its_own_games_as_entry_points():
    declared = {p.name: p.value for p in entry_points(group=GROUP) if p.name in BUILT_IN}
    assert declared == BUILT_IN
    assert all(GAMES[name] is p.load() for name, p in
               ((p.name, p) for p in entry_points(group=GROUP) if p.name in BUILT_IN))


def test_a_good_entry_point_is_a_game(modules):
    assert discover([point("good", "fakegames:GOOD")], pytest.fail) == {"good": modules.GOOD}


@pytest.mark.parametrize("name,value,reason", [
    ("missing", "no_such_module_here:SPEC",
     "does not load (ModuleNotFoundError: No module named 'no_such_module_here')"),
    ("text", "fakegames:NOT_A_SPEC", "its object is a str, not a GameSpec"),
    ("wrong", "fakegames:MISNAMED", "its GameSpec is named 'other', not 'wrong'"),
    ("good", "fakegames:GOOD", "the name 'good' is taken by an unnamed distribution"),
])
def test_a_broken_one_is_named_in_one_line_and_the_others_still_work(modules, name, value,
                                                                     reason):
    lines: list[str] = []
    found = discover([point("good", "fakegames:GOOD"), point(name, value)], lines.append)
    assert found == {"good": modules.GOOD}
    assert lines == [f"arena: game {name!r} of an unnamed distribution ({value}) skipped: "
                     f"{reason}"]


def test_the_registry_is_read_when_first_used_not_when_imported():
    """Importing the games imports no I/O library (importlib.metadata brings socket)."""
    import subprocess

    code = ("import sys, arena.games; before = 'socket' in sys.modules; "
            "names = sorted(arena.games.GAMES); print(before, 'socket' in sys.modules, "
            "len(names) >= 3)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "True", "True"]


def test_a_checkout_never_installed_still_hosts_its_own_games(monkeypatch):
    """No entry points at all (no metadata): the built-in games are imported directly."""
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    assert sorted(registry._installed_games()) == sorted(BUILT_IN)
