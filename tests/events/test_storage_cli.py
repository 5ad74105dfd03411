"""``--db postgresql://...`` where ``--db FILE`` works: an event played into PostgreSQL by
``arena tournament`` rates and exports as the same event played into SQLite; a database that
cannot be reached, or holds no event, is one line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.launch.test_tournament import pickers

EVENT = ["--game", "chochlik", "--sets", "1", "--duplicate", "--seed", "cli", "--concurrency", "2"]


def test_an_event_in_postgresql_rates_and_exports_as_the_same_event_in_sqlite(
        tmp_path, pg_url, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bots = [f"--bot={bot.name}={bot.command}" for bot in pickers(tmp_path)[:3]]
    outputs = {}
    for db in (pg_url, str(tmp_path / "ev.db")):
        played = CliRunner().invoke(main, ["tournament", *EVENT, *bots, "--db", db])
        assert played.exit_code == 0, played.output
        assert f"6 of 6 games stored in {db}" in played.output
        rated = CliRunner().invoke(main, ["ratings", "--db", db, "--format", "json",
                                          "--resamples", "0"])
        exported = CliRunner().invoke(main, ["export", "--db", db, "--format", "jsonl"])
        assert rated.exit_code == exported.exit_code == 0
        games = [json.loads(line) for line in exported.output.splitlines()[1:]]
        outputs[db] = (json.loads(rated.output),
                       [(g["planned"], g["entrants"], g["scores"]) for g in games])
    in_postgres, in_sqlite = outputs.values()
    assert len(in_postgres[1]) == 6 and in_postgres == in_sqlite


def test_a_database_without_an_event_or_out_of_reach_is_one_line(pg_url, pg_server):
    for command in (["ratings"], ["export"]):
        empty = CliRunner().invoke(main, [*command, "--db", pg_url])
        assert empty.exit_code != 0 and "holds no event" in empty.output
        assert "Traceback" not in empty.output
    unreachable = pg_server.url("nosuchdb")
    refused = CliRunner().invoke(main, ["ratings", "--db", unreachable])
    assert refused.exit_code != 0 and "cannot reach" in refused.output
    assert len(refused.output.strip().splitlines()[-1]) < 300
    status = CliRunner().invoke(main, ["tournament", "--db", "x.db", "--status"])
    assert status.exit_code == 2 and "need --db postgresql://" in status.output


def test_a_worker_waits_for_a_database_it_cannot_reach_yet_saying_so_once():
    from arena.events.pg_open import Unreachable, open_existing_waiting

    said: list[str] = []
    pauses: list[float] = []
    url = "postgresql://arena@/none?host=/nonexistent-arena-socket-folder&port=1"
    with pytest.raises(Unreachable, match="cannot reach"):
        open_existing_waiting(url, 0.0, said.append, pause=pauses.append)
    assert said == [] and pauses == []  # no patience: the first failure is the answer
    clock = iter(range(100))
    with pytest.raises(Unreachable):
        open_existing_waiting(url, 3.0, said.append, pause=pauses.append,
                              clock=lambda: float(next(clock)))
    assert len(said) == 1 and "waiting up to 3 s" in said[0] and pauses == [1.0, 1.0]


def test_a_worker_given_a_wrong_role_or_database_is_told_at_once_not_after_its_wait(pg_url):
    """Issue 30: a wrong role waited the whole patience (60 s) and ended with "server closed
    the connection unexpectedly"; a refusal no wait mends is now the answer at once, naming
    the server and the reason."""
    from arena.events.pg_open import Unreachable, open_existing_waiting

    said: list[str] = []
    pauses: list[float] = []
    wrong_role = pg_url.replace("postgresql://arena@", "postgresql://nosuchrole@")
    wrong_database = pg_url.rsplit("?", 1)[0] + "_nosuch?" + pg_url.rsplit("?", 1)[1]
    for url, reason in ((wrong_role, 'role "nosuchrole" does not exist'),
                        (wrong_database, "does not exist")):
        with pytest.raises(Unreachable, match="cannot reach") as refused:
            open_existing_waiting(url, 60.0, said.append, pause=pauses.append)
        assert refused.value.permanent and reason in str(refused.value), str(refused.value)
    assert said == [] and pauses == []  # no wait at all


def test_an_unknown_host_is_a_lasting_refusal_and_a_refused_connection_is_not():
    import psycopg

    from arena.events.pg_open import lasting

    assert lasting(psycopg.OperationalError(
        'could not translate host name "db.example" to address: Name or service not known'))
    assert not lasting(psycopg.OperationalError(
        'connection to server at "127.0.0.1", port 5433 failed: Connection refused'))
