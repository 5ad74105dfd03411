"""A registered bot's token at rest: how the registry makes one, how strong a token it accepts,
and what it keeps of it (a digest, never the token).

A token is random with at least :data:`MIN_TOKEN_BITS` bits, so a password hash (slow on
purpose, against guessing a chosen password) buys nothing: no one guesses 128 random bits.
The registry keeps a keyed BLAKE2b digest of it (the key: the row's random salt, so two rows
with the same token differ), checked in constant time; a check costs a microsecond, as much
for a wrong token as for a name that is not registered (:func:`digest_matches`).

Before issue 29 a row kept a scrypt hash (n=2**14, some 100 ms and 16 MB a check): a wrong
token cost the server that much, and a flood of them locked every bot out.  Such a row
(:attr:`Scheme.SCRYPT`) is checked with scrypt until its token is first accepted, then keeps
its digest instead."""

from __future__ import annotations

import enum
import hashlib
import hmac
import math
import secrets
import string

#: Random bytes in a token the registry makes (``arena bots add``): 192 bits.
TOKEN_BYTES = 24
#: Bits a token needs at least, judged by its length and alphabet (:func:`token_bits`).
MIN_TOKEN_BITS = 128
#: Random bytes of a row's salt: the digest's key and the registration's lasting identity.
SALT_BYTES = 16
#: Bytes of a token's digest.
DIGEST_BYTES = 32
#: BLAKE2b's personalisation: this digest is of an arena token, nothing else.
_PERSON = b"arena-token"
#: scrypt's cost (rows made before issue 29 only).
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1

_HEX = frozenset(string.hexdigits)
_URLSAFE = frozenset(string.ascii_letters + string.digits + "-_")


class Scheme(enum.Enum):
    """How a row's ``hash`` was made from its token (the ``scheme`` column)."""

    #: Keyed BLAKE2b (:func:`token_digest`): what every row is made with.
    DIGEST = "blake2b"
    #: scrypt (:func:`scrypt_hash`): a row made before issue 29, until its token is accepted.
    SCRYPT = "scrypt"


def _raw(token: str) -> bytes:
    # a hello's token is any JSON string: a lone surrogate must not raise
    return token.encode("utf-8", "surrogatepass")


def token_digest(token: str, salt: bytes) -> bytes:
    return hashlib.blake2b(_raw(token), key=salt, digest_size=DIGEST_BYTES,
                           person=_PERSON).digest()


#: What an unregistered name's token is compared with: the same work as a registered one's.
_NOBODY_SALT = secrets.token_bytes(SALT_BYTES)
_NOBODY_DIGEST = secrets.token_bytes(DIGEST_BYTES)


def digest_matches(token: str, salt: bytes | None, digest: bytes | None) -> bool:
    """Whether ``token``'s digest under ``salt`` is ``digest``, in constant time.  ``salt``
    and ``digest`` None (no such name): the same digest and comparison are made, with a
    random key and a random digest, and the answer is False."""
    known = salt is not None and digest is not None
    made = token_digest(token, salt if salt is not None else _NOBODY_SALT)
    return hmac.compare_digest(made, digest if digest is not None else _NOBODY_DIGEST) and known


def scrypt_hash(token: str, salt: bytes) -> bytes:
    """A row's hash before issue 29 (16 MB and some 100 ms: never on the event loop)."""
    return hashlib.scrypt(_raw(token), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                          maxmem=64 * 1024 * 1024, dklen=32)


def token_bits(token: str) -> float:
    """The bits ``token`` holds were it drawn at random from the smallest usual alphabet of
    its characters: hex digits (4 bits a character), URL-safe base64 (6), printable ASCII
    (about 6.6).  A token that is not random holds fewer: this is an upper bound."""
    characters = set(token)
    size = 16 if characters <= _HEX else 64 if characters <= _URLSAFE else 95
    return len(token) * math.log2(size)


def weak_token_problem(token: str) -> str | None:
    """Why the registry refuses ``token`` (None: it does not)."""
    if token_bits(token) >= MIN_TOKEN_BITS:
        return None
    return (f"a token needs at least {MIN_TOKEN_BITS} random bits: 32 hex digits, 22 "
            "characters of letters, digits, '-' and '_', or 20 of any printable kind "
            "(`arena bots add NAME` makes one)")


def new_token() -> str:
    """32 URL-safe characters (:data:`TOKEN_BYTES` random bytes), never a leading "-": a bot's
    command line (``--token TOKEN``) would read such a token as an option (so 191.9 bits)."""
    while True:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        if not token.startswith("-"):
            return token
