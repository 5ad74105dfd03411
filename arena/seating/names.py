"""The names players are shown under on ``arena serve``: pure bookkeeping, no I/O.

A name is compared without case.  On an open server (no ``--tokens``) a name proves nothing:
two bots that both say ``random`` are two players, told apart as ``random`` and ``random#2``
(the lowest free number; a number is free again once its holder has left).  With registered
players a name is a player: a second live connection for it is refused (``token_in_use``).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable

from protocol.errors import ErrorCode
from protocol.limits import MAX_NAME_CHARS
from protocol.messages import Info

#: What separates a name from the number that tells same-named bots apart.
NUMBER_MARK = "#"


def numbered(name: str, number: int) -> str:
    """``name`` told apart by ``number`` (1: the name itself); cut so it stays a valid name."""
    if number <= 1:
        return name
    suffix = f"{NUMBER_MARK}{number}"
    return name[:MAX_NAME_CHARS - len(suffix)] + suffix


class NameBook:
    """Who holds which name now, one live holder per name (compared without case)."""

    def __init__(self) -> None:
        self.holder: dict[str, Hashable] = {}  # casefolded name -> its live holder
        self.held: dict[Hashable, str] = {}  # holder -> its name
        # numbered names, by the casefolded name they tell apart: the highest number given,
        # the numbers given back (a heap), and which number each holder has
        self.top: dict[str, int] = {}
        self.returned: dict[str, list[int]] = {}
        self.number_of: dict[Hashable, tuple[str, int]] = {}

    def take(self, holder: Hashable, name: str) -> bool:
        """Give ``name`` to ``holder`` if nobody holds it; False if somebody does."""
        key = name.casefold()
        if key in self.holder:
            return False
        self.holder[key] = holder
        self.held[holder] = name
        return True

    def take_numbered(self, holder: Hashable, name: str) -> str:
        """Give ``holder`` the name itself if it is free, else ``name#2``, ``name#3``, ...
        (the lowest free); returns the name given.  Numbers given back are used first, so
        a thousand bots with one name cost no more than a thousand with different names."""
        key = name.casefold()
        returned = self.returned.setdefault(key, [])
        skipped = []  # numbers whose name somebody chose for itself: given back after
        while True:
            if returned:
                number = heapq.heappop(returned)
            else:
                number = self.top[key] = self.top.get(key, 0) + 1
            if self.take(holder, numbered(name, number)):
                break
            skipped.append(number)
        for other in skipped:
            heapq.heappush(returned, other)
        self.number_of[holder] = (key, number)
        return self.held[holder]

    def release(self, holder: Hashable) -> None:
        """``holder`` has left: its name is free again (nothing happens for a stranger)."""
        name = self.held.pop(holder, None)
        if name is not None:
            self.holder.pop(name.casefold(), None)
        key, number = self.number_of.pop(holder, ("", 0))
        if number:
            returned = self.returned[key]
            heapq.heappush(returned, number)
            if len(returned) == self.top[key]:  # every number is back: forget the name
                del self.returned[key], self.top[key]

    def __len__(self) -> int:
        return len(self.held)


def renamed(asked: str, given: str) -> Info:
    """What a bot is told when it plays under another name than the one it said."""
    return Info(reason=ErrorCode.RENAMED.value, name=given,
                message=f"you play as {given!r} here ({asked!r} is another connected bot's "
                        "or not the name this server knows you by)")
