"""Hellos per address: a client that loops ``connect, hello, close`` is slowed down at the door.

Pure: the caller passes the time.  Each address gets a token bucket of ``rate`` connections
(each says one hello) a second on average and twice as many at once.  A connection beyond that
books the next free token and is welcomed only when it is due (a client that connects in a loop
is paced, one that connects many bots at once is only delayed); one that would wait more than
:data:`DOOR_PATIENCE` seconds is refused (``too_many_hellos``).  Buckets that have filled up
again are forgotten, so the memory kept is bounded by the addresses seen in the last seconds.
"""

from __future__ import annotations

from protocol.ratelimit import TokenBucket

#: Seconds a connection may be held at the door for its address's turn, at most.
DOOR_PATIENCE = 2.0
#: Addresses remembered before the full buckets are swept out.
SWEEP_AT = 1024


class HelloLimiter:
    def __init__(self, rate: float | None, patience: float = DOOR_PATIENCE) -> None:
        """``rate``: hellos a second from one address on average (twice as many in a burst,
        at least one); None: no limit."""
        self.rate = rate
        self.patience = patience
        self._buckets: dict[str, TokenBucket] = {}
        self._sweep_at = SWEEP_AT

    def admit(self, address: str, now: float) -> float | None:
        """A connection from ``address`` at ``now``: the seconds it waits before its welcome
        (0: none), or None when it is refused."""
        if self.rate is None:
            return 0.0
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            bucket = self._buckets[address] = TokenBucket(self.rate, max(1.0, 2 * self.rate))
        return bucket.reserve(now, self.patience)

    def _sweep(self, now: float) -> None:
        self._buckets = {address: bucket for address, bucket in self._buckets.items()
                         if not bucket.full(now)}
        self._sweep_at = max(SWEEP_AT, 2 * len(self._buckets))

    def __len__(self) -> int:
        return len(self._buckets)
