"""The play page in Chromium: a person plays a whole game of each registered game against
random bots, clicking a legal button at random each time they are asked (reaction windows
included); the end's table is shown and the game's log replays.  Skipped without chromium as
tests/web/test_browser.py is."""

from __future__ import annotations

import functools
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from arena.gameplay.gamelog import read_log
from arena.gameplay.replay import replay_log
from arena.games import GAMES
from arena.web.play_table import PlaySettings, play_game
from arena.web.serve import serve_pages
from tests.helpers import log_files
from tests.web.test_browser import shot

#: Seconds a whole game may take in the browser (bots start as processes; 2 shared cores).
GAME_SECONDS = 120
#: Longer than the short game where the person is asked in reaction windows too seldom in it:
#: in 3 short wypas games (4 turns) the person was asked in 0, 0 and 1 window; with 8 turns
#: in 31, 8, 14 and 8 (about 18 s a game).
LONGER = {"wypas": {"turn_cap": 8}}


def short_game(name: str) -> Any:
    spec = GAMES[name]
    return play_game(name, {"players": spec.min_players, **spec.short_game,
                            **LONGER.get(name, {})}, ["random"])


class PlaySite:
    """The pages with play open, in a trio loop of their own thread."""

    def __init__(self, settings: PlaySettings) -> None:
        self.settings = settings
        self.ready = threading.Event()
        self.base = ""
        self.thread = threading.Thread(target=trio.run, args=(self.main,), daemon=True)

    async def main(self) -> None:
        self.token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self.scope = nursery.cancel_scope
            self.base = await nursery.start(functools.partial(
                serve_pages, None, port=0, play=self.settings))
            self.ready.set()

    def stop(self) -> None:
        trio.from_thread.run_sync(self.scope.cancel, trio_token=self.token)
        self.thread.join(10)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlaySite]:
    settings = PlaySettings(tuple(short_game(name) for name in sorted(GAMES)),
                            tmp_path_factory.mktemp("play"), max_tables=2)
    running = PlaySite(settings)
    running.thread.start()
    assert running.ready.wait(30)
    yield running
    running.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    yield context.new_page()
    context.close()


def play_to_the_end(page: Any, rng: random.Random) -> tuple[int, int]:
    """Click a legal button at random whenever asked, until the end's table shows; the
    number of clicks, and of those in reaction windows (shown with their own clock)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    clicks = reactions = 0
    while True:
        page.wait_for_selector("#choices button, #end:not([hidden])", timeout=GAME_SECONDS * 1000)
        if page.locator("#end:not([hidden])").count():
            return clicks, reactions
        buttons = page.locator("#choices button")
        count = buttons.count()
        if not count:
            continue
        reaction = page.locator("#turn.reaction").count() > 0
        try:
            buttons.nth(rng.randrange(count)).click(timeout=2000)
        except PlaywrightTimeout:  # the request was answered for the person meanwhile
            continue
        clicks += 1
        reactions += reaction


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_person_plays_a_whole_game_of_each_game_in_the_browser(site, page, game):
    before = set(log_files(site.settings.log_dir))
    page.goto(site.base + "/play")
    form = page.locator(f"form[data-game='{game}']")
    form.locator("button").click()
    page.wait_for_url(f"**/play/{game}?bot=*")
    clicks, reactions = play_to_the_end(page, random.Random(game))
    assert clicks > 0
    # the reaction windows are shown as such (their own clock): where the game has them only
    assert (reactions > 0) is GAMES[game].reaction_windows
    rows = page.locator("#end table tr")
    players = GAMES[game].min_players
    assert rows.count() == 1 + players
    assert page.locator("#end tr.you").count() == 1
    assert page.locator("#board .board-title, #board .panel, #board table.seats").count() > 0
    assert page.locator("#seat-view").inner_text().strip()  # the seat's view, drawn
    board = GAMES[game].board
    assert page.locator("#own .panel").count() == len(board.OWN_CARDS if board else {})
    assert "{" not in page.locator("#seat-view").inner_text()[:1]  # not raw JSON
    shot(page, f"play-{game}")
    page.wait_for_function("document.body.dataset.closed === '1'", timeout=30000)
    [log] = sorted(set(log_files(site.settings.log_dir)) - before)
    header = read_log(log)[0]
    assert header["game"] == game and "visitor" in header["names"]
    assert replay_log(log)  # arena replay checks it


def test_a_ladders_play_page_runs_in_its_pages_process_and_rates_nothing(tmp_path, page):
    """``arena serve --db --web --play``: the visitor's game is played in the pages' process,
    logged beside the server's logs, and never stored in the ladder's database."""
    from arena.events.pg_open import open_existing
    from tests.cli.test_bots_command import add
    from tests.serve_harness import Served
    from tests.web.test_pages_process import pages_address

    db = tmp_path / "ladder.db"
    add(db, "alice")
    with Served(tmp_path, "--game", "toy", "--db", str(db), "--web", "0", "--play",
                "--play-short", "--play-bots", "random") as served:
        page.goto(pages_address(served) + "/play")
        page.locator("form[data-game='toy'] button").click()
        clicks, _ = play_to_the_end(page, random.Random(0))
        assert clicks > 0 and page.locator("#end tr.you").count() == 1
        page.wait_for_function("document.body.dataset.closed === '1'", timeout=30000)
        [log] = log_files(tmp_path / "logs" / "play")
        assert replay_log(log) and "visitor" in read_log(log)[0]["names"]
        assert served.interrupt() == 0
    storage = open_existing(db)
    try:
        assert storage.games() == []  # in no rating
    finally:
        storage.close()
