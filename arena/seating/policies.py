"""Who sits where, and when a table starts: seating policies, pure (no I/O, time as an input).

The server tells a policy what happens to sessions (a connection said hello, is idle and ready
for a seat, has gone, a table's game is over, time has passed) and the policy answers with the
tables that start now: :class:`SeatedTable`, each naming which session holds each seat, the
names shown, the entrant per seat (for results), and the game's seed and options when the
policy chooses them.  The server never branches on which policy it runs:

- :class:`ArrivalSeating` (``arena serve``): sessions wait in arrival order; whenever enough
  are waiting, the first ones make a table.  After a game a bot waits again at the back.  A
  newcomer waits :data:`NEWCOMER_SETTLE` seconds before it may be seated, so a client that
  says hello and closes at once is dropped before it costs anyone a table; until it has
  finished a game it sits only with other newcomers for :data:`NEWCOMER_PROBATION` seconds,
  so one that leaves once seated costs the bots that play here no table either.
- :class:`RosterSeating` (``arena match``): a fixed list of bots, known by their tokens, plays a
  series of games one after another; seats rotate each game (in game g, bot i sits at seat
  (i + g) mod n) so every bot deals first in turn.  A bot that is not there when a game starts
  (never connected by the deadline, crashed) is absent from it: the default policy plays its
  seat.
- :class:`ScheduledSeating` (``arena tournament``): a schedule's tables, each with its seats,
  seed and duplicate set, run K at a time by instances of each entrant.

Sessions are opaque hashable values here; the server passes its own.  A seat is first-class:
reconnection and spectators will be a rebinding of a seat, not a branch in the server.

The interface and its values are in :mod:`arena.seating.interface`, the policies in
:mod:`arena.seating.arrival`, :mod:`arena.seating.roster` and :mod:`arena.seating.scheduled`;
this module lists them all, for the importers that want any.
"""

from arena.seating.arrival import NEWCOMER_PROBATION, NEWCOMER_SETTLE, ArrivalSeating, load_registry
from arena.seating.interface import Admission, SeatedTable, Seating, SeatingStatistics
from arena.seating.roster import RosterEntry, RosterSeating, TokenBook
from arena.seating.scheduled import Instance, ScheduledSeating

__all__ = ["NEWCOMER_PROBATION", "NEWCOMER_SETTLE", "Admission", "ArrivalSeating", "Instance",
           "RosterEntry", "RosterSeating", "ScheduledSeating", "SeatedTable", "Seating",
           "SeatingStatistics", "TokenBook", "load_registry"]
