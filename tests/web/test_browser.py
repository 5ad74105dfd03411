"""The pages in a real browser: Debian's headless chromium driven by Playwright.  One browser
for the session, one site (an event's pages beside a live server, in a trio thread) for the
module.  Screenshots of each page go to test-artifacts/ (not committed), and those the
documents show to docs/img/ at a desktop's and a phone's size (:func:`screens`: each run
makes them again, so the pictures never go stale).

Without chromium (or Playwright) these tests are skipped, except in CI (CI=true), where they
fail: .ci/run installs chromium."""

from __future__ import annotations

import functools
import json
import random
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from hypercorn.trio import serve

from arena.events.export import open_event
from arena.events.live_rating import LiveRow
from arena.events.snapshots import write_snapshot
from arena.events.storage import SqliteStorage
from arena.gameplay.gamelog import read_log
from arena.web import data as data_module
from arena.web.app import make_app
from arena.web.data import EventData
from arena.web.serve import config_for, serve_pages
from tests.helpers import connect_in_memory, log_files, make_server
from tests.web.browser import unavailable  # noqa: F401
from tests.web.events import HOSTILE, HeldFit, fed_live, make_event, unlined
from tests.web.test_boards import values as scalars

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
#: The pictures of docs/organisers/pages.md.
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}
NAMES = ["alpha", "beta", HOSTILE, "delta", "epsilon"]
#: A bot registered after the games: not played yet.
NEWCOMER = "newcomer"
OTHER_GAMES = [("vollewolle", {"players": 3}), ("wypas", {"players": 3, "turn_cap": 8})]




class Site:
    """An event's pages beside a live chochlik server, in a trio loop of their own thread
    (the browser's calls block); :meth:`play` seats three slow bots at a table."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db = make_event(folder, NAMES, tables=20)
        registry = SqliteStorage(self.db)
        registry.write_event({"game": "chochlik", "options": {"hands": 1, "players": 3},
                              "duplicate": False, "seed": "t"},
                             [(name, "builtin") for name in [*NAMES, NEWCOMER]])
        registry.close()
        self.storage = open_event(self.db)
        #: One game of each other game, each event served on its own pages (their boards).
        self.others = {game: open_event(make_event(folder / game, NAMES[:3], tables=1,
                                                   game=game, options=options))
                       for game, options in OTHER_GAMES}
        self.other_bases: dict[str, str] = {}
        self.ready = threading.Event()
        self.base = ""
        self.thread = threading.Thread(target=trio.run, args=(self.main,), daemon=True)

    async def main(self) -> None:
        self.token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self.scope = nursery.cancel_scope
            self.nursery = nursery
            self.server = make_server(self.folder / "live", hands=1)
            await nursery.start(self.server.serve, False)
            live, _ = fed_live(nursery, self.server, run=False)  # the pages' app reads it
            self.base = await nursery.start(functools.partial(
                serve_pages, self.storage, port=0, live=live, refresh=0.2))
            for game, storage in self.others.items():
                self.other_bases[game] = await nursery.start(functools.partial(
                    serve_pages, storage, port=0))
            self.ready.set()

    def play(self, pause_after: int) -> None:
        """Three bots play a game; after ``pause_after`` answers they wait for
        :meth:`resume`."""
        self.gate = trio.Event()
        answers = 0

        async def bot(i: int) -> None:
            nonlocal answers
            client = await connect_in_memory(self.nursery, self.server)
            await client.hello(f"live{i}")
            rng = random.Random(i)
            while (message := await client.receive()) is not None:
                if message["type"] == "request":
                    answers += 1
                    if answers > pause_after:
                        await self.gate.wait()
                    await trio.sleep(0.01)
                    await client.send({"type": "action", "id": message["id"],
                                       "action": rng.choice(message["legal"])})
                elif message["type"] == "game_end":
                    return

        def start() -> None:
            for i in range(3):
                self.nursery.start_soon(bot, i)
        trio.from_thread.run_sync(start, trio_token=self.token)

    def resume(self) -> None:
        trio.from_thread.run_sync(self.gate.set, trio_token=self.token)

    def stop(self) -> None:
        trio.from_thread.run_sync(self.scope.cancel, trio_token=self.token)
        self.thread.join(10)
        self.storage.close()
        for storage in self.others.values():
            storage.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    running = Site(tmp_path_factory.mktemp("site"))
    running.thread.start()
    assert running.ready.wait(30)
    yield running
    running.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    dialogs: list[str] = []
    opened.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    opened.dialogs = dialogs
    yield opened
    context.close()
    assert dialogs == []  # no script of a bot's name ever ran


def sorted_keys(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def screens(page: Any, name: str, at: Any = None) -> None:
    """The page as the documents show it: its first screen on a desktop and on a phone
    (docs/img/<name>-desktop.png, <name>-phone.png), or the screen from the element ``at``
    down; the page is left at the desktop's size."""
    DOCS_IMG.mkdir(exist_ok=True)
    for size, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        if at is not None:
            at.evaluate("e => e.scrollIntoView()")
        page.screenshot(path=str(DOCS_IMG / f"{name}-{label}.png"))
    page.set_viewport_size(DESKTOP)


