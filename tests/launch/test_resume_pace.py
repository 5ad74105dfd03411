"""``arena tournament --resume`` after the event's process was killed mid-game: it plays at the
event's own concurrency (kept in its database, as its --restarts and --lost-games) unless told
otherwise, and says which; the killed games' ``.part`` logs are removed; every planned game is
stored once."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.events.storage import SqliteStorage
from tests.launch.test_tournament import PICKER

STALLS = Path(__file__).resolve().parents[1] / "check_bots" / "stalls_once.py"


def killed_event(tmp_path: Path, concurrency: int) -> Path:
    """An event of 6 games, SIGKILLed while bot c stalls in its second game (the other tables
    play on meanwhile); returns its database."""
    picker = tmp_path / "picker.py"
    picker.write_text(PICKER)
    db = tmp_path / "t.db"
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(60)
        port = listener.getsockname()[1]
        # c stalls at its 40th request of its second game (of 4 hands): past the first
        # batch of the game's log, so the killed game leaves its .part file
        stalls = f"c={sys.executable} {STALLS} 1 {tmp_path / 'stalled'} {port} 40"
        event = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "tournament", "--game", "chochlik", "--bot",
             f"a={sys.executable} {picker} 0", "--bot", f"b={sys.executable} {picker} 1",
             "--bot", stalls, "--sets", "1", "--duplicate", "--hands", "4", "--seed", "p",
             "--concurrency", str(concurrency), "--move-timeout", "60", "--db", str(db),
             "--restarts", "2", "--lost-games", "replay",
             "--log-dir", str(tmp_path / "logs"), "--resamples", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            stalled, _ = listener.accept()  # c stalls mid-game
            with stalled:
                # its game's first batch of log lines is handed to the log's spooler thread,
                # which writes the .part file a moment later (later still under load): the
                # kill waits for it, else the event may die with no .part to remove
                game_id = stalled.makefile("rb").readline().decode().strip()
                assert game_id
                part_spooled(tmp_path / "logs", game_id)
                event.send_signal(signal.SIGKILL)
                event.wait(timeout=20)
        finally:
            if event.poll() is None:
                event.kill()
    return db


def part_spooled(logs: Path, game_id: str, timeout: float = 30.0) -> None:
    """Wait (at most ``timeout`` seconds) until game ``game_id``'s ``.part`` log holds bytes."""
    deadline = time.monotonic() + timeout
    while not any(part.stat().st_size for part in logs.glob(f"*-{game_id}.jsonl*.part")):
        assert time.monotonic() < deadline, f"no .part log of game {game_id} in {timeout} s"
        time.sleep(0.01)


def resume(db: Path, tmp_path: Path, *args: str):
    return CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db), "--log-dir",
                                     str(tmp_path / "logs"), "--resamples", "0", *args])


def test_a_killed_event_resumes_at_its_concurrency_without_its_part_logs(tmp_path):
    db = killed_event(tmp_path, concurrency=3)
    parts = list((tmp_path / "logs").glob("*.part"))
    assert parts  # the stalled game's, at least
    stored = len(SqliteStorage(db).games())
    result = resume(db, tmp_path)
    assert result.exit_code == 0, result.output
    assert "arena: resuming 3 at a time, as the event was played (--concurrency N to change)" \
        in result.output
    assert f"{6 - stored} to play, 3 at a time;" in result.output
    assert ("arena: a bot that dies is restarted (at most 2 times, then the event stops); the "
            "games it was playing are replayed") in result.output  # kept, as the concurrency
    assert f"arena: removed {len(parts)} unfinished game log(s) (.part)" in result.output
    assert not list((tmp_path / "logs").glob("*.part"))
    assert [g.planned for g in SqliteStorage(db).games()] == list(range(6))
    assert len(list((tmp_path / "logs").glob("*.jsonl.gz"))) >= 6
    # told another concurrency, a resume says so (this one has nothing left to play)
    again = resume(db, tmp_path, "--concurrency", "1")
    assert again.exit_code == 0, again.output
    assert "arena: resuming 1 at a time, as given (the event was played 3 at a time)" \
        in again.output
