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
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from typing import Any

import attrs
import trio

from arena.edge.peer_process import ProcessBinding
from arena.gameplay.driver import MatchDriver, Outgoing
from arena.kit.check_findings import Check, Findings
from arena.kit.check_link import Connected, Exited, Link, Received
from arena.kit.check_setup import SeriesSettings, hello_problem, pick_seed, welcome
from protocol.connection import ENDED
from protocol.errors import ErrorCode, PeerError, quote
from protocol.messages import Action, Bye, Cancel, Error, GameEnd, Hello, Request
from protocol.requests import RequestCounter

#: The bot's name at the checker's tables; the other seats are ``checker-<seat>``.
BOT_NAME = "bot"
#: The bot's request of the last game after which its connection is closed (reconnect check).
DROP_AT_REQUEST = 2
#: Seconds to wait for the bot's process to end after its connection did, to report how.
EXIT_LOOK = 1.0
#: Why a hello whose connection is not the bot process's own fails the handshake.
NOT_ITS_PROCESS = (
    "token_not_yours: the connection that said hello with the bot's token is not held by the "
    "process check-bot started or one of its children (Linux /proc), so arena match would "
    "refuse it: connect from the bot's own process, in the foreground (not setsid, not a "
    "daemon)")
#: Legal tokens quoted in a failure reason, at most.
SHOWN_LEGAL = 8
#: Requests in a row that get no valid answer (a wrong one, or none in time) after which the
#: bot is hopeless: the series stops, and every check not decided yet fails saying why (else
#: a bot that never answers right waits out every move timeout, for minutes).
HOPELESS_REQUESTS = 3


@attrs.define
class RequestNote:
    """What the checker knows about the bot's open request."""

    id: int
    legal: list[str]
    time_left_ms: int
    decision: str | None
    simultaneous: bool  # other seats had requests open when it was sent
    reaction: bool  # a reaction-window decision (the shorter limit)
    probe: bool = False  # the first request after coming back (reconnect check)
    botched: bool = False  # already failed another check (a wrong id, an illegal token)

    @property
    def label(self) -> str:
        return f"request {self.id}" + (f" ({self.decision})" if self.decision else "")


def _legal_text(legal: list[str]) -> str:
    shown = json.dumps(legal[:SHOWN_LEGAL], ensure_ascii=False)
    return shown if len(legal) <= SHOWN_LEGAL else shown[:-1] + ", ...]"


