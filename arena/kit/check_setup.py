"""The setting of ``arena check-bot``'s scripted series: its settings, the checker's
``welcome``, what it accepts as ``hello``, and the deals it chooses."""

from __future__ import annotations

import random
from typing import Any

import attrs

from arena.edge.config import ServerConfig
from arena.games.base import GameSpec
from protocol.messages import Hello, Welcome

#: Seeds tried per game to find a deal where the bot's seat meets a reaction window early.
SEED_CANDIDATES = 20
#: Decisions of a random playout looked at per candidate seed.
SEED_LOOKAHEAD = 40
#: The bytes check-bot queues for a bot that reads slowly (its welcome's ``max_queued_bytes``).
CHECKER_QUEUED_BYTES = 4 * 1024 * 1024


@attrs.frozen
class Disguise:
    """A hosted version's validation (:mod:`arena.kit.hosted`): the series as a ladder's games
    look to the bot, so it cannot tell the two apart and play well only when checked."""

    #: What ``arena serve`` sends (:meth:`~arena.edge.config.ServerConfig.welcome`).
    welcome: Welcome
    #: The bot's own name (its registered one).
    name: str
    #: The other seats' names (at least the table's seats less one), as participants' are.
    opponents: tuple[str, ...]
    #: Game ids as a server's: ``{run_id}-t{table}``.
    run_id: str
    #: Each game's table number.
    tables: tuple[int, ...]


@attrs.frozen
class SeriesSettings:
    spec: GameSpec
    options: Any
    games: int
    seed: str
    move_timeout: float
    reaction_timeout: float
    hello_timeout: float
    connect_timeout: float
    reconnect_grace: float
    exit_grace: float
    token: str | None  # the token the bot was given; None over stdin/stdout (no reconnect)
    #: A hosted validation's disguise; None: check-bot says who it is (to a bot's author).
    disguise: Disguise | None = None


def hello_problem(settings: SeriesSettings, hello: Hello) -> str | None:
    """What is wrong with the bot's hello (None: nothing)."""
    if hello.role == "spectator":
        return "hello asked to be a spectator"
    token = settings.token
    if token is None or hello.token == token:
        return None
    if hello.token is None:
        return ("hello carried no token (read it from the file named by ARENA_TOKEN_FILE "
                "or {token_file}: arena match seats bots by their token)")
    return "hello carried a token other than the one in ARENA_TOKEN_FILE"


def welcome(s: SeriesSettings) -> Welcome:
    """The checker's welcome: the limits of §5 as the checker applies them (a hosted
    validation's: the server's), written as a server's (one copy of the limits' fields)."""
    if s.disguise is not None:
        return s.disguise.welcome
    grace = s.reconnect_grace if s.token is not None else 0.0
    config = ServerConfig(s.spec, s.options, move_timeout=s.move_timeout,
                          reaction_timeout=s.reaction_timeout, hello_timeout=s.hello_timeout,
                          idle_timeout=None, max_queued_bytes=CHECKER_QUEUED_BYTES,
                          reconnect_grace=grace)
    return attrs.evolve(config.welcome(), server="arena check-bot")


def first_reaction(spec: GameSpec, options: Any, seed: str, seat: int) -> int | None:
    """In a random playout of ``seed``, after how many decisions ``seat`` is first asked a
    reaction-window decision (None: not within :data:`SEED_LOOKAHEAD`)."""
    state = spec.new_state(options, seed)
    rng = random.Random(seed)
    for step in range(SEED_LOOKAHEAD):
        if state.is_over():
            return None
        acting = state.to_act()
        if seat in acting and state.is_reaction(seat):
            return step
        actor = acting[0]
        state.apply(actor, rng.choice(list(state.legal_actions(actor))))
    return None


def pick_seed(spec: GameSpec, options: Any, base: str, seat: int) -> str:
    """A seed derived from ``base`` whose deal brings ``seat`` a reaction window soonest (for
    games without windows, the first candidate)."""
    candidates = [f"{base}:{n}" for n in range(SEED_CANDIDATES)]
    soonest = [(step, seed) for seed in candidates
               if (step := first_reaction(spec, options, seed, seat)) is not None]
    return min(soonest)[1] if soonest else candidates[0]
