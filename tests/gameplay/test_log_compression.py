"""Game logs are written gzip-compressed (``.jsonl.gz``) by default, plain (``.jsonl``) with
``--plain-logs``, and every reader reads both (issue 18).  The ``.part`` spooling keeps
working compressed: what a killed server left decompresses up to its last batch, and a batch
the disk refused leaves the log whole."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.gameplay.gamelog import SPOOL_LINES, GameLog, read_header, read_log
from tests.helpers import half_writes

#: Lines a test writes before the disk fails, and again after: one whole batch goes first.
HALF = SPOOL_LINES + SPOOL_LINES // 2

BOTS = ["--bot", "random", "--bot", "random", "--bot", "random"]


def a_log() -> GameLog:
    return GameLog.begin(game="chochlik", game_id="g1", table=1, seed="s", names=["a"],
                         options={}, move_timeout_ms=5000, started_at="")


@pytest.mark.parametrize("plain", [False, True])
def test_match_writes_compressed_logs_unless_asked_and_replay_reads_both(tmp_path, plain):
    logs = tmp_path / "logs"
    result = CliRunner().invoke(main, ["match", "--game", "chochlik", *BOTS, "--games", "2",
                                       "--hands", "1", "--log-dir", str(logs)]
                                + (["--plain-logs"] if plain else []))
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in logs.iterdir() if p.is_file())
    suffix = ".jsonl" if plain else ".jsonl.gz"
    assert len(written) == 2 and all(name.endswith(suffix) for name in written), written
    for name in written:
        path = logs / name
        if plain:
            text = path.read_text(encoding="utf-8")
        else:
            text = gzip.decompress(path.read_bytes()).decode("utf-8")  # what zcat reads
        assert json.loads(text.splitlines()[0])["type"] == "header"
        assert json.loads(text.splitlines()[-1])["type"] == "result"
        replayed = CliRunner().invoke(main, ["replay", str(path)])
        assert replayed.exit_code == 0 and "reproduces" in replayed.output, replayed.output


def test_serve_and_tournament_offer_plain_logs():
    for command in (["serve"], ["tournament"]):
        result = CliRunner().invoke(main, [*command, "--help"])
        assert "--plain-logs" in result.output and ".jsonl.gz" in result.output


def test_a_tournament_writes_compressed_logs_and_plain_ones_when_asked(tmp_path):
    for plain, folder in ((False, "gz"), (True, "plain")):
        result = CliRunner().invoke(main, [
            "tournament", "--game", "chochlik", *BOTS, "--games", "1", "--hands", "1",
            "--db", str(tmp_path / f"{folder}.db"), "--log-dir", str(tmp_path / folder),
            "--resamples", "0"] + (["--plain-logs"] if plain else []))
        assert result.exit_code == 0, result.output
        paths = list((tmp_path / folder).glob("chochlik-*"))
        assert paths and all(p.name.endswith(".jsonl" if plain else ".jsonl.gz") for p in paths)
        assert all(read_log(path)[-1]["type"] == "result" for path in paths)


def test_a_killed_games_compressed_part_reads_up_to_its_last_batch(tmp_path):
    log = a_log()
    log.spool_to(tmp_path)
    notes = 3 * SPOOL_LINES + 8
    for number in range(notes):
        log.note(0, f"note {number}")
    (part,) = tmp_path.glob("*.part")
    assert part.name == "chochlik-g1.jsonl.gz.part"
    text = gzip.decompress(part.read_bytes()).decode()  # what zcat reads
    lines = text.splitlines()
    assert text.endswith("\n") and len(lines) >= 2 * SPOOL_LINES  # whole batches, whole lines
    assert [json.loads(line)["what"] for line in lines[1:]] == [
        f"note {n}" for n in range(len(lines) - 1)]
    assert read_header(part)["game_id"] == "g1"  # what --resume looks at
    assert len(log.records) == notes + 1  # the spooled batches, and what is in flight


def test_a_running_game_holds_no_compressor_between_its_batches(tmp_path):
    """Each game's own gzip compressor (about 73 KiB resident once warm, 256 KiB allocated)
    made memory per connection grow with the running games (issue 30: 102 KiB a connection at
    1,000 bots); a batch now has a compressor for itself only.  zlib allocates through
    Python's raw allocator, which tracemalloc sees."""
    games = 40
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        logs = [GameLog.begin(game="chochlik", game_id=f"g{i}", table=i, seed="s",
                              names=["a"], options={}, move_timeout_ms=5000, started_at="")
                for i in range(games)]
        for log in logs:
            log.spool_to(tmp_path)
            for number in range(SPOOL_LINES + 1):  # one batch spooled, a line in flight
                log.note(0, f"note {number}")
        held = (tracemalloc.get_traced_memory()[0] - before) / games
    finally:
        tracemalloc.stop()
    assert len(list(tmp_path.glob("*.part"))) == games
    assert held < 16 * 1024, f"{held / 1024:.0f} KiB held per running game"
    for log in logs:
        assert len(log.records) == SPOOL_LINES + 2


