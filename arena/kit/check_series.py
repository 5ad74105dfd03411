"""The scripted series ``arena check-bot`` plays against one bot process.

The checker is a small server of its own: the bot holds one seat of a real game (the real
engine and :class:`~arena.gameplay.driver.MatchDriver`, so legal lists, observations, ids, tries and
defaults are exactly the server's), and the checker plays the other seats at random.  Around
that it scripts situations and watches how the bot handles them (:class:`Check`):

- game 1: the bot's first answer to a request with two or more legal actions is refused with
  an ``illegal_action`` error (tries left, the legal list without the refused token): the bot
  must answer that request again with another token;
- whenever the bot's seat decides while other seats decide too (chochlik's passing,
  vollewolle's bids, wypas's windows), the other seats' answers are held back until the bot
  has answered, so a bot that waits for news before answering is caught;
- the seat rotates every game, and the game after ``game_end`` must be played on the same
  connection;
- the last game (over TCP, with a token): right after the bot's second request the checker
  closes the connection; the bot may come back within the grace with its token and must then
  answer the request sent again (SPEC.md §6); a bot that does not come back skips this
  optional check and its seat is played by defaults to the end;
- then ``bye``: the bot's process must end.

Whatever the bot does, the series ends: a bot that leaves has its seat played by defaults.

This module is the server side; the state and the judging of the bot's answers (which check
each answer, bad line or timeout decides) are :class:`~arena.kit.check_judge.AnswerJudge`'s.
"""

from __future__ import annotations

import math
from typing import Any

import trio

from arena.edge.reception import BYE_MESSAGES
from arena.gameplay.driver import MatchDriver, Outgoing
from arena.kit.check_findings import Check, Findings
from arena.kit.check_judge import AnswerJudge, RequestNote
from arena.kit.check_link import Connected, Exited, Link
from arena.kit.check_setup import hello_problem, pick_seed, welcome
from protocol.connection import ENDED
from protocol.errors import ErrorCode, PeerError
from protocol.messages import Bye, Cancel, Error, GameEnd, Hello, Request
from protocol.requests import RequestCounter

#: The bot's name at the checker's tables; the other seats are ``checker-<seat>``.
BOT_NAME = "bot"
#: How a hosted validation ends: as a server that stops does.
SERVER_BYE = Bye(reason=ErrorCode.SERVER_SHUTDOWN.value,
                 message=BYE_MESSAGES[ErrorCode.SERVER_SHUTDOWN])
#: The bot's request of the last game after which its connection is closed (reconnect check).
DROP_AT_REQUEST = 1
#: Seconds to wait for the bot's process to end after its connection did, to report how.
EXIT_LOOK = 1.0
#: Why a hello whose connection is not the bot process's own fails the handshake.
NOT_ITS_PROCESS = (
    "token_not_yours: the connection that said hello with the bot's token is not held by the "
    "process check-bot started or one of its children (Linux /proc), so arena match would "
    "refuse it: connect from the bot's own process, in the foreground (not setsid, not a "
    "daemon)")


