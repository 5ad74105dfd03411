from __future__ import annotations

import pytest

from protocol.ratelimit import TokenBucket


def test_a_burst_then_the_average_rate():
    bucket = TokenBucket(rate=10, burst=20)
    assert all(bucket.allow(0.0) for _ in range(20))
    assert not bucket.allow(0.0)  # the burst is spent
    assert bucket.allow(0.1) and not bucket.allow(0.1)  # one token per 0.1 s
    # a peer that keeps to the rate is never refused
    assert all(bucket.allow(1.0 + i * 0.1) for i in range(100))
    assert TokenBucket(5).burst == 10
    with pytest.raises(ValueError):
        TokenBucket(0)
