"""The batteries of ``arena check-game`` that play a game's engine alone, by seeded random
self-play (no Hypothesis: a loop over seeds, the same every run for one ``--seed``).

Each check is a function ``(spec, settings) -> None`` that raises :class:`Failed` with the
reason at the first broken promise (or :class:`NotApplicable` when its situation cannot come
up); the promises are :mod:`arena.games.base`'s contract."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from arena.games.base import MAX_LEGAL_ACTIONS, GameSpec, IllegalAction, OptionsError
from protocol.codec import to_json
from protocol.schema import object_schema

#: Decisions one random game may take before it is said not to end.
MAX_DECISIONS = 20_000
#: Illegal tokens tried, at most, per random game (each probe clones nothing: it must be refused
#: without a change).
ILLEGAL_PROBES = 30
#: Decisions played before a clone is made (at most; half a short game when shorter).
CLONE_AFTER = 25


class Failed(Exception):
    """A check found a broken promise; the message is the reason shown after FAIL."""


class NotApplicable(Exception):
    """The check's situation cannot come up in this game; the message says why."""


@attrs.frozen
class GameSettings:
    """How much a check plays: ``games`` random games per table size, ``worlds`` other worlds
    for the hidden-information property, every draw derived from ``seed``."""

    games: int = 20
    worlds: int = 60
    seed: str = "check-game"

    def rng(self, *parts: object) -> random.Random:
        return random.Random(":".join(map(str, (self.seed, *parts))))


def expect(condition: object, reason: str) -> None:
    if not condition:
        raise Failed(reason)


def sizes(spec: GameSpec) -> range:
    return range(spec.min_players, spec.max_players + 1)


def tables(spec: GameSpec, settings: GameSettings) -> Iterator[tuple[int, int, Any]]:
    """(players, game number, options) of every random game a check plays."""
    for players in sizes(spec):
        options = spec.short_options(players)
        for number in range(settings.games):
            yield players, number, options


def playout(spec: GameSpec, options: Any, seed: object, rng: random.Random, *,
            record: bool = True, step: Callable[[Any, int, list[str]], None] | None = None
            ) -> tuple[list[tuple[int, str]], list[Any], Any]:
    """A random game to its end: (actions, events, the final state); Failed when it does not
    end within :data:`MAX_DECISIONS`."""
    state = spec.new_state(options, seed, record_events=record)
    actions: list[tuple[int, str]] = []
    events = list(state.take_events())
    while state.to_act():
        expect(len(actions) < MAX_DECISIONS, f"{options.players} players, seed {seed!r}: no end "
               f"after {MAX_DECISIONS} decisions")
        seat = rng.choice(state.to_act())
        legal = list(state.legal_actions(seat))
        if step is not None:
            step(state, seat, legal)
        action = rng.choice(legal)
        state.apply(seat, action)
        actions.append((seat, action))
        events.extend(state.take_events())
    return actions, events, state


def check_options(spec: GameSpec, settings: GameSettings) -> None:
    """Every option has help, ``players`` comes first, the defaults make a table, and wrong
    options are refused with an :class:`OptionsError` that says why."""
    fields = spec.option_fields()
    expect(fields and fields[0].name == "players", "the options' first field is not `players`")
    for field in fields:
        expect(field.metadata.get("help"), f"option {field.name!r} has no help text")
    default = spec.parse_options({})
    expect(isinstance(default, spec.options_type), "parse_options({}) is not an options_type")
    expect(spec.min_players <= default.players <= spec.max_players,
           f"the default players ({default.players}) are outside {spec.min_players}-"
           f"{spec.max_players}")
    wrong: list[dict[str, Any]] = [{"no_such_option": 1}, {"players": spec.max_players + 1},
             {"players": spec.min_players - 1}, {"players": "many"}]
    for raw in wrong:
        try:
            spec.parse_options(raw)
        except OptionsError as exc:
            expect(str(exc).strip(), f"parse_options({raw}) is refused without a reason")
        except Exception as exc:  # a refusal, but not one the command line can show
            raise Failed(f"parse_options({raw}) raises {type(exc).__name__} ({exc}), not "
                         "OptionsError") from None
        else:
            raise Failed(f"parse_options({raw}) is accepted")


