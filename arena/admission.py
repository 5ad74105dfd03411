"""Hellos per address: a client that loops ``connect, hello, close`` is slowed down at the door.

Pure: the caller passes the time.  Each address gets a token bucket of ``rate`` hellos a second
on average and twice as many at once; buckets that have filled up again are forgotten, so the
memory kept is bounded by the addresses that said hello in the last few seconds.
"""

from __future__ import annotations

from protocol.ratelimit import TokenBucket

#: Addresses remembered before the full buckets are swept out.
SWEEP_AT = 1024


class HelloLimiter:
    def __init__(self, rate: float | None) -> None:
        """``rate``: hellos a second from one address on average (twice as many in a burst,
        at least one); None: no limit."""
        self.rate = rate
        self._buckets: dict[str, TokenBucket] = {}
        self._sweep_at = SWEEP_AT

    def allow(self, address: str, now: float) -> bool:
        """One hello from ``address`` at ``now``: False when it is over the limit."""
        if self.rate is None:
            return True
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            bucket = self._buckets[address] = TokenBucket(self.rate, max(1.0, 2 * self.rate))
        return bucket.allow(now)

    def _sweep(self, now: float) -> None:
        self._buckets = {address: bucket for address, bucket in self._buckets.items()
                         if not bucket.full(now)}
        self._sweep_at = max(SWEEP_AT, 2 * len(self._buckets))

    def __len__(self) -> int:
        return len(self._buckets)
