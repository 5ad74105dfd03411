"""``arena worker`` plays hosted versions on any host (issue 33 §2): the event planned in
PostgreSQL records ``NAME@VERSION`` and its build's digest; a worker whose builds folder is
empty (another host) fetches the build from the database by that digest, checks it, and plays
it in its sandbox; a build whose stored bytes were changed is refused in one line, before any
game."""

from __future__ import annotations

import gzip
from pathlib import Path

import psycopg
from click.testing import CliRunner

from arena.cli import main
from arena.events.pg_hosted import PgHosted
from arena.events.pg_storage import PostgresStorage
from arena.launch.hosted_bots import marker
from tests.launch.test_hosted_entrants import add_version, sandbox_works
from tests.launch.test_worker_processes import WORKERS_DONE, start_worker


def planned_with_a_version(url: str, tmp_path: Path) -> str:
    """An event of alice@1 against random planned in ``url``; alice's build's digest."""
    sandbox_works()
    added = CliRunner().invoke(main, ["bots", "add", "alice", "--db", url])
    assert added.exit_code == 0, added.output
    with PgHosted(url) as store:
        version = add_version(store, "alice", tmp_path, 1, url)
    planned = CliRunner().invoke(main, [
        "tournament", "--game", "toy", "-o", "rounds=1", "--sets", "2", "--seed", "w",
        "--db", url, "--plan-only", "--bot", "alice@active", "--bot", "random"])
    assert planned.exit_code == 0, planned.output
    assert PostgresStorage(url).entrants() == [
        ("alice@1", marker(version)), ("random", "{python} -m reference_bots.random")]
    assert version.build_digest is not None
    return version.build_digest


def test_a_worker_on_another_host_fetches_the_build_by_its_digest_and_plays_it(pg_url,
                                                                               tmp_path):
    build = planned_with_a_version(pg_url, tmp_path)
    builds = tmp_path / "other-host-builds"  # nothing there: as on a host that never built it
    worker = start_worker(pg_url, tmp_path / "w", "--builds", str(builds))
    output = worker.communicate(timeout=WORKERS_DONE)[0]
    assert worker.returncode == 0, output
    assert "4 game(s) stored" in output, output
    assert [path.name for path in builds.iterdir()] == [build]
    games = PostgresStorage(pg_url).games()
    assert len(games) == 4 and all(set(game.names) == {"alice@1", "random"} for game in games)
    outputs = list((tmp_path / "w" / "logs" / "bots").glob("*-alice@1-*.txt"))
    assert outputs and all(path.read_text().startswith("uid 65534;") for path in outputs)


def test_a_worker_refuses_a_build_whose_stored_bytes_changed(pg_url, tmp_path):
    build = planned_with_a_version(pg_url, tmp_path)
    with psycopg.connect(pg_url) as db:
        files = gzip.decompress(db.execute("SELECT files FROM hosted_builds WHERE digest = %s",
                                           (build,)).fetchone()[0])
        tampered = gzip.compress(files.replace(b"HonestBot().run()", b"print('mine')"))
        db.execute("UPDATE hosted_builds SET files = %s WHERE digest = %s", (tampered, build))
    worker = start_worker(pg_url, tmp_path / "w", "--builds", str(tmp_path / "builds"))
    output = worker.communicate(timeout=WORKERS_DONE)[0]
    assert worker.returncode == 1
    assert output == (f"Error: alice@1 cannot play: build {build}: its stored files do not "
                      "match its digest\n")
    assert PostgresStorage(pg_url).games() == []
    assert not (tmp_path / "builds").exists() or not any((tmp_path / "builds").iterdir())
