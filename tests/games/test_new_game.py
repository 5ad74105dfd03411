"""A game from elsewhere, without installing it: its folder (here tests/games/toy/, a game
defined inside the test suite) registered by ``ARENA_EXTRA_GAMES``, its SPEC section (here a
text fixture, toy/spec.md) and its tests (an installed game package registers through its
entry point instead: tests/kit/test_game_authors.py).  The toy game passes every shared
battery (conformance, hidden information, the SPEC section's checks, the drawing, the schema,
check-bot with the random bot) and plays through ``arena match``, without a line changed
outside its own files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

import tests.games.test_conformance as conformance
import tests.games.test_render as render
import tests.protocol.test_schema as schema
import tests.test_hidden_information as hidden
import tests.test_spec as spec_checks
from arena.games import GAMES, register
from tests.games.toy import SPEC

ROOT = Path(__file__).resolve().parents[2]
SPEC_TEXT = (Path(__file__).parent / "toy" / "spec.md").read_text()
#: How a process of its own (``arena match``, ``arena check-bot``) finds the toy game.
ENV = {**os.environ, "ARENA_EXTRA_GAMES": "tests.games.toy:SPEC",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    """The toy game is in the registry for the test (and out of it after)."""
    monkeypatch.setitem(GAMES, SPEC.name, SPEC)
    yield
    assert GAMES[SPEC.name] is SPEC


def battery(module, argnames: str) -> list:
    """The module's tests parametrized over every game (by ``argnames``)."""
    return [test for name, test in sorted(vars(module).items()) if name.startswith("test_")
            and any(mark.name == "parametrize" and mark.args[0] == argnames
                    for mark in getattr(test, "pytestmark", ()))]


@pytest.mark.parametrize("test", battery(conformance, "name,players"),
                         ids=lambda test: test.__name__)
@pytest.mark.parametrize("players", range(SPEC.min_players, SPEC.max_players + 1))
def test_the_conformance_battery(test, players):
    test(SPEC.name, players)


def test_the_options_battery():
    (test,) = battery(conformance, "name")
    test(SPEC.name)


def test_the_hidden_information_battery(monkeypatch):
    settings(max_examples=60, deadline=None)(hidden.WORLDS(hidden.the_property))(SPEC.name)
    hidden.test_the_property_would_catch_a_leak(SPEC.name, monkeypatch)


@pytest.mark.parametrize("check", spec_checks.SECTION_CHECKS, ids=lambda c: c.__name__)
def test_the_spec_section_battery(check):
    check(SPEC.name, SPEC_TEXT)


@pytest.mark.parametrize("test", battery(render, "game"), ids=lambda test: test.__name__)
def test_the_drawing_battery(test):
    test(SPEC.name)  # the toy has no drawing: the fallback shows every field


@pytest.mark.parametrize("test", battery(schema, "name"), ids=lambda test: test.__name__)
def test_the_schema_battery(test):
    test(SPEC.name)


def run_arena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], env=ENV, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_the_random_bot_passes_check_bot_on_it():
    done = run_arena("check-bot", "--game", SPEC.name, "--games", "2", "--", "random")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check-bot: no check failed" in done.stdout
    assert "toy has no reaction windows" in done.stdout


def test_it_plays_through_arena_match(tmp_path):
    done = run_arena("match", "--game", SPEC.name, "--games", "2", "--seed", "toy",
                     "--log-dir", str(tmp_path), *["--bot", "random"] * 3)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(list(tmp_path.glob("toy-*.jsonl.gz"))) == 2
    assert done.stdout.count("(3 rounds") == 2  # the toy's default: three rounds a game


def test_registering_adds_it_by_name(monkeypatch):
    monkeypatch.delitem(GAMES, SPEC.name)
    assert register(SPEC) is SPEC and GAMES[SPEC.name] is SPEC
