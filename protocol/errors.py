"""Reason codes, shared by ``error`` messages, ``cancel`` reasons, ``bye`` reasons and
``info`` reasons."""

from __future__ import annotations

import enum

import attrs


class ErrorCode(enum.StrEnum):
    # the line itself
    MALFORMED = "malformed"  # not UTF-8 JSON, not an object, or a field of the wrong type
    LINE_TOO_LONG = "line_too_long"  # longer than MAX_LINE_BYTES; dropped up to its newline
    UNKNOWN_MESSAGE = "unknown_message"  # a "type" the protocol does not have
    UNEXPECTED_MESSAGE = "unexpected_message"  # a known message that is not allowed now
    # the greeting
    BAD_HELLO = "bad_hello"  # empty or over-long name, over-long token
    VERSION_MISMATCH = "version_mismatch"  # hello asked for another protocol version (fatal)
    WRONG_GAME = "wrong_game"  # hello named a game this server does not host (fatal)
    #: A server that hosts several games: hello named none of them (fatal).
    GAME_REQUIRED = "game_required"
    UNKNOWN_TOKEN = "unknown_token"  # a roster server does not know this token (fatal)
    TOKEN_IN_USE = "token_in_use"  # another live connection holds this token (fatal)
    BAD_TOKEN = "bad_token"  # the name is registered and this is not its token (fatal)
    TOKEN_NOT_YOURS = "token_not_yours"  # the token was given to another process (fatal)
    TOO_MANY_HELLOS = "too_many_hellos"  # the address said hello too often (fatal)
    # the session
    RENAMED = "renamed"  # ``info``: the bot plays under another name than it said
    # answers to requests
    WRONG_REQUEST_ID = "wrong_request_id"  # no such request is open for you
    STALE_REQUEST = "stale_request"  # the request was answered or cancelled: answer ignored
    ILLEGAL_ACTION = "illegal_action"  # not in the legal list; the list is sent again
    # spectators
    UNKNOWN_TABLE = "unknown_table"  # ``watch`` named no running table
    NOT_WATCHABLE = "not_watchable"  # a duplicate-set table: its deal is being played elsewhere
    NO_SPECTATORS = "no_spectators"  # this server admits no spectators (fatal)
    # the server acting for a seat, or ending something
    TIMEOUT = "timeout"  # no legal answer in time: a default action was played
    TOO_MANY_TRIES = "too_many_tries"  # MAX_TRIES bad answers: a default action was played
    SUPERSEDED = "superseded"  # the game moved on; the request no longer applies
    GAME_OVER = "game_over"  # the game ended with the request open
    TOO_MANY_ERRORS = "too_many_errors"  # MAX_CONSECUTIVE_ERRORS bad lines in a row (fatal)
    SLOW_READER = "slow_reader"  # the bot did not read its messages; connection closed
    TOO_MANY_CONNECTIONS = "too_many_connections"  # the server or this address is full (fatal)
    HELLO_TIMEOUT = "hello_timeout"  # no valid hello in time after welcome (fatal)
    TOO_FAST = "too_fast"  # more lines than the message rate allows (fatal)
    IDLE_TIMEOUT = "idle_timeout"  # waited too long without a seat (fatal)
    SERVER_SHUTDOWN = "server_shutdown"  # the server is stopping
    #: The server is stopping and will be back (a ladder's restart): come back with your token.
    SERVER_RESTART = "server_restart"
    INTERNAL_ERROR = "internal_error"  # a bug on the server's side ended the game
    ALL_SEATS_GONE = "all_seats_gone"  # every bot of a game left: it ends unfinished
    SERIES_OVER = "series_over"  # the last game of an `arena match` series is over
    EVENT_OVER = "event_over"  # `arena tournament` has no more games for this bot


#: Characters of a peer's own text quoted back to it in an error message, at most.
MAX_QUOTE_CHARS = 60


def quote(text: str) -> str:
    """The peer's text, shortened, for an error message: whatever the peer sent, the error
    line stays short."""
    shown = repr(text)
    if len(shown) <= MAX_QUOTE_CHARS:
        return shown
    return shown[:MAX_QUOTE_CHARS] + f"... ({len(text)} characters)"


@attrs.frozen
class PeerError:
    """The peer broke the protocol.  ``fatal`` errors close the connection."""

    code: ErrorCode
    detail: str
    fatal: bool = False
