"""The one interface every game implements.

A game is a *spec* (name, seat range, options, how to start) plus a *state*, modelled on
OpenSpiel: who must act now, each acting seat's legal actions as short text tokens, apply,
what one seat observes, and the result.  Everything here is pure and deterministic: the only
randomness is the :class:`~arena.games.chance.Chance` a state is given (by default one derived
from its seed), so a game is a function of (options, seed, actions).

Edges:
- ``to_act()`` is empty exactly when the game is over; several seats may act at once
  (simultaneous secret decisions): each answers independently and the game reveals the
  outcome when the last of them has answered.
- ``legal_actions(seat)`` is non-empty for every seat in ``to_act()`` and stays short
  (at most :data:`MAX_LEGAL_ACTIONS` tokens): large choices are split into small decisions.
- ``apply`` raises :class:`IllegalAction` and leaves the state untouched when the seat may not
  act now or the token is not in its legal list.
- ``default_action(seat)`` names what the server plays for a seat that timed out, ran out of
  tries or left; ``None`` means a uniform draw from the legal list (the match driver's
  ``default`` stream).  A game uses it where a random choice would be harmful (a vollewolle bid
  that spends wool).
- ``is_reaction(seat)`` is True when the seat's current decision is a reaction window (several
  seats may play a special card or pass): the match driver then gives it the shorter reaction
  time limit instead of the move time limit.  False for ordinary decisions.
- Events describe what happens; each carries its audience (``None`` = every seat), and only
  that audience may ever see it.  A state records events only when asked to
  (``record_events=True``); self-play for search or benchmarks runs without them.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from arena.games.chance import Chance
from arena.games.drawing import Drawing

#: Every decision's legal list stays under this many tokens, in every game.
MAX_LEGAL_ACTIONS = 100


class IllegalAction(ValueError):
    """The seat may not act now, or the token is not one of its legal actions."""


class OptionsError(ValueError):
    """Game options that do not make a valid table (unknown name, bad value)."""


@attrs.frozen
class GameEvent:
    """Something that happened, as the seats in ``audience`` see it.

    ``kind`` names the event (``card_played``); ``data`` holds JSON-able fields.  ``audience``
    is ``None`` for a public event, or the frozenset of seats allowed to see it.
    """

    kind: str
    data: Mapping[str, Any]
    audience: frozenset[int] | None = None

    def visible_to(self, seat: int) -> bool:
        return self.audience is None or seat in self.audience


class EventLog:
    """A game's events since the last :meth:`take`, or nothing at all when not recording
    (self-play for search and benchmarks pays only a check per event)."""

    __slots__ = ("_events",)

    def __init__(self, record: bool) -> None:
        self._events: list[GameEvent] | None = [] if record else None

    def emit(self, kind: str, data: Mapping[str, Any],
             audience: frozenset[int] | None = None) -> None:
        if self._events is not None:
            self._events.append(GameEvent(kind, data, audience))

    def take(self) -> list[GameEvent]:
        if not self._events:
            return []
        events, self._events = self._events, []
        return events

    def copy(self) -> EventLog:
        twin = EventLog(False)
        twin._events = None if self._events is None else list(self._events)
        return twin


@attrs.frozen
class Result:
    """The end of a game: a score per seat, competition ranks (1 = best, ties share),
    the winners (every seat ranked 1), what was hidden until now, and how many rounds (hands,
    turns) were played."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    reveal: Mapping[str, Any] = attrs.field(factory=dict)
    rounds: int | None = None

    @classmethod
    def from_scores(cls, scores: Sequence[int], reveal: Mapping[str, Any] | None = None,
                    rounds: int | None = None) -> Result:
        ranks = tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)
        winners = tuple(seat for seat, rank in enumerate(ranks) if rank == 1)
        return cls(tuple(scores), ranks, winners, dict(reveal or {}), rounds)