class ScriptedSeries:
    """Plays the series against the bot and fills :attr:`findings`.  ``inbox`` receives
    :class:`Connected`, :class:`Received` and :class:`Exited`; ``output_tail`` returns the last
    lines the bot printed (for reasons about a crash)."""

    def __init__(self, settings: SeriesSettings, inbox: trio.MemoryReceiveChannel[Any],
                 output_tail: Callable[[], str], binding: ProcessBinding | None = None,
                 progress: Callable[[str], None] = lambda line: None) -> None:
        """``progress`` is told, in a line, each game as it starts and a stop."""
        self.settings = settings
        self.progress = progress
        self.binding = binding  # the bot's token bound to its process, as arena match binds it
        self.inbox = inbox
        self.output_tail = output_tail
        self.findings = Findings()
        self.players: int = settings.options.players
        self.rng = random.Random(f"{settings.seed}:checker")
        self.counter = RequestCounter()  # the bot's connection numbers its requests
        self.link: Link | None = None
        self.exit_code: int | None = None
        self.driver: MatchDriver | None = None
        self.game = 0
        self.seat = 0
        self.note: RequestNote | None = None  # the bot's open request
        self.answered: set[int] = set()
        self.cancelled: set[int] = set()
        self.retry_invited: set[int] = set()  # requests named by an error reply with tries
        self.requests_in_game = 0
        self.refused: tuple[int, str] | None = None  # (request id, token) refused on purpose
        self.refused_once = False
        self.after_game_end = False
        self.left = False  # the bot left (bye or a closed connection) before the series ended
        self.dropped = False  # the reconnect scenario has run
        self.back_by: float | None = None  # while the bot is away: the end of its grace
        self.probe_next = False
        self.abandon = False  # stop asking the bot: its seat is played by defaults
        self.unanswered: list[int] = []  # the latest requests in a row with no valid answer
        self.stopped: str | None = None  # why the series stopped early (a hopeless bot)
        self._set_skip_reasons()

    def _set_skip_reasons(self) -> None:
        skip = self.findings.skip
        skip(Check.ERROR_RETRY, "no request with two or more legal actions in game 1")
        skip(Check.SIMULTANEOUS, "no request came while other seats were deciding too")
        spec = self.settings.spec
        if spec.reaction_windows:
            skip(Check.REACTION_WINDOWS, "no reaction-window request came to the bot's seat")
        else:
            self.findings.not_applicable(Check.REACTION_WINDOWS,
                                         f"{spec.name} has no reaction windows")
        if self.settings.games < 2:
            for check in (Check.GAME_END, Check.SEVERAL_GAMES):
                skip(check, "needs --games 2 or more")
        if self.settings.token is None:
            self.findings.not_applicable(Check.RECONNECT,
                                         "over stdin/stdout a pipe cannot be reopened")

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
        names = [BOT_NAME if seat == self.seat else f"checker-{seat}"
                 for seat in range(self.players)]
        counters = [self.counter if seat == self.seat else RequestCounter()
                    for seat in range(self.players)]
        seed = pick_seed(s.spec, s.options, f"{s.seed}:{s.spec.name}:{game}", self.seat)
        self.driver = MatchDriver(
            s.spec, s.options, seed, names, game_id=f"check-bot-{game + 1}", table=1,
            move_timeout=s.move_timeout, reaction_timeout=s.reaction_timeout,
            counters=counters)
        self.requests_in_game = 0
        self.abandon = False
        self.progress(f"{s.spec.name}: game {game + 1} of {s.games}: the bot in seat "
                      f"{self.seat}")
        await self.deliver(self.driver.start(trio.current_time()))
        while not self.driver.finished and not self.stopped:
            await self.step()

    def no_valid_answer(self, note: RequestNote, why: str) -> None:
        """``note``'s request got a wrong answer or none in time; after
        :data:`HOPELESS_REQUESTS` such requests in a row the series stops."""
        if note.id in self.unanswered or note.probe or self.back_by is not None:
            return  # counted already; or the reconnect check's business
        self.unanswered.append(note.id)
        if len(self.unanswered) >= HOPELESS_REQUESTS and self.stopped is None:
            self.stopped = f"{len(self.unanswered)} requests in a row got no valid answer"
            self.progress(f"{self.settings.spec.name}: stopping: {self.stopped} (the last, "
                          f"{note.label}: {why}); the checks not decided yet fail")

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

    async def on_message(self, received: Received) -> None:
        driver = self.driver
        assert driver is not None
        now = trio.current_time()
        message = received.item
        if isinstance(message, Action):
            self.findings.passed(Check.VALID_LINES)
            await self.on_action(message)
        elif isinstance(message, PeerError):
            line = "" if received.line is None else (
                f" (the line: {quote(received.line.decode('utf-8', 'replace'))})")
            self.findings.fail(Check.VALID_LINES,
                               f"{message.code.value}: {message.detail}{line}")
            if self.note is not None:
                self.note.botched = True
                self.no_valid_answer(self.note, f"{message.code.value}: {message.detail}")
            await self.deliver(driver.bad_input(self.seat, message, now,
                                                newest_sent=self.counter.newest))
            if message.fatal:
                await self.bot_left("was disconnected for too many bad lines", said_bye=False)
        elif isinstance(message, Bye):
            await self.bot_left("said bye", said_bye=True)
        elif message is ENDED:
            await self.bot_left("closed its connection without bye", said_bye=False)

    async def on_action(self, action: Action) -> None:
        driver, note = self.driver, self.note
        assert driver is not None
        now = trio.current_time()
        if note is None or action.id != note.id:
            # a late answer to a cancelled request is fine, and so is a second answer to one
            # an error reply named (the bot may have answered before it read the error)
            if action.id not in self.cancelled and action.id not in self.retry_invited:
                open_now = f"request {note.id} is open" if note else "no request is open"
                again = " (already answered)" if action.id in self.answered else ""
                self.findings.fail(Check.REQUEST_IDS, f"answered {quote(action.action)} with id "
                                   f"{action.id}{again}, but {open_now}")
                if note is not None:
                    note.botched = True
                    self.no_valid_answer(note, f"answered with id {action.id}")
            await self.deliver(driver.answer(self.seat, action.id, action.action, now))
            return
        self.findings.passed(Check.REQUEST_IDS)
        if self.after_game_end:
            self.findings.passed(Check.GAME_END)
            self.after_game_end = False
        if self.refused is not None:
            if action.action == self.refused[1]:
                self.findings.fail(Check.ERROR_RETRY, f"answered {quote(action.action)} again "
                                   f"to {note.label} after the error reply refused it")
            else:
                self.findings.passed(Check.ERROR_RETRY)
            self.refused = None
        if action.action not in note.legal:
            self.findings.fail(Check.LEGAL_ACTIONS, f"answered {quote(action.action)} to "
                               f"{note.label}, not in its legal list {_legal_text(note.legal)}")
            note.botched = True
            self.no_valid_answer(note, f"answered {quote(action.action)}, not legal")
            await self.deliver(driver.answer(self.seat, action.id, action.action, now))
            return
        self.findings.passed(Check.LEGAL_ACTIONS)
        if self.should_refuse(note):
            await self.refuse(note, action.action, now)
            return
        self.credit(note)
        self.unanswered.clear()
        self.note = None
        self.answered.add(note.id)
        await self.deliver(driver.answer(self.seat, action.id, action.action, now))

    def should_refuse(self, note: RequestNote) -> bool:
        return (not self.refused_once and self.game == 0 and not note.reaction
                and len(note.legal) >= 2)

    async def refuse(self, note: RequestNote, token: str, now: float) -> None:
        """The scripted error reply: ``illegal_action`` for a token that was legal, costing a
        try, with the legal list less that token."""
        assert self.driver is not None and self.link is not None
        request = self.driver.open[self.seat]
        request.tries_left -= 1
        self.refused, self.refused_once = (note.id, token), True
        await self.link.send(Error(
            code=ErrorCode.ILLEGAL_ACTION.value, id=note.id,
            message=f"check-bot refuses {quote(token)} on purpose (a scripted error reply): "
                    "answer again with another token of legal",
            legal=[t for t in note.legal if t != token], tries_left=request.tries_left,
            time_left_ms=max(0, round((request.deadline - now) * 1000))))

    def credit(self, note: RequestNote) -> None:
        """A good answer in time (after wrong ones, maybe: those failed their own checks): it
        counts for the checks its request was about."""
        if note.probe:
            self.findings.passed(Check.RECONNECT)
        if note.reaction:
            self.findings.passed(Check.REACTION_WINDOWS)
        if note.simultaneous:
            self.findings.passed(Check.SIMULTANEOUS)
        if not note.reaction and not note.simultaneous:
            self.findings.passed(Check.IN_TIME)

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

    def on_cancel(self, cancel: Cancel) -> None:
        note = self.note
        if note is None or cancel.id != note.id:
            return
        self.note = None
        self.cancelled.add(note.id)
        if cancel.reason == ErrorCode.TIMEOUT.value:
            self.timed_out(note)
            self.no_valid_answer(note, f"no answer within {note.time_left_ms} ms")
        elif cancel.reason == ErrorCode.TOO_MANY_TRIES.value:
            self.no_valid_answer(note, "every try was wrong")

    def timed_out(self, note: RequestNote) -> None:
        """Which check a request that ran out of time fails: the one it was about."""
        fail = self.findings.fail
        limit = f"{note.time_left_ms} ms"
        if self.refused is not None:
            self.refused = None
            fail(Check.ERROR_RETRY, f"no new answer to {note.label} within its {limit} after "
                 "the error reply")
        elif self.back_by is not None:
            return  # away: the reconnect check decides
        elif note.probe:
            fail(Check.RECONNECT, f"came back but did not answer {note.label}, sent again "
                 f"after the resync, within its {limit}")
            self.abandon = True
        elif note.botched:
            return
        elif note.reaction:
            fail(Check.REACTION_WINDOWS, f"no answer to {note.label} within its reaction "
                 f"time limit of {limit}")
        elif note.simultaneous:
            fail(Check.SIMULTANEOUS, f"no answer to {note.label} within {limit} while other "
                 "seats were deciding too (their answers wait for yours)")
        else:
            fail(Check.IN_TIME, f"no answer to {note.label} within {limit}")

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
                            message="check-bot: the series is over"))
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
