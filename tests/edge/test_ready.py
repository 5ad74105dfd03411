"""The readers' shared wait (``arena.edge.ready``) over real sockets: what a TCP bot's answers,
bad lines and hang-ups get is what they got when each reader waited for its own socket (the
adversarial battery's checks, as over in-memory streams, which do not use it); a line the
shared task cannot handle goes back to its reader in order; a failure while a socket is served
costs that connection only; and without epoll every reader reads its own socket."""

from __future__ import annotations

import logging
import os
import types
from typing import Any

import pytest
import trio

from arena.edge.transcript import Transcript
from protocol.limits import MAX_LINE_BYTES
from tests import adversarial
from tests.adversarial import Adversary
from tests.helpers import connect_tcp, make_server
from tests.test_adversarial_bots import log_records, play_table, seated_over_tcp


@pytest.fixture(autouse=True)
def no_server_errors(caplog):
    """Fails the test if the server logged an error (an exception it caught)."""
    yield
    assert not [r for r in caplog.get_records("call")
                if r.name.startswith("arena") and r.levelno >= logging.ERROR]


async def test_garbage_in_one_write_gets_each_code_in_order_over_tcp(nursery, tmp_path):
    server, adversary, honest = await seated_over_tcp(nursery, tmp_path)
    assert server.loops.ready.running
    outcome = await play_table(server, adversary, honest, adversarial.send_garbage,
                               time_limit=60.0)
    assert outcome.result == [code for _, code in adversarial.GARBAGE]
    assert not adversary.closed and adversary.end == outcome.honest_ends[0]
    assert outcome.record.errors[outcome.adversary_seat] == len(adversarial.GARBAGE)
    assert {c["reason"] for c in adversary.cancels} == {"too_many_tries"}


async def test_huge_lines_are_dropped_and_the_tcp_connection_goes_on(nursery, tmp_path):
    server, adversary, honest = await seated_over_tcp(nursery, tmp_path)

    async def huge_lines(adversary: Adversary) -> list[dict[str, Any]]:
        return await adversarial.send_huge_lines(adversary, MAX_LINE_BYTES)

    outcome = await play_table(server, adversary, honest, huge_lines, time_limit=60.0)
    first, second = adversary.requests[0]["id"], adversary.requests[1]["id"]
    assert [(e["code"], e["id"], e["tries_left"]) for e in outcome.result] == [
        ("line_too_long", first, 2), ("line_too_long", first, 1),
        ("unknown_message", second, 2)]
    assert not adversary.cancels and not adversary.closed


async def test_an_answer_then_other_lines_in_one_write_are_answered_in_order(nursery,
                                                                             tmp_path):
    """The answer is played where the socket is read; the lines after it in the same write go
    back to the connection's reader, which answers them after it, in order."""
    server, adversary, honest = await seated_over_tcp(nursery, tmp_path)

    async def answer_and_more(adversary: Adversary) -> list[dict[str, Any]]:
        request = await adversary.until("request")
        answer = adversarial._line({"type": "action", "id": request["id"],
                                    "action": request["legal"][0]})
        before = len(adversary.errors)
        await adversary.client.send(answer + b'{"type":"dance"}\n' + answer)
        replies = await adversary.errors_up_to(before + 2)
        await adversary.play_out()
        return replies[before:]

    outcome = await play_table(server, adversary, honest, answer_and_more, time_limit=60.0)
    dance, again = outcome.result
    assert dance["code"] == "unknown_message"
    assert again["code"] == "stale_request"
    records = log_records(outcome.record)
    played = [r for r in records if r["type"] == "action" and r["seat"] == outcome.adversary_seat]
    assert played[0]["by"] == "bot"  # the answer counted, once


async def test_a_hang_up_over_tcp_is_played_by_the_default_policy(nursery, tmp_path):
    server, adversary, honest = await seated_over_tcp(nursery, tmp_path, reconnect_grace=0.0)
    outcome = await play_table(server, adversary, honest, adversarial.disconnect_mid_game,
                               time_limit=60.0)
    records = log_records(outcome.record)
    seat = outcome.adversary_seat
    assert {"type": "note", "seat": seat, "what": "disconnected"} in records