def test_the_leaderboard_lists_every_bot_with_its_interval_as_text(site, page):
    page.goto(site.base + "/")
    rows = page.locator("tr.bot-row")
    assert rows.count() == len(NAMES)
    assert sorted(page.locator("a.bot-name").all_inner_texts()) == sorted(NAMES)
    assert page.locator("tr.bot-row svg.bar line.interval").count() == 3 * len(NAMES)
    assert all(".." in text for text in page.locator("span.range").all_inner_texts())
    assert page.locator("script", has_text="alert(1)").count() == 0
    provisional = page.locator(".provisional-bots")  # listed apart, not as a group
    assert provisional.locator("a.newcomer").inner_text() == NEWCOMER
    assert "not played yet" in provisional.inner_text()
    assert "never met" not in page.locator("main").inner_text()
    assert re.search(r"computed at \d\d:\d\d:\d\d UTC", page.locator("main").inner_text())
    icon = page.locator("link[rel=icon]").get_attribute("href")
    answer = page.request.get(site.base + icon)
    assert answer.ok and answer.body().startswith(b"<svg")
    assert page.locator(".scroll-hint:visible").count() == 0  # the table fits a desktop
    page.set_viewport_size(PHONE)
    elo = page.locator("table.board th", has_text="Elo").bounding_box()
    assert elo["x"] + elo["width"] <= PHONE["width"]  # #, bot and Elo without scrolling
    assert page.locator(".scroll-hint:visible").first.inner_text() == "scroll \u2192"
    screens(page, "leaderboard")
    games = page.locator("th", has_text="games")
    games.click()
    counts = [int(row.locator("td").nth(4).inner_text()) for row in rows.all()]
    assert counts == sorted(counts, reverse=True)
    shot(page, "leaderboard")
    page.get_by_role("link", name=HOSTILE).click()
    assert page.locator("h1").inner_text() == HOSTILE
    assert page.locator("svg.history polyline").count() == 1
    plot = page.locator("svg.history")
    assert plot.bounding_box()["width"] >= 700  # larger
    assert plot.locator("circle.elo").count() >= 10  # a dot per point
    assert plot.locator("line.grid").count() >= 6
    assert {"games", "Elo"} <= set(plot.locator("text.label").all_text_contents())
    assert all(v.isdigit() for v in plot.locator("text.value").all_text_contents())
    page.set_viewport_size(PHONE)  # its numbers as large on a phone: the plot scrolls
    assert plot.bounding_box()["width"] >= 600
    assert page.locator(".scroll-hint:visible").first.inner_text() == "scroll \u2192"
    screens(page, "bot")
    shot(page, "bot")
    page.goto(site.base + "/versus")
    first = page.locator("table.matrix td.score").first
    assert first.is_visible() and first.inner_text().split("\n")[0].endswith("%")
    column = page.locator("table.matrix th.column", has_text=HOSTILE)
    assert column.is_visible() and column.inner_text() == HOSTILE  # whole
    screens(page, "versus")
    shot(page, "versus")
    page.goto(site.base + "/")
    page.locator("th", has_text="games").click()  # sorted, then the event goes on:
    holder = page.locator("#leaderboard")
    before = int(holder.get_attribute("data-version"))
    writer = SqliteStorage(site.db)
    game = site.storage.games()[0]
    for index in (100, 101):
        writer.add_game(attrs.evolve(game, tag=attrs.evolve(game.table, index=index)))
    writer.close()
    # the refit runs in a process of its own, at a lower priority: on a loaded machine
    # (the whole suite on 2 cores) it may take a while
    page.wait_for_function(f"+document.getElementById('leaderboard').dataset.version"
                           f" === {before + 2}", timeout=90000)
    counts = [int(row.locator("td").nth(4).inner_text()) for row in rows.all()]
    assert sum(counts) == 3 * (before + 2) and counts == sorted(counts, reverse=True)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.goto(site.base + "/")
    shot(page, "leaderboard-phone")


