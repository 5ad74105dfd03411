"""Who is signed in on the author's page (:mod:`arena.web.author`), and what a request must
show before it changes anything.

- **Sessions** are kept by the pages' process, in memory: the browser holds only a random
  session id (:data:`SESSION_ID_BYTES` bytes) in a cookie (:data:`COOKIE`), ``HttpOnly``,
  ``SameSite=Strict``, ``Path=/author``, ``Secure`` when the page was asked for over https;
  nothing else (no name, no token).  A session ends after :data:`SESSION_SECONDS` (whatever is
  done meanwhile), when its author signs out, when the pages' process restarts, and as soon
  as its bot is no longer the registration it signed in as (removed, or removed and
  registered anew: :attr:`Session.identity`).  Ids are kept by their SHA-256 digest, so a
  lookup's timing tells nothing of a stored id.
- **CSRF**: each session has a random form token, written in each of its forms and compared
  in constant time on every POST (:func:`form_token_ok`); a POST whose ``Origin`` is another
  site's is refused before anything is read (:func:`same_origin`); the cookie is
  ``SameSite=Strict``, so another site's page never sends it anyway.
- **Rates** (:class:`Window`): failed sign-ins per client address and in all (no token is
  guessed by trying: a token has 128 random bits or more, and each failure counts), uploads
  per bot per hour.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import attrs

#: The session cookie's name.
COOKIE = "arena_author"
#: Random bytes of a session id and of a form token.
SESSION_ID_BYTES = 32
#: Seconds a session lasts from its sign-in (then its author signs in again).
SESSION_SECONDS = 8 * 3600
#: Sessions kept at most (the oldest ends first beyond).
MAX_SESSIONS = 10_000
#: Failed sign-ins from one address in :data:`SIGNIN_WINDOW` seconds (then refused until the
#: oldest is older than that).
SIGNIN_FAILURES = 5
#: Failed sign-ins from every address together in :data:`SIGNIN_WINDOW` seconds.
SIGNIN_FAILURES_ALL = 100
SIGNIN_WINDOW = 15 * 60.0
#: Keys a :class:`Window` holds before it forgets those with nothing in the window.
WINDOW_KEYS = 10_000


@attrs.frozen
class Session:
    #: The bot's registered name (its case), as it signed in.
    bot: str
    #: Its registration's lasting identity (:func:`arena.events.registry.identity`).
    identity: str
    #: The token every form of this session carries.
    form_token: str
    #: When it ends (the clock's time).
    ends: float


def _key(session_id: str) -> bytes:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).digest()


class Sessions:
    """The signed-in sessions of the pages' process (``clock``: seconds, monotonic)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 lasting: float = SESSION_SECONDS) -> None:
        self.clock = clock
        self.lasting = lasting
        self._sessions: collections.OrderedDict[bytes, Session] = collections.OrderedDict()

    def start(self, bot: str, identity: str) -> tuple[str, Session]:
        """A new session of ``bot``: (its id, for the cookie, and the session)."""
        session_id = secrets.token_urlsafe(SESSION_ID_BYTES)
        session = Session(bot, identity, secrets.token_urlsafe(SESSION_ID_BYTES),
                          self.clock() + self.lasting)
        self._sessions[_key(session_id)] = session
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return session_id, session

    def get(self, session_id: str | None) -> Session | None:
        """The live session of ``session_id`` (None: none, or ended)."""
        if not session_id:
            return None
        key = _key(session_id)
        session = self._sessions.get(key)
        if session is not None and self.clock() >= session.ends:
            del self._sessions[key]
            return None
        return session

    def end(self, session_id: str | None) -> None:
        if session_id:
            self._sessions.pop(_key(session_id), None)

    def __len__(self) -> int:
        return len(self._sessions)


def cookie_header(session_id: str, *, secure: bool, lasting: float = SESSION_SECONDS) -> str:
    """The ``Set-Cookie`` value that keeps ``session_id`` in the browser."""
    return (f"{COOKIE}={session_id}; Path=/author; Max-Age={int(lasting)}; HttpOnly; "
            "SameSite=Strict" + ("; Secure" if secure else ""))


def cleared_cookie(*, secure: bool) -> str:
    """The ``Set-Cookie`` value that removes the session cookie (signing out)."""
    return cookie_header("", secure=secure, lasting=0)


def form_token_ok(session: Session, given: str | None) -> bool:
    """Whether a form's token is its session's (constant time)."""
    return given is not None and hmac.compare_digest(
        session.form_token.encode(), given.encode("utf-8", "surrogatepass"))


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a POST came from a page of this site: its ``Origin`` names this host.  No
    ``Origin`` (not a browser, or an old one: the form token still has to match) is let
    through; ``null`` (a sandboxed or privacy-stripped page) is not."""
    if origin is None:
        return True
    return bool(host) and urlsplit(origin).netloc == host


class Window:
    """How many times each key did something in the last ``seconds`` (a sliding window),
    ``most`` allowed."""

    def __init__(self, most: int, seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.most = most
        self.seconds = seconds
        self.clock = clock
        self._times: dict[str, collections.deque[float]] = {}

    def _recent(self, key: str) -> collections.deque[float]:
        times = self._times.setdefault(key, collections.deque())
        now = self.clock()
        while times and now - times[0] >= self.seconds:
            times.popleft()
        if not times:
            del self._times[key]
        return times

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may do it again (0: now)."""
        times = self._recent(key)
        if len(times) < self.most:
            return 0.0
        return max(0.0, times[0] + self.seconds - self.clock())

    def add(self, key: str) -> None:
        if len(self._times) >= WINDOW_KEYS:  # (many addresses): the stale ones go
            for stale in list(self._times):
                self._recent(stale)
        self._recent(key)
        self._times.setdefault(key, collections.deque()).append(self.clock())


def in_minutes(seconds: float) -> str:
    """``3 minutes``: a wait said to a person (rounded up, at least a minute)."""
    minutes = max(1, -int(-seconds // 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