def test_a_compressed_batch_the_disk_refused_leaves_the_log_whole(tmp_path, monkeypatch):
    log = a_log()
    log.spool_to(tmp_path)
    for number in range(HALF):
        log.note(0, f"note {number}")
    half_writes(monkeypatch)
    for number in range(HALF, 2 * HALF):
        log.note(0, f"note {number}")  # spooling fails: the batches stay in memory
    monkeypatch.undo()
    path = log.write(tmp_path)
    assert path.name == "chochlik-g1.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        notes = [json.loads(line) for line in handle][1:]
    assert [n["what"] for n in notes] == [f"note {number}" for number in range(2 * HALF)]


def test_replay_of_a_cut_compressed_log_says_so_in_one_line(tmp_path: Path):
    log = a_log()
    for number in range(50):
        log.note(0, f"note {number}")
    path = log.write(tmp_path)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[:-20])
    result = CliRunner().invoke(main, ["replay", str(cut)])
    assert result.exit_code == 1 and "does NOT reproduce" in result.output
    assert "not a whole compressed log" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_log_size_benchmark_runs_and_prints_every_writer():
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "log_size.py"
    done = subprocess.run([sys.executable, str(script), "--games", "1", "--game", "vollewolle"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    sizes = {}
    for line in done.stdout.splitlines()[1:]:
        writer, _, low, *_ = line.split()
        sizes[writer] = int(low.replace(",", ""))
    assert set(sizes) == {"plain", "gzip-1", "gzip-6"}
    assert sizes["gzip-6"] < sizes["gzip-1"] < sizes["plain"]


def test_serve_passes_plain_logs_on_to_its_server(monkeypatch, tmp_path):
    import arena.edge.server

    class Captured(Exception):
        pass

    def fake_server(config, **kwargs):
        raise Captured(config)

    monkeypatch.setattr(arena.edge.server, "ArenaServer", fake_server)
    for extra, compressed in (([], True), (["--plain-logs"], False)):
        result = CliRunner().invoke(main, ["serve", "--game", "chochlik", "--port", "0",
                                           "--log-dir", str(tmp_path), *extra])
        assert isinstance(result.exception, Captured), result.output
        assert result.exception.args[0].compress_logs is compressed


async def test_a_server_writes_the_log_format_its_config_says(tmp_path):
    import random

    import attrs
    import trio

    from tests.helpers import in_memory_clients, make_server

    for compress in (True, False):
        server = make_server(tmp_path / str(compress))
        server.config = attrs.evolve(server.config, compress_logs=compress)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve, False)
            clients = await in_memory_clients(nursery, server, 3)
            async with trio.open_nursery() as players:
                for i, client in enumerate(clients):
                    players.start_soon(client.play_randomly, random.Random(i))
            await server.shutdown()
        (record, *_) = server.records
        assert record.log_path.name.endswith(".jsonl.gz" if compress else ".jsonl")
        data = record.log_path.read_bytes()
        assert data.startswith(b"\x1f\x8b") is compress
        assert read_log(record.log_path)[-1]["type"] == "result"