def test_the_replay_steps_switches_views_and_shows_the_public_nothing_private(site, page):
    game = site.storage.games()[0]
    records = read_log(game.log_path)
    page.goto(f"{site.base}/game/{game.planned}")
    position = page.locator("#position")
    total = int(position.inner_text().split("/")[1])
    assert position.inner_text() == f"0 / {total}" and total > 3
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert position.inner_text() == f"3 / {total}"
    page.click("#prev")
    assert position.inner_text() == f"2 / {total}"
    page.click("#last")
    assert page.locator(".panel h4", has_text="the bottle").count() == 1
    assert page.locator(".panel .card.c-bottle").count() == 1
    assert page.locator("table.seats tr").count() == 1 + len(game.table.entrants)
    # the cards drawn: the game's cards, each one the public was sent
    public_cards = {str(v) for r in records if r["type"] == "event" and r["to"] is None
                    for v in scalars(r["data"])}
    drawn = page.eval_on_selector_all("#board [data-card]",
                                      "cards => cards.map(c => c.dataset.card)")
    assert drawn and set(drawn) <= public_cards
    shot(page, "replay-public")
    page.set_viewport_size(PHONE)  # every control on a phone's screen, the position on a line
    for control in ("#last", "#play", "#speed"):
        box = page.locator(control).bounding_box()
        assert box["x"] + box["width"] <= PHONE["width"], control
    assert page.locator("#position").bounding_box()["height"] < 30
    screens(page, "replay")
    # as the page has them: JSON with sorted keys
    private = sorted_keys([{"type": "event", "kind": r["kind"], "data": r["data"]}
                           for r in records if r["type"] == "event" and r["to"] is not None])
    public = sorted_keys([{"type": "event", "kind": r["kind"], "data": r["data"]}
                          for r in records if r["type"] == "event" and r["to"] is None])
    shown = page.evaluate("(steps) => steps.map(arenaViewer.describe)", private)
    text = page.locator("main").inner_text()
    assert private and not any(line in text for line in shown)
    lines = page.locator("#steps li").all_inner_texts()
    steps = [s for s in json.loads(page.locator("#replay-data").text_content())["steps"]]
    assert [unlined(s) for s in steps if s["type"] == "event"] == public
    assert lines == [s["text"] for s in steps]  # each step as the server's sentence
    assert any(" played " in line for line in lines) and not any("=" in line for line in lines)
    page.click("#prev")
    page.click("#prev")
    moment = page.locator("#steps li.current").inner_text()  # a public event, seen by all
    page.click("a.view[data-view=seat1]")
    page.wait_for_url("**view=seat1**")
    assert page.locator("#steps li.current").inner_text() == moment  # the same moment
    assert page.locator("#steps li", has_text="asked").count() > 0
    assert page.locator("table.observation").count() == 1
    hand = page.locator("table.observation tr", has_text="hand").locator(".card[data-card]")
    assert hand.count() > 0  # the seat's hand drawn as cards, named by the game
    assert all("(" in title for title in hand.evaluate_all("cs => cs.map(c => c.title)"))
    page.click("#first")  # its first request: a full hand
    while page.locator("table.observation").count() == 0:
        page.click("#next")
    screens(page, "replay-seat", at=page.locator("#board h3", has_text="observed"))
    shot(page, "replay-seat")
    page.select_option("#speed", "20")  # autoplay from the start
    page.click("#first")
    page.click("#play")
    page.wait_for_function("+document.getElementById('position').textContent"
                           ".split(' / ')[0] >= 5")
    page.click("#play")  # pause
    assert page.locator("#play").inner_text() == "play"

    page.click("a.view[data-view=full]")
    page.wait_for_url("**view=full**")
    assert page.locator("#steps li", has_text="seen by").count() > 0


