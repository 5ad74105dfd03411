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
    with pytest.raises(ValueError, match="must be positive"):
        TokenBucket(0)


def test_a_booked_token_and_a_charged_debt():
    bucket = TokenBucket(rate=4, burst=2)
    assert bucket.reserve(0.0, patience=1.0) == 0.0 and bucket.reserve(0.0, 1.0) == 0.0
    assert bucket.reserve(0.0, 1.0) == 0.25  # the next token, booked: a quarter second off
    assert bucket.reserve(0.0, 1.0) == 0.5
    assert bucket.reserve(0.0, 0.6) is None  # 0.75 s off: more than the patience, not taken
    assert bucket.reserve(0.0, 1.0) == 0.75
    assert not bucket.full(0.5) and bucket.full(1.25)
    debtor = TokenBucket(rate=1, burst=2)
    debtor.charge(0.0, 5)  # 2 - 5 = -3 tokens
    assert not debtor.allow(3.9) and debtor.allow(4.0)