async def test_a_failure_while_a_socket_is_served_costs_that_connection_only(
        nursery, tmp_path, monkeypatch):
    """A transcript that cannot be written (a full disk) while the shared task reads the
    adversary's line ends the adversary's connection, as it did in its own reader; the table
    plays on and the server serves the next connection."""
    real = Transcript.received

    def full_disk_for_the_adversary(self: Transcript, line: Any, limit: int) -> None:
        if line is not None and b'"action"' in line and "adversary" in self.path.name:
            raise OSError(28, "No space left on device")
        real(self, line, limit)

    monkeypatch.setattr(Transcript, "received", full_disk_for_the_adversary)
    server, adversary, honest = await seated_over_tcp(
        nursery, tmp_path, transcript_dir=tmp_path / "transcripts", reconnect_grace=0.0)

    async def answer_once(adversary: Adversary) -> list[dict[str, Any]]:
        await adversary.answer(await adversary.until("request"))
        while await adversary.next() is not None:  # until the server closes the connection
            pass
        return adversary.errors

    outcome = await play_table(server, adversary, honest, answer_once, time_limit=60.0)
    assert adversary.closed and outcome.result == []  # closed, without an error line
    records = log_records(outcome.record)
    assert {"type": "note", "seat": outcome.adversary_seat, "what": "disconnected"} in records
    newcomer = await connect_tcp(server.port)
    assert (await newcomer.receive() or {}).get("type") == "welcome"


async def test_a_bad_line_read_before_a_request_was_sent_costs_no_try_of_it(nursery, tmp_path):
    """SPEC §3: a bad line costs a try only of a request sent before the line was read.  Bot a's
    bad line and bot c's answer arrive together, a's first; c's answer makes a act (c plays
    the second card of a trick that b led), so a's next request goes out while a's line waits
    for its reader: that line must still be judged as read, before the request."""
    server = make_server(tmp_path)
    port = await nursery.start(server.serve)
    clients = {name: await connect_tcp(port) for name in "abc"}
    for name, client in clients.items():
        await client.hello(name)
    seats = {name: (await client.until("game_start"))["seat"] for name, client in clients.items()}
    inbox: dict[str, list[dict[str, Any]]] = {name: [] for name in clients}
    arrived = trio.Event()

    async def read(name: str) -> None:
        nonlocal arrived
        while (message := await clients[name].receive()) is not None:
            inbox[name].append(message)
            arrived.set()

    async with trio.open_nursery() as readers:
        for name in clients:
            readers.start_soon(read, name)
        answered: set[tuple[str, int]] = set()
        verdicts: list[tuple[bool, dict[str, Any]]] = []  # (a's request came first, the error)
        while not all(any(m["type"] == "game_end" for m in inbox[n]) for n in clients):
            open_requests = [(name, m) for name in clients for m in inbox[name]
                             if m["type"] == "request" and (name, m["id"]) not in answered]
            if not open_requests:
                await arrived.wait()
                arrived = trio.Event()
                continue
            name, request = open_requests[0]
            answered.add((name, request["id"]))
            answer = adversarial._line({"type": "action", "id": request["id"],
                                        "action": request["legal"][0]})
            seen = request["observation"]
            if (name == "c" and seen["phase"] == "play" and len(seen["trick"]) == 1
                    and seen["trick"][0][0] == seats["b"]):
                # both lines are on their sockets before the server reads either
                before = len(inbox["a"])
                os.write(clients["a"].stream.socket.fileno(), b'{"type":"dance"}\n')
                os.write(clients["c"].stream.socket.fileno(), answer)
                while not any(m["type"] == "error" for m in inbox["a"][before:]):
                    await arrived.wait()
                    arrived = trio.Event()
                kinds = [m["type"] for m in inbox["a"][before:]]
                error = inbox["a"][before + kinds.index("error")]
                verdicts.append(("request" in kinds[:kinds.index("error")], error))
            else:
                await clients[name].send(answer)
        readers.cancel_scope.cancel()
    assert any(request_first for request_first, _ in verdicts), verdicts  # the case arose
    for _, error in verdicts:
        assert error["code"] == "unknown_message"
        assert "tries_left" not in error and "id" not in error, error  # only reported


async def test_without_epoll_the_readers_read_their_own_sockets(nursery, tmp_path, monkeypatch):
    """Where the system has no epoll (trio uses kqueue there), the shared task does not run and
    every reader reads its socket as before: the game is played all the same."""
    import arena.edge.ready as ready_module

    monkeypatch.setattr(ready_module, "select", types.SimpleNamespace())  # no epoll in it
    server, adversary, honest = await seated_over_tcp(nursery, tmp_path)

    async def play_out(adversary: Adversary) -> dict[str, Any]:
        return await adversary.play_out()

    outcome = await play_table(server, adversary, honest, play_out, time_limit=60.0)
    assert not server.loops.ready.running
    assert outcome.result == outcome.honest_ends[0]
