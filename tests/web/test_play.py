"""The play page's parts without a browser: what a browser may send, which tables may be had,
the drawings added to a seat's lines, the organiser's settings and options.  The whole page is
played in Chromium in tests/web/test_play_browser.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
import trio.testing
from click.testing import CliRunner

from arena.cli import main
from arena.games import GAMES
from arena.web.play import PlayTables, checked, from_browser, same_origin, send_all
from arena.web.play_table import PlaySettings, default_bots, play_game, settings_for
from arena.web.play_view import SeatView
from protocol.limits import MAX_LINE_BYTES


@pytest.mark.parametrize(("sent", "line"), [
    ('{"type":"action","id":3,"action":"play 4"}', {"type": "action", "id": 3,
                                                     "action": "play 4"}),
    ('{"type":"hello","name":"x","token":"another seat\'s","role":"spectator","protocol":1}',
     {"type": "hello", "name": "x", "protocol": 1}),
    ('{"type":"bye","extra":1}', {"type": "bye"}),
])
def test_a_browser_sends_only_what_a_seat_may_and_never_a_token_or_a_role(sent, line):
    encoded = checked(sent)
    assert encoded is not None and encoded.endswith(b"\n") and encoded.count(b"\n") == 1
    assert json.loads(encoded) == line


@pytest.mark.parametrize("sent", [
    '{"type":"watch","table":1}', "[1]", "not json", None, b"{}",
    json.dumps({"type": "action", "id": 1, "action": "x" * MAX_LINE_BYTES}),
])
def test_anything_else_from_a_browser_ends_its_table(sent):
    assert checked(sent) is None


def settings(tmp_path: Path, max_tables: int = 1) -> PlaySettings:
    return PlaySettings((play_game("toy", {"players": 3}, ["random"]),), tmp_path,
                        max_tables=max_tables)


def test_a_table_needs_a_game_offered_one_bot_a_seat_and_bots_offered(tmp_path):
    tables = PlayTables(settings(tmp_path))
    assert tables.refusal("toy", ["random", "random"]) is None
    assert "no game" in (tables.refusal("chess", ["random", "random"]) or "")
    assert "needs 2 opponent" in (tables.refusal("toy", ["random"]) or "")
    assert "not offered" in (tables.refusal("toy", ["random", "evil"]) or "")


def test_no_more_tables_than_the_organiser_allows_run_at_once(tmp_path):
    tables = PlayTables(settings(tmp_path, max_tables=1))
    with tables.seated() as first:
        assert first and tables.running == 1
        with tables.seated() as second:
            assert not second and tables.running == 1
    assert tables.running == 0


def test_the_settings_reach_the_pages_process_unchanged(tmp_path):
    made = settings_for([(name, {}) for name in sorted(GAMES)], tmp_path, short=True,
                        max_tables=3)
    assert PlaySettings.from_json(json.loads(json.dumps(made.to_json()))) == made
    for game in made.games:
        assert game.bots == default_bots(GAMES[game.name])
        assert game.parsed() == GAMES[game.name].parse_options(
            {**GAMES[game.name].short_game})


def test_each_game_is_offered_the_named_bots_that_play_it(tmp_path):
    spec = GAMES["toy"]
    made = settings_for([("toy", {})], tmp_path, bots=["random"])
    assert made.games[0].bots == ("random",)
    with pytest.raises(ValueError, match="no game offered"):
        settings_for([("toy", {})], tmp_path, bots=["random", "nobody-heuristic"])
    assert not spec.bots or settings_for([("toy", {})], tmp_path,
                                         bots=list(spec.bots)).games[0].bots == spec.bots


def test_a_seats_lines_are_drawn_for_a_person_and_keep_their_protocol_fields():
    spec = GAMES["toy"]
    view = SeatView("toy")
    options = spec.parse_options({"players": 2})
    start = view.annotate({"type": "game_start", "seat": 0, "names": ["visitor", "bot"],
                           "info": dict(spec.info(options))})
    assert "board" in start and "legend" in start
    state = spec.new_state(options, "seed")
    seat = state.to_act()[0]
    request = {"type": "request", "id": 1, "legal": list(state.legal_actions(seat)),
               "time_left_ms": 5000, "observation": attrs.asdict(state.observe(seat))}
    drawn = view.annotate(dict(request))
    assert {k: drawn[k] for k in request} == request
    assert len(drawn["labels"]) == len(request["legal"]) and drawn["drawn"].strip()
    [own] = drawn["own"]  # the toy's hidden card, drawn as a card
    assert own["title"] == "your card"
    assert [card["id"] for card in own["cards"]] == [request["observation"]["card"]]
    end = view.annotate({"type": "game_end", "scores": [1, 0], "ranks": [1, 2],
                         "winners": [0]})
    assert end["table"] == [["visitor", 1, 1, "won"], ["bot", 0, 2, ""]]


def test_play_is_opened_with_the_pages_only(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["serve", "--game", "toy", "--play"])
    assert result.exit_code == 2 and "--play needs --web" in result.output
    result = runner.invoke(main, ["serve", "--game", "toy", "--web", "0", "--play",
                                  "--play-bots", "random,nobody"])
    assert result.exit_code == 2 and "nobody" in result.output
    result = runner.invoke(main, ["serve", "--game", "toy", "--play-short"])
    assert result.exit_code == 2 and "need --play" in result.output


class Browser:
    """A browser's end of the socket, scripted: its messages, then silence."""

    def __init__(self, *messages: dict[str, Any], origin: str | None = None) -> None:
        self.messages = list(messages)
        self.headers = {"host": "arena.example:8080",
                        **({"origin": origin} if origin is not None else {})}

    async def receive(self) -> dict[str, Any]:
        if self.messages:
            return self.messages.pop(0)
        await trio.sleep_forever()
        raise AssertionError


