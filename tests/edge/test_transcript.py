"""Transcripts: every line a connection exchanged, in order, with its direction and time."""

from __future__ import annotations

import json
import random

import attrs
import trio

from arena.edge.server import ArenaServer
from tests.helpers import in_memory_clients, make_server


async def test_each_connection_gets_a_transcript_of_every_line_both_ways(nursery, tmp_path):
    base = make_server(tmp_path)
    folder = tmp_path / "transcripts"
    server = ArenaServer(attrs.evolve(base.config, transcript_dir=folder),
                         seating=base.seating)
    await nursery.start(server.serve, False)
    clients = await in_memory_clients(nursery, server, 3)
    await clients[0].send(b"not json\n")  # a bad line is in it too
    rng = random.Random(2)
    async with trio.open_nursery() as players:
        for client in clients:
            players.start_soon(client.play_randomly, rng)
    files = {f.name.split("-", 1)[1]: f for f in folder.iterdir()}  # by the bot's name
    assert sorted(files) == ["bot0.txt", "bot1.txt", "bot2.txt"]
    for number, client in enumerate(clients):
        file = files[f"bot{number}.txt"]
        lines = file.read_text().splitlines()
        assert lines[0].startswith("# arena transcript of connection")
        rows = [line.split(" ", 2) for line in lines[1:] if not line.startswith("#")]
        times = [float(stamp) for stamp, _, _ in rows]
        assert times == sorted(times)
        sent = [json.loads(text) for _, way, text in rows if way == ">"]
        assert sent == client.seen  # exactly what the bot received, in order
        received = [text for _, way, text in rows if way == "<"]
        assert json.loads(received[0])["type"] == "hello"
        answers = [t for t in received if t.startswith("{") and json.loads(t)["type"] == "action"]
        assert len(answers) == sum(1 for m in client.seen if m["type"] == "request")
    assert " < not json\n" in files["bot0.txt"].read_text()


async def test_a_transcript_never_shows_a_token(nursery, tmp_path):
    from arena.edge.transcript import Transcript

    transcript = Transcript(tmp_path, 1, "local")
    transcript.received(b'{"type":"hello","name":"a","token":"s3cr\\"et"}', 100)
    transcript.received(None, 100)
    transcript.close()
    text = (tmp_path / "1.txt").read_text()
    assert "s3cr" not in text and '"token":"***"' in text
    assert "(a line of more than 100 bytes, dropped)" in text


def test_arena_match_writes_a_transcript_per_bot(tmp_path):
    from click.testing import CliRunner

    from arena.cli import main

    folder = tmp_path / "transcripts"
    result = CliRunner().invoke(main, [
        "match", "--game", "chochlik", "--hands", "1", "--bot", "random", "--bot", "random",
        "--bot", "random", "--log-dir", str(tmp_path / "logs"), "--transcripts", str(folder)])
    assert result.exit_code == 0, result.output
    names = sorted(f.name.split("-", 1)[1] for f in folder.iterdir())
    assert names == ["random-1.txt", "random-2.txt", "random-3.txt"]
    for file in folder.iterdir():
        text = file.read_text()
        assert ' > {"type":"game_end"' in text and ' < {"type":"action"' in text