class GameState(Protocol):
    """A game in progress.  Internal representation is the game's own business."""

    @property
    def num_players(self) -> int: ...

    def to_act(self) -> tuple[int, ...]:
        """Seats that must act now; empty when the game is over."""

    def legal_actions(self, seat: int) -> Sequence[str]:
        """The acting seat's legal action tokens; empty for a seat that need not act."""

    def apply(self, seat: int, action: str) -> None:
        """Play ``action`` for ``seat``; raises :class:`IllegalAction` without changing anything."""

    def observe(self, seat: int) -> Any:
        """What ``seat`` may see now: a frozen attrs value, enough to act on its own."""

    def take_events(self) -> list[GameEvent]:
        """Events recorded since the last call (empty unless recording)."""

    def default_action(self, seat: int) -> str | None:
        """What the server plays for ``seat`` when its bot does not answer in time, runs out of
        tries or has left: one of its legal actions, or ``None`` for a uniform draw."""

    def is_reaction(self, seat: int) -> bool:
        """True when ``seat``'s current decision is a reaction window (answered within the
        shorter reaction time limit); False for ordinary decisions."""

    def is_over(self) -> bool: ...

    def result(self) -> Result | None:
        """The result once the game is over, else ``None``."""

    def clone(self) -> GameState:
        """An independent copy (RNG streams included) for search."""


class StateBase:
    """What every game's state repeats, written once: ``num_players`` (``self.n``), ``to_act``
    (``self._acting``, kept up to date by the game), ``take_events`` (``self.events``, an
    :class:`EventLog`), no reaction windows and a uniform default unless the game says
    otherwise, and ``clone``: a shallow copy whose chance and events are copied, and whose
    lists named in ``COPIED`` (one level) and ``COPIED_NESTED`` (lists of lists) are copied;
    a game copies anything deeper in ``_cloned``."""

    n: int
    _acting: Any  # the seats to act (a game may compute it lazily, from None)
    chance: Chance
    events: EventLog
    #: Fields holding lists the game changes in place: each clone gets its own.
    COPIED: tuple[str, ...] = ()
    COPIED_NESTED: tuple[str, ...] = ()

    @property
    def num_players(self) -> int:
        return self.n

    def to_act(self) -> tuple[int, ...]:
        return self._acting

    def take_events(self) -> list[GameEvent]:
        return self.events.take()

    def default_action(self, seat: int) -> str | None:
        return None

    def is_reaction(self, seat: int) -> bool:
        return False  # no reaction windows: every decision has the move time limit

    def clone(self) -> Any:
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.chance = self.chance.clone()
        twin.events = self.events.copy()
        for name in self.COPIED:
            setattr(twin, name, list(getattr(self, name)))
        for name in self.COPIED_NESTED:
            setattr(twin, name, [list(inner) for inner in getattr(self, name)])
        self._cloned(twin)
        return twin

    def _cloned(self, twin: Any) -> None:
        """Copy what ``COPIED`` and ``COPIED_NESTED`` do not reach (deeper lists, helpers)."""


class NewState(Protocol):
    """How a game starts: from its options and a seed, optionally with events recorded and with
    a chance other than the seed's own (a test's scripted dice, say)."""

    def __call__(self, options: Any, seed: object, *, record_events: bool = False,
                 chance: Chance | None = None) -> GameState: ...


@attrs.frozen
class EventSpec:
    """One kind of event a game emits: the fields of its ``data`` (in order) and who sees it
    (for SPEC.md: "all", "that seat", ...)."""

    fields: tuple[str, ...]
    seen_by: str = "all"


#: One world a seat cannot tell from another: a renaming of shuffled items (applied to every
#: shuffle) and the action history of the original world translated into the new one.
OtherWorld = tuple[Mapping[Any, Any], list[tuple[int, str]]]


