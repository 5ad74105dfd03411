"""``arena ratings`` prints what it printed before the games were read as columns (issue 30 §2):
a seeded event is stored, and every format's output is compared with the text the code of
commit 648eb94 (a record per game, resampled fits started from the full fit) printed for the
same database, kept in ``golden/``: the tables exactly; in csv and json, which print every
digit, the floats to within 1e-9 (the intervals' ends move by about 1e-12 Elo: the resampled
fits now start from a predicted point and reach the same maximum) and the rest exactly.

To write the golden files again from another checkout (only when the output is meant to
change): ``PYTHONPATH=CHECKOUT python tests/events/test_ratings_output.py DIR``."""

from __future__ import annotations

import csv
import io
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

GOLDEN = Path(__file__).parent / "golden"

#: The invocations compared, by the golden file that holds each one's output.
OUTPUTS = {
    "table.txt": [],
    "los_head_to_head.txt": ["--los", "--head-to-head"],
    "anchored.txt": ["--anchor", "b3", "--resamples", "50"],
    "table.csv": ["--format", "csv"],
    "table.json": ["--format", "json"],
}


def seeded_event(path: Path) -> None:
    """Nine bots in duplicate sets of 3 to 5 players (every rotation, ranks from a strength
    plus noise, ties), some defaults and scores below zero, an aborted game, a bot seated
    twice at some tables, and two bots that only ever met each other (a second group)."""
    from arena.events.storage import SqliteStorage
    from arena.gameplay.records import GameRecord, PlannedTable

    rng = random.Random("issue 30 §2")
    strength = [rng.gauss(0, 1) for _ in range(9)]
    storage = SqliteStorage(path)
    storage.write_event({"seed": "golden"}, [(f"b{i}", "random") for i in range(11)])
    planned = 0
    for set_index in range(40):
        if set_index % 10 == 9:
            players = [9, 10]
        else:
            players = rng.sample(range(9), rng.randint(3, 5))
            if set_index % 7 == 3:
                players[-1] = players[0]  # the same bot in two seats
        for rotation in range(len(players)):
            seated = tuple(players[rotation:] + players[:rotation])
            strengths = strength + [0.0, 0.3]
            scores = tuple(round(2 * (strengths[e] + rng.gauss(0, 1))) for e in seated)
            ranks = tuple(1 + sum(other > mine for other in scores) for mine in scores)
            defaults = tuple(rng.choice((0, 0, 0, 1, 2)) for _ in seated)
            aborted = "internal_error" if planned == 17 else None
            storage.add_game(GameRecord(
                number=planned, game_id=f"g{planned}", entrants=seated, names=(),
                seed=f"s{set_index}", scores=scores, ranks=ranks, winners=(), aborted=aborted,
                defaults=defaults, errors=(0,) * len(seated), rounds=1, log_path=None,
                seconds=0.1, tag=PlannedTable(planned, set_index, rotation, seated,
                                              f"s{set_index}")))
            planned += 1
    storage.close()


def ratings_output(db: Path, arguments: list[str]) -> str:
    from arena.cli import main

    result = CliRunner().invoke(main, ["ratings", "--db", str(db), *arguments])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def event_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("golden") / "event.db"
    seeded_event(db)
    return db


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_the_output_is_the_one_printed_before(event_db, name):
    printed, golden = ratings_output(event_db, OUTPUTS[name]), (GOLDEN / name).read_text()
    if name.endswith(".txt"):
        assert printed == golden
    else:
        assert within(parsed(name, printed), parsed(name, golden))


def parsed(name: str, text: str) -> Any:
    if name.endswith(".json"):
        return json.loads(text)
    return [{key: maybe_number(value) for key, value in row.items()}
            for row in csv.DictReader(io.StringIO(text))]


def maybe_number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def within(printed: Any, golden: Any) -> bool:
    """Equal, but floats to within 1e-9."""
    if isinstance(golden, dict):
        return printed.keys() == golden.keys() and all(
            within(printed[key], golden[key]) for key in golden)
    if isinstance(golden, list):
        return len(printed) == len(golden) and all(map(within, printed, golden))
    if isinstance(golden, float) and isinstance(printed, float):
        return abs(printed - golden) <= 1e-9
    return type(printed) is type(golden) and printed == golden


def test_within_tells_a_difference():
    assert within([{"a": 1.0, "b": "x"}], [{"a": 1.0 + 1e-12, "b": "x"}])
    assert not within([{"a": 1.0, "b": "x"}], [{"a": 1.0 + 1e-6, "b": "x"}])
    assert not within([{"a": 1, "b": "x"}], [{"a": 1, "b": "y"}])
    assert not within([{"a": 1}], [{"a": 1}, {"a": 2}])


def test_the_golden_event_has_what_it_should():
    """The event exercises what the columns must get right (the comparison above could
    otherwise pass on an event without them)."""
    tables = (GOLDEN / "table.txt").read_text()
    assert "group 2 of 2" in tables and "caveat" in tables and "%" in tables
    versus = (GOLDEN / "los_head_to_head.txt").read_text()
    assert "likelihood of superiority" in versus and "head to head" in versus


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        seeded_event(Path(folder) / "event.db")
        for file_name, options in OUTPUTS.items():
            (out / file_name).write_text(ratings_output(Path(folder) / "event.db", options))