class ScriptedSeries(AnswerJudge):
    """Plays the series against the bot and fills :attr:`findings`.  ``inbox`` receives
    :class:`Connected`, :class:`Received` and :class:`Exited`; ``output_tail`` returns the last
    lines the bot printed (for reasons about a crash)."""

    # -- the series --

    async def run(self) -> Findings:
        link = await self.first_contact()
        if link is not None:
            self.link = link
            for game in range(self.settings.games):
                await self.play(game)
                if self.left or self.stopped:
                    break
            if not self.left and not self.stopped and self.settings.games >= 2:
                self.findings.passed(Check.SEVERAL_GAMES)
            await self.say_bye()
        if self.stopped:
            for check in Check:
                if not self.findings.decided(check):
                    self.findings.fail(check, f"not checked: check-bot stopped the series "
                                              f"after {self.stopped}")
        return self.findings

    async def first_contact(self) -> Link | None:
        deadline = trio.current_time() + self.settings.connect_timeout
        while True:
            item = await self.next_item(deadline)
            if item is None:
                self.findings.fail(Check.HANDSHAKE, f"the bot did not connect within "
                                   f"{self.settings.connect_timeout:g} s")
                return None
            if isinstance(item, Exited):
                self.exit_code = item.code
                self.findings.fail(Check.HANDSHAKE, "the bot's process ended before it "
                                   f"connected{self.how_it_ended()}")
                return None
            if isinstance(item, Connected):
                problem = await self.greet(item.link)
                if problem is None:
                    self.findings.passed(Check.HANDSHAKE)
                    self.findings.passed(Check.VALID_LINES)
                    return item.link
                self.findings.fail(Check.HANDSHAKE, problem)
                return None

    async def greet(self, link: Link) -> str | None:
        """``welcome``, then a valid ``hello`` with the bot's token within the hello timeout;
        None, or what went wrong (the link is then closed)."""
        await link.send(welcome(self.settings))
        deadline = trio.current_time() + self.settings.hello_timeout
        while True:
            item = await self.next_item(deadline)
            if item is None:
                await link.send(Error(code=ErrorCode.HELLO_TIMEOUT.value, fatal=True,
                                      message="no hello in time"))
                await link.close()
                return f"no hello within {self.settings.hello_timeout * 1000:.0f} ms of welcome"
            if isinstance(item, Exited):
                self.exit_code = item.code
                return f"the bot's process ended before it said hello{self.how_it_ended()}"
            if isinstance(item, Connected):
                await item.link.close()  # one connection at a time
                continue
            if item.link is not link:
                continue
            message = item.item
            if message is ENDED:
                return "the connection closed before hello"
            if isinstance(message, PeerError):
                await link.send(Error(code=message.code.value, message=message.detail,
                                      fatal=message.fatal))
                if message.fatal:
                    await link.close()
                    return f"{message.code.value}: {message.detail}"
                self.findings.fail(Check.VALID_LINES,
                                   f"before hello: {message.code.value}: {message.detail}")
                continue
            if not isinstance(message, Hello):
                await link.close()
                return f"said {message.TYPE} instead of hello"
            problem, code = hello_problem(self.settings, message), ErrorCode.UNKNOWN_TOKEN
            if problem is None and not self.from_the_bots_process(link, message):
                problem, code = NOT_ITS_PROCESS, ErrorCode.TOKEN_NOT_YOURS
            if problem is not None:
                await link.send(Error(code=code.value, message=problem, fatal=True))
                await link.close()
            return problem

    def from_the_bots_process(self, link: Link, hello: Hello) -> bool:
        """Does the connection come from the process the token was given to (or its children),
        as ``arena match`` requires (where Linux ``/proc`` can tell)?"""
        if self.binding is None or link.addresses is None or hello.token is None:
            return True
        return self.binding.allows(hello.token, *link.addresses)

    async def play(self, game: int) -> None:
        s = self.settings
        self.game, self.seat = game, game % self.players
        names, game_id, table = self.table_of(game)
        counters = [self.counter if seat == self.seat else RequestCounter()
                    for seat in range(self.players)]
        seed = pick_seed(s.spec, s.options, f"{s.seed}:{s.spec.name}:{game}", self.seat)
        self.driver = MatchDriver(
            s.spec, s.options, seed, names, game_id=game_id, table=table,
            move_timeout=s.move_timeout, reaction_timeout=s.reaction_timeout,
            counters=counters)
        self.requests_in_game = 0
        self.abandon = False
        self.progress(f"{s.spec.name}: game {game + 1} of {s.games}: the bot in seat "
                      f"{self.seat}")
        await self.deliver(self.driver.start(trio.current_time()))
        while not self.driver.finished and not self.stopped:
            await self.step()

    def table_of(self, game: int) -> tuple[list[str], str, int]:
        """Game ``game``'s names by seat, its id and its table: check-bot's own (``bot``,
        ``checker-<seat>``), or a hosted validation's, as a ladder's (its :class:`Disguise`)."""
        disguise = self.settings.disguise
        if disguise is None:
            return ([BOT_NAME if seat == self.seat else f"checker-{seat}"
                     for seat in range(self.players)], f"check-bot-{game + 1}", 1)
        others = iter(self.rng.sample(disguise.opponents, self.players - 1))
        names = [disguise.name if seat == self.seat else next(others)
                 for seat in range(self.players)]
        table = disguise.tables[game]
        return names, f"{disguise.run_id}-t{table}", table

    async def step(self) -> None:
        driver = self.driver
        assert driver is not None
        deadlines = [d for d in (driver.next_deadline(), self.back_by) if d is not None]
        item = await self.next_item(min(deadlines, default=None))
        now = trio.current_time()
        if item is None:
            if self.back_by is not None and now >= self.back_by:
                await self.give_up_waiting(f"the bot did not come back within "
                                           f"{self.settings.reconnect_grace:g} s")
            await self.deliver(driver.expire(now))
        elif isinstance(item, Exited):
            self.exit_code = item.code
            if self.back_by is not None:
                await self.give_up_waiting("the bot's process ended when its connection was "
                                           f"closed{self.how_it_ended()}")
        elif isinstance(item, Connected):
            if self.back_by is not None:
                await self.come_back(item.link)
            else:
                await item.link.close()  # one connection at a time
        elif item.link is self.link:
            await self.on_message(item)

    # -- messages to the bot, and the checker's own seats --

    async def deliver(self, out: list[Outgoing]) -> None:
        """Send the bot its messages; then answer the other seats' requests, but only while
        the bot has no request open (their answers wait for the bot's)."""
        driver = self.driver
        assert driver is not None
        pending = list(out)
        while True:
            for outgoing in pending:
                if outgoing.seat == self.seat:
                    await self.to_bot(outgoing)
            if self.abandon and driver.connected[self.seat]:
                self.note = None
                pending = driver.disconnect(self.seat, trio.current_time())
                continue
            others = sorted(seat for seat in driver.open if seat != self.seat)
            if self.seat in driver.open or driver.finished or not others:
                return
            request = driver.open[others[0]]
            pending = driver.answer(others[0], request.id, self.rng.choice(request.legal),
                                    trio.current_time())

    async def to_bot(self, outgoing: Outgoing) -> None:
        driver = self.driver
        assert driver is not None
        message = outgoing.message
        if isinstance(message, Request):
            self.note = RequestNote(
                message.id, message.legal, message.time_left_ms,
                getattr(driver.state.observe(self.seat), "decision", None),
                simultaneous=len(driver.open) > 1,
                reaction=driver.open[self.seat].limit_name == "reaction_timeout",
                probe=self.probe_next)
            if self.link is not None:  # it reached the bot (not while it is away)
                self.probe_next = False
            self.requests_in_game += 1
        elif isinstance(message, Cancel):
            self.on_cancel(message)
        elif isinstance(message, Error) and message.id is not None and message.tries_left:
            self.retry_invited.add(message.id)
        elif isinstance(message, GameEnd) and self.game + 1 < self.settings.games:
            self.after_game_end = True
        if self.link is not None:
            await self.link.send(message, outgoing.line)
        if isinstance(message, Request) and self.should_drop():
            await self.drop_connection()

    # -- the bot leaving and coming back --

    def should_drop(self) -> bool:
        return (self.settings.token is not None and not self.dropped
                and self.game == self.settings.games - 1 and self.note is not None
                and not self.note.reaction and self.requests_in_game >= DROP_AT_REQUEST
                and self.link is not None)

    async def drop_connection(self) -> None:
        assert self.driver is not None and self.link is not None
        self.dropped = True
        link, self.link = self.link, None
        await link.close()
        self.driver.connection_lost(self.seat)
        self.back_by = trio.current_time() + self.settings.reconnect_grace
        self.probe_next = True

    async def come_back(self, link: Link) -> None:
        assert self.driver is not None
        self.back_by = None
        problem = await self.greet(link)
        now = trio.current_time()
        if problem is not None:
            self.findings.fail(Check.RECONNECT, f"came back, but {problem}")
            self.abandon = True
            await self.deliver(self.driver.expire(now))
            return
        self.link = link
        await self.deliver(self.driver.expire(now) + self.driver.resync(self.seat, now))

    async def give_up_waiting(self, why: str) -> None:
        assert self.driver is not None
        self.back_by = None
        self.probe_next = False
        self.findings.skip(Check.RECONNECT, f"not supported (optional): {why}")
        self.findings.skip(Check.BYE, "not reached: the bot did not come back")
        await self.deliver(self.driver.disconnect(self.seat, trio.current_time()))

    async def bot_left(self, how: str, *, said_bye: bool) -> None:
        """The bot left mid-series: its seat is played by defaults to the end of the game, and
        the series stops there."""
        assert self.driver is not None
        link, self.link = self.link, None
        if link is not None:
            await link.close()
        self.left = True
        self.note = None
        ended = "" if said_bye else await self.exit_status_soon()
        games = self.settings.games
        if self.after_game_end:
            where = f"after game {self.game} of {games}"
            if said_bye:  # it handled game_end, and chose to leave
                self.findings.passed(Check.GAME_END)
            else:
                self.findings.fail(Check.GAME_END, f"the bot {how} right after game_end of "
                                   f"game {self.game}{ended}")
        else:
            where = f"during game {self.game + 1} of {games}"
        self.findings.fail(Check.SEVERAL_GAMES, f"the bot {how} {where}{ended}")
        for check in (Check.RECONNECT, Check.BYE):
            self.findings.skip(check, "not reached: the bot left")
        await self.deliver(self.driver.disconnect(self.seat, trio.current_time()))

    async def exit_status_soon(self) -> str:
        """How the bot's process ended, if it ends within :data:`EXIT_LOOK` seconds."""
        if self.exit_code is None:
            item = await self.next_item(trio.current_time() + EXIT_LOOK, only=Exited)
            if isinstance(item, Exited):
                self.exit_code = item.code
        return self.how_it_ended()

    def how_it_ended(self) -> str:
        if self.exit_code is None:
            return ""
        tail = self.output_tail()
        return (f" (its process exited with status {self.exit_code}"
                + (f"; its last output: {tail}" if tail else "") + ")")

    async def say_bye(self) -> None:
        if self.link is None:
            return
        link, self.link = self.link, None
        await link.send(Bye(reason=ErrorCode.SERIES_OVER.value,
                            message="check-bot: the series is over")
                        if self.settings.disguise is None else SERVER_BYE)
        await link.close()
        if self.exit_code is None:
            item = await self.next_item(trio.current_time() + self.settings.exit_grace,
                                        only=Exited)
            if isinstance(item, Exited):
                self.exit_code = item.code
        if self.exit_code is None:
            self.findings.fail(Check.BYE, f"the bot's process was still running "
                               f"{self.settings.exit_grace:g} s after bye (and the connection "
                               "closed)")
        else:
            self.findings.passed(Check.BYE)

    async def next_item(self, deadline: float | None, only: type | None = None) -> Any:
        """The next thing in the inbox (of type ``only``, others dropped), or None at the
        deadline."""
        with trio.move_on_at(math.inf if deadline is None else deadline):
            while True:
                item = await self.inbox.receive()
                if only is None or isinstance(item, only):
                    return item
        return None