@attrs.frozen
class GameSpec:
    """How to make tables of one game.

    ``parse_options`` turns a mapping of option names to values (strings from a command line are
    fine) into the game's frozen options value (an instance of ``options_type``, whose attrs
    fields carry a ``help`` text in their metadata), raising :class:`OptionsError`; every game's
    options have a ``players`` field (the seats at a table).  ``new_state`` starts a game.
    ``info`` is static, public reference data sent to bots at game start (a card table, say).

    What the shared test batteries need, so they run for every game without naming one:
    ``observation_type`` (the attrs class ``observe`` returns), ``events`` (every event kind
    with its fields), and ``other_world(state, seat, actions, rng)``: a world that ``seat``
    cannot tell apart from the one ``state`` reached through ``actions``, with everything it
    may not know (other hands, the deck's order, secret bids) changed at random.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    parse_options: Callable[[Mapping[str, Any]], Any]
    new_state: NewState
    options_type: type
    observation_type: type
    events: Mapping[str, EventSpec]
    other_world: Callable[[Any, int, Sequence[tuple[int, str]], Any], OtherWorld]
    info: Callable[[Any], Mapping[str, Any]] = lambda options: {}
    round_name: str = "round"  # what a Result's ``rounds`` counts: "hand" for card games
    #: Options a tournament game takes unless the organiser sets them, by table size (chochlik:
    #: as many hands as players, so every seat deals once).
    tournament_options: Callable[[int], Mapping[str, Any]] = lambda players: {}
    #: Some decisions are reaction windows (``GameState.is_reaction``); False: none ever is.
    reaction_windows: bool = False
    #: Options that keep a game short, on top of the defaults (a check-bot series, the shared
    #: test batteries): ``{"hands": 1}``; see :meth:`short_options`.
    short_game: Mapping[str, Any] = attrs.field(factory=dict)
    #: The built-in bot that plays this game well (``arena match`` and ``arena play`` know it
    #: by this name; it runs ``reference_bots/<name with _ for ->.py``), or None.
    reference_bot: str | None = None
    #: How ``arena play`` draws the game for a person (None: every field as ``name: value``).
    drawing: Drawing | None = None
    #: The game's built-in bots, by the command name ``arena match --bot`` knows them by (the
    #: game's name, a dash, their role: ``chochlik-heuristic``, ``chochlik-boss``): the module
    #: each runs as (``python -m <module>``, the ARENA_* variables saying where to connect).
    #: ``reference_bot`` is one of them.
    bots: Mapping[str, str] = attrs.field(factory=dict)
    #: The pages' board of the game: a :class:`arena.games.board.Board` subclass, pure (None:
    #: the plain board, each event as its fields).
    board: type | None = None
    #: The module of the game's training-environment encoding (``arena.envs``), imported when
    #: an environment of the game is made: ``ACTIONS`` (the action index space: every token,
    #: or None for the legal list's positions) and ``encode(observation) -> float32 vector``.
    encoding: str | None = None
    #: Whether a tournament plays duplicate sets unless told (``--duplicate``): True where a
    #: duplicate set measured with clearly less variance than independent games
    #: (``benchmarks/studies/duplicate_variance.py``; the built-in games measured none so:
    #: figures in docs/organisers/tournaments.md "Duplicate or independent").
    duplicate_default: bool = False
    #: ``arena play --ask worthwhile``: ``"module:factory"``, ``factory(seat, info)`` an
    #: object whose ``offers(request)`` says which choices of a reaction window are worth a
    #: person's look (a set; empty: none, decline with its ``decline`` token), or None (ask).
    worthwhile: str | None = None
    #: Where the game's section of the protocol document is (``"package:file.md"``, read with
    #: :func:`section_text`), for a game from elsewhere; None: in arena's own SPEC.md.
    spec_section: str | None = None

    def option_fields(self) -> list[attrs.Attribute]:
        """The game's options (``players`` first), each with ``metadata["help"]``."""
        return list(attrs.fields(self.options_type))

    def short_options(self, players: int) -> Any:
        """The options of a short game at a table of ``players``."""
        return self.parse_options({"players": players, **self.short_game})

    def options_to_dict(self, options: Any) -> dict[str, Any]:
        return attrs.asdict(options)


def section_text(spec: GameSpec) -> str | None:
    """The text of the game's own SPEC section (``spec.spec_section``), or None."""
    if spec.spec_section is None:
        return None
    package, _, name = spec.spec_section.partition(":")
    return importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8")
