"""One table's task: every line a bot sends gets a reply, also as the game ends."""

from __future__ import annotations

import json

import trio

from arena.games import get_game
from arena.match import MatchDriver
from arena.seating import SeatedTable
from arena.session import Session
from arena.table import Answer, BadLine, Table
from protocol.connection import ServerConnection
from protocol.errors import ErrorCode, PeerError
from protocol.messages import Action, Welcome


async def test_lines_queued_as_the_game_ends_all_get_a_reply():
    spec = get_game("chochlik")
    session = Session(1, ServerConnection(game="chochlik"))
    session.send(Welcome(protocol=1, server="arena", game="chochlik", players=3, limits={}))
    session.requests.next_id()  # request 1 was sent to this bot earlier
    driver = MatchDriver(spec, spec.parse_options({"players": 3, "hands": 1}), "s",
                         ["a", "b", "c"], game_id="g", table=1, move_timeout=5.0)
    table = Table(SeatedTable(1, (session, None, None), ("a", "b", "c"), (None,) * 3), driver,
                  [session, None, None])
    driver.abort("server_shutdown", 0.0)  # the game ends with these lines still queued
    assert table.put_nowait(BadLine(session, PeerError(ErrorCode.MALFORMED, "not JSON")))
    assert table.put_nowait(Answer(session, Action(id=1, action="imp 5")))
    await table.run()
    replies = []
    while True:
        try:
            replies.append(json.loads(session.out_receive.receive_nowait()))
        except trio.WouldBlock:
            break
    codes = [r.get("code") for r in replies if r["type"] == "error"]
    assert codes == ["malformed", "stale_request"]
    # and a line that comes after the table closed gets one too
    await table.put(BadLine(session, PeerError(ErrorCode.MALFORMED, "late")))
    late = json.loads(session.out_receive.receive_nowait())
    assert late["code"] == "malformed"