@pytest.mark.parametrize("game", [game for game, _ in OTHER_GAMES])
def test_every_games_board_is_drawn_with_its_cards(site, page, game):
    page.goto(f"{site.other_bases[game]}/game/0")
    position = page.locator("#position")
    total = int(position.inner_text().split("/")[1])
    steps = json.loads(page.locator("#replay-data").text_content())["steps"]
    # a moment with cards in a seat's row (a flock, a pen) and a panel's cards
    moment = next(k for k in range(total // 3, total) if steps[k].get("kind") in (
        "took", "placed"))
    page.evaluate(f"location.hash = '#{steps[moment]['line']}'")
    page.reload()
    assert position.inner_text() == f"{moment + 1} / {total}"
    assert page.locator("table.seats tr").count() == 4
    assert page.locator("table.seats .card").count() > 0
    assert page.locator(".board-title").count() == 1
    assert "=" not in page.locator("#steps").inner_text()
    shot(page, f"replay-{game}")
    page.click("#last")
    assert page.locator("#steps li.current").inner_text().startswith("the game is over")
    shot(page, f"replay-{game}-end")


def test_a_live_table_advances_while_its_game_runs(site, page):
    site.play(pause_after=8)
    page.goto(site.base + "/live")
    page.locator("#tables a").first.click(timeout=15000)
    steps = "+document.getElementById('position').textContent.split(' / ')[1]"
    page.wait_for_function(f"{steps} > 0", timeout=15000)
    before = int(page.locator("#position").inner_text().split(" / ")[1])
    site.resume()
    page.wait_for_function(f"{steps} > {before}", timeout=15000)
    page.wait_for_function("document.getElementById('status').textContent === 'over'",
                           timeout=30000)
    [log] = log_files(site.folder / "live" / "logs")
    private = sorted_keys([{"type": "event", "kind": r["kind"], "data": r["data"]}
                           for r in read_log(log) if r["type"] == "event" and r["to"]])
    shown = page.evaluate("(steps) => steps.map(arenaViewer.describe)", private)
    text = page.locator("main").inner_text()
    assert private and not any(line in text for line in shown)
    screens(page, "live")
    shot(page, "live-table")


def test_a_provisional_leaderboard_gives_way_to_the_fit_when_it_is_done(tmp_path, page,
                                                                         monkeypatch):
    db = make_event(tmp_path, NAMES, tables=6)
    write_snapshot(db, 1_767_225_600.0, 6, [LiveRow(1, name, 1500.0 - k, 50.0, 3)
                                            for k, name in enumerate(NAMES)])
    storage = HeldFit(db)
    monkeypatch.setattr(data_module, "where_of", lambda storage: None)  # the fit: a thread
    data = EventData(storage, waited_games=0, refresh=0.2)  # type: ignore[arg-type]
    started, address = threading.Event(), []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            address.extend(await nursery.start(functools.partial(
                serve, make_app(data), config_for("127.0.0.1", 0))))
            started.set()
            await trio.to_thread.run_sync(storage.done.wait, abandon_on_cancel=True)
            nursery.cancel_scope.cancel()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    try:
        assert started.wait(30)
        page.goto(address[0] + "/")
        board = page.locator("#leaderboard")
        assert "is being computed" in board.inner_text() and "the live rating" in board.inner_text()
        assert page.locator("tr.bot-row").count() == len(NAMES)  # the live snapshot's rows
        shot(page, "leaderboard-provisional")
        storage.gate.set()
        page.wait_for_function("document.querySelector('#leaderboard .provisional') === null",
                               timeout=60000)
        counts = [int(row.locator("td").nth(4).inner_text())
                  for row in page.locator("tr.bot-row").all()]
        assert len(counts) == len(NAMES) and all(counts)  # the fit's rows: games counted
    finally:
        storage.gate.set()
        storage.done.set()
        thread.join(30)