def check_legal(spec: GameSpec, settings: GameSettings) -> None:
    """At every decision: the acting seats are distinct seats, each with a short list of
    distinct one-line tokens, a default among them, and the others with none; a token not in
    the list (or from a seat that need not act) is refused without a change."""

    def step(state: Any, seat: int, legal: list[str]) -> None:
        players = state.num_players
        acting = state.to_act()
        expect(len(set(acting)) == len(acting) and all(0 <= s < players for s in acting),
               f"to_act() is {acting}")
        expect(not state.is_over() and state.result() is None,
               "is_over() or result() while seats must act")
        expect(0 < len(legal) < MAX_LEGAL_ACTIONS, f"seat {seat}'s legal list has "
               f"{len(legal)} tokens (1 to {MAX_LEGAL_ACTIONS - 1})")
        expect(len(set(legal)) == len(legal), f"seat {seat}'s legal list repeats a token")
        bad = [t for t in legal if not t or "\n" in t or len(t) > 100]
        expect(not bad, f"token {bad[:1]} is empty, multi-line or over 100 characters")
        default = state.default_action(seat)
        expect(default is None or default in legal,
               f"seat {seat}'s default {default!r} is not in its legal list {legal[:5]}")
        expect(all(type(state.is_reaction(s)) is bool for s in acting), "is_reaction is no bool")
        idle = [s for s in range(players) if s not in acting]
        expect(not any(state.legal_actions(s) for s in idle),
               "a seat that need not act has legal actions")

    for players, number, options in tables(spec, settings):
        playout(spec, options, f"legal{number}", settings.rng("legal", players, number),
                step=step)
        refuses_illegal(spec, options, settings.rng("illegal", players, number))


def refuses_illegal(spec: GameSpec, options: Any, rng: random.Random) -> None:
    state = spec.new_state(options, "illegal", record_events=True)
    state.take_events()
    players = options.players
    for _ in range(ILLEGAL_PROBES):
        if state.is_over():
            return
        acting = state.to_act()
        seat = rng.choice(acting)
        legal = state.legal_actions(seat)
        before = [to_json(state.observe(s)) for s in range(players)]
        probes = [(seat, "no such action"), (seat, ""), (players + 3, legal[0])]
        probes += [(s, legal[0]) for s in range(players) if s not in acting][:1]
        for probe_seat, token in probes:
            try:
                state.apply(probe_seat, token)
            except IllegalAction:
                pass
            else:
                raise Failed(f"seat {probe_seat} may play {token!r} when it should be refused")
            expect([to_json(state.observe(s)) for s in range(players)] == before,
                   f"refusing seat {probe_seat}'s {token!r} changed an observation")
            expect(state.take_events() == [], f"refusing {token!r} emitted events")
        state.apply(seat, rng.choice(legal))
        state.take_events()


def check_end(spec: GameSpec, settings: GameSettings) -> None:
    """Every random game ends, with a result for every seat: ranks from the scores, winners
    ranked first, a JSON reveal."""
    for players, number, options in tables(spec, settings):
        _, _, state = playout(spec, options, f"end{number}", settings.rng("end", players, number))
        expect(state.is_over() and state.to_act() == (), "the game is not over at its end")
        result = state.result()
        expect(result is not None and len(result.scores) == players,
               f"the result has no score for each of {players} seats")
        ranks = tuple(1 + sum(o > s for o in result.scores) for s in result.scores)
        expect(result.ranks == ranks, f"ranks {result.ranks} do not follow scores "
               f"{result.scores}")
        expect(result.winners and all(result.ranks[w] == 1 for w in result.winners),
               f"winners {result.winners} are not the seats ranked first")
        json.loads(to_json(result.reveal))


