"""A token bucket: how many messages a peer may send, on average and in a burst.

Pure: the caller passes the time (any monotonic clock, in seconds)."""

from __future__ import annotations


class TokenBucket:
    __slots__ = ("rate", "burst", "_tokens", "_last")

    def __init__(self, rate: float, burst: float | None = None) -> None:
        """``rate`` messages per second on average, up to ``burst`` at once (2 s worth by
        default)."""
        if rate <= 0:
            raise ValueError("the rate must be positive")
        self.rate = rate
        self.burst = burst if burst is not None else 2 * rate
        self._tokens = self.burst
        self._last: float | None = None

    def _refill(self, now: float) -> None:
        if self._last is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def allow(self, now: float) -> bool:
        """Take one message's token at time ``now``; False when the peer is over its rate."""
        self._refill(now)
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    def reserve(self, now: float, patience: float) -> float | None:
        """Take a token at ``now`` or book the next free one: the seconds until it is there
        (0: now); None, and nothing taken, when that is more than ``patience`` seconds away."""
        self._refill(now)
        wait = max(0.0, (1 - self._tokens) / self.rate)
        if wait > patience:
            return None
        self._tokens -= 1
        return wait

    def charge(self, now: float, cost: float) -> None:
        """Take ``cost`` tokens at time ``now`` whatever is left: a debt is paid back by the
        refill before the next message is allowed (what the peer made us send, say)."""
        self._refill(now)
        self._tokens -= cost

    def full(self, now: float) -> bool:
        """The bucket is full again at ``now`` (it remembers nothing worth keeping)."""
        if self._last is None:
            return True
        return self._tokens + (now - self._last) * self.rate >= self.burst