async def relayed(browser: Browser, idle: float = 300.0) -> tuple[str, bytes]:
    ours, theirs = trio.testing.memory_stream_pair()
    why = await from_browser(browser, ours, idle)  # type: ignore[arg-type]
    await ours.aclose()
    received = b""
    while data := await theirs.receive_some(65536):
        received += data
    return why, received


async def test_a_closed_tab_ends_its_table():
    why, sent = await relayed(Browser({"type": "websocket.receive", "text": '{"type":"bye"}'},
                                      {"type": "websocket.disconnect"}))
    assert why == "gone" and sent == b'{"type":"bye"}\n'


async def test_a_table_the_browser_leaves_idle_ends(autojump_clock):
    with trio.move_on_after(301) as scope:
        why, sent = await relayed(Browser(), idle=300.0)
    assert not scope.cancelled_caught and "nothing came" in why and sent == b""


async def test_a_browser_that_sends_what_a_seat_may_not_ends_its_table():
    why, sent = await relayed(Browser({"type": "websocket.receive",
                                       "text": '{"type":"watch","table":0}'}))
    assert "may not send" in why and sent == b""


@pytest.mark.parametrize(("origin", "same"), [
    (None, True), ("http://arena.example:8080", True), ("https://evil.example", False),
    ("http://arena.example:8081", False)])
def test_only_this_sites_pages_open_a_table(origin, same):
    assert same_origin(Browser(origin=origin)) is same  # type: ignore[arg-type]


class Page:
    """What the browser was sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


async def test_the_seats_lines_go_to_the_browser_drawn_until_bye():
    ours, theirs = trio.testing.memory_stream_pair()
    await theirs.send_all(b'{"type":"game_start","seat":0,"names":["visitor","bot"],'
                          b'"info":{},"game":"toy"}\n{"type":"bye","reason":"series_over"}\n'
                          b'{"type":"never"}\n')
    page = Page()
    await send_all(page, ours, SeatView("toy"))  # type: ignore[arg-type]
    assert [m["type"] for m in page.sent] == ["game_start", "bye"]
    assert "board" in page.sent[0]