def check_replay(spec: GameSpec, settings: GameSettings) -> None:
    """A game is a function of its options, seed and actions: the same actions from the same
    seed give the same events and result, recorded or not."""
    for players, number, options in tables(spec, settings):
        seed = f"replay{number}"
        actions, events, state = playout(spec, options, seed,
                                         settings.rng("replay", players, number))
        for record in (True, False):
            again = spec.new_state(options, seed, record_events=record)
            replayed = list(again.take_events())
            for seat, action in actions:
                again.apply(seat, action)
                replayed.extend(again.take_events())
            expect(replayed == (events if record else []), f"{players} players, seed {seed!r}: "
                   f"the replay's events differ (recording events: {record})")
            expect(again.result() == state.result(),
                   f"{players} players, seed {seed!r}: the replay's result differs")


def check_clone(spec: GameSpec, settings: GameSettings) -> None:
    """A clone played to the end leaves its original untouched, and both end alike when
    played the same way."""
    for players, number, options in tables(spec, settings):
        rng = settings.rng("clone", players, number)
        actions, _, _ = playout(spec, options, number, random.Random(rng.random()),
                                record=False)
        state = spec.new_state(options, number)
        for seat, action in actions[:min(CLONE_AFTER, len(actions) // 2)]:
            state.apply(seat, action)
        if not state.to_act():
            continue
        twin = state.clone()
        snapshot = [to_json(state.observe(s)) for s in range(players)]
        finish_seed = rng.random()
        playout_from(twin, random.Random(finish_seed))
        expect([to_json(state.observe(s)) for s in range(players)] == snapshot,
               f"{players} players: playing a clone on changed the original's observations")
        playout_from(state, random.Random(finish_seed))
        expect(state.result() == twin.result(),
               f"{players} players: a clone and its original played alike end differently")


def playout_from(state: Any, rng: random.Random) -> None:
    for _ in range(MAX_DECISIONS):
        if not state.to_act():
            return
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    raise Failed(f"no end after {MAX_DECISIONS} decisions")


def check_simultaneous(spec: GameSpec, settings: GameSettings) -> None:
    """Where several seats act at once, answering in another order changes nothing."""
    seen = 0
    for players, number, options in tables(spec, settings):
        rng = settings.rng("together", players, number)
        state = spec.new_state(options, number)
        while state.to_act():
            acting = state.to_act()
            if len(acting) > 1:
                seen += 1
                choices = {s: rng.choice(state.legal_actions(s)) for s in acting}
                forward, backward = state.clone(), state.clone()
                for s in acting:
                    forward.apply(s, choices[s])
                for s in reversed(acting):
                    backward.apply(s, choices[s])
                expect([to_json(forward.observe(s)) for s in range(players)] == [
                    to_json(backward.observe(s)) for s in range(players)],
                    f"{players} players: answers {choices} in another order give other "
                    "observations")
            seat = rng.choice(acting)
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    if not seen:
        raise NotApplicable("no two seats ever acted at once")


def check_schemas(spec: GameSpec, settings: GameSettings) -> None:
    """Every observation is the declared attrs class, a JSON object of its fields; every event
    is a declared kind with its declared fields, in order, JSON, seen by seats of the table."""
    expect(attrs.has(spec.observation_type), "observation_type is not an attrs class")
    object_schema(spec.observation_type)  # its fields' types have a JSON Schema
    names = [field.name for field in attrs.fields(spec.observation_type)]

    def step(state: Any, seat: int, legal: list[str]) -> None:
        for s in range(state.num_players):
            observation = state.observe(s)
            expect(isinstance(observation, spec.observation_type),
                   f"observe({s}) is a {type(observation).__name__}, not "
                   f"{spec.observation_type.__name__}")
            shown = json.loads(to_json(observation))
            expect(list(shown) == names, f"observe({s})'s JSON has fields {list(shown)}, "
                   f"declared {names}")

    for players, number, options in tables(spec, settings):
        _, events, _ = playout(spec, options, f"schema{number}",
                               settings.rng("schema", players, number), step=step)
        for event in events:
            expect(event.kind in spec.events, f"event {event.kind!r} is not declared")
            fields = spec.events[event.kind].fields
            expect(tuple(event.data) == fields, f"event {event.kind!r} has fields "
                   f"{tuple(event.data)}, declared {fields}")
            json.loads(to_json(event.data))
            expect(event.audience is None or (
                event.audience and all(0 <= s < players for s in event.audience)),
                f"event {event.kind!r}'s audience {event.audience} is not seats of the table")
