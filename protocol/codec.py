"""Lines to messages and back: one JSON object per line (NDJSON), UTF-8.

``encode`` leaves out top-level fields whose value is null.  ``decode`` never raises for bad
input: it returns a :class:`~protocol.errors.PeerError` that says what was wrong, so the edge can
send it back.  Unknown fields are ignored, so later protocol versions may add fields.
"""

from __future__ import annotations

import enum
import json
import json.encoder
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import orjson

from protocol.errors import ErrorCode, PeerError, quote
from protocol.limits import MAX_LINE_BYTES
from protocol.messages import CLIENT_MESSAGES, MAX_REQUEST_ID, SERVER_MESSAGES, Action

_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(field.name for field in attrs.fields(cls))
    return names


def _jsonable(value: Any) -> Any:
    """``json.dumps`` hook: attrs values become objects, sets sorted lists, enums values."""
    names = _FIELDS.get(type(value))  # an attrs class seen before (an observation, say)
    if names is not None or attrs.has(type(value)):
        names = names or _field_names(type(value))
        fields = getattr(value, "__dict__", None)  # an attrs class without slots
        if fields is not None and tuple(fields) == names:
            return fields  # its fields, in their order, and nothing else: the same object
        return {name: getattr(value, name) for name in names}
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"{type(value).__name__} is not JSON-able")


def _make_dumps() -> Callable[[Any], str]:
    """Compact JSON text, UTF-8 kept as is.  Where CPython's C encoder is there, it is made
    once and called directly (``JSONEncoder.encode`` makes a new one for every call, which
    costs more than encoding a short message); the output is the same."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_jsonable)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return encoder.encode
    chunks = make(None, _jsonable, json.encoder.encode_basestring, None, ":", ",",
                  False, False, True)
    return lambda value: "".join(chunks(value, 0))


_stdlib_dumps = _make_dumps()


def _make_fast_dumps() -> Callable[[Any], str]:
    """The same text as :func:`_make_dumps`'s, made by orjson (about 3.5 times faster on the
    games' observations and events).  What orjson refuses (an integer beyond 64 bits, a key
    that is not a string, a lone surrogate) goes the standard way, so the result is the same.
    Two differences, in values no message or game of arena's holds: a float below 1e-4 is
    written in orjson's form of the same number (``0.00001``, not ``1e-05``), and NaN and the
    infinities, which are not JSON, are written ``null`` (unless orjson refuses the value for
    another reason: the standard way then writes them as it always did)."""
    fast, default = orjson.dumps, _jsonable

    def dumps(value: Any) -> str:
        try:
            return fast(value, default=default).decode()
        except TypeError:
            return _stdlib_dumps(value)

    return dumps


_dumps = _make_fast_dumps()
_quote = json.encoder.encode_basestring
#: A str as JSON text (quoted and escaped as the encoder does; C).
quote_json: Callable[[str], str] = _quote


def to_json_value(value: Any) -> str:
    """As :func:`to_json`, with a short cut for the scalars most fields hold."""
    kind = type(value)
    if kind is str:
        return _quote(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    return _dumps(value)


def to_json(value: Any) -> str:
    """Any message, observation or event value as compact JSON text."""
    return _dumps(value)


def encode(message: Any, encoded: Mapping[str, str] | None = None) -> bytes:
    """The message as one line, newline included.  ``encoded`` gives the JSON text of some
    fields already encoded (an observation whose digest is logged, say): the line is the same
    as if they were encoded here, and the work is not done twice.  Raises ``ValueError`` when
    the line would be longer than the protocol allows (that is a bug on our side, not the
    peer's)."""
    if encoded:
        parts = ['{"type":', _quote(message.TYPE)]
        for name in _field_names(type(message)):
            value = getattr(message, name)
            if value is not None:
                text = encoded.get(name)
                parts.append(f',"{name}":{to_json_value(value) if text is None else text}')
        parts.append("}")
        line = "".join(parts).encode("utf-8")
    else:
        body: dict[str, Any] = {"type": message.TYPE}
        for name in _field_names(type(message)):
            value = getattr(message, name)
            if value is not None:
                body[name] = value
        line = _dumps(body).encode("utf-8")
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"{message.TYPE} message of {len(line)} bytes exceeds the line limit")
    return line + b"\n"


def _checked(text: str, kind: str) -> bytes:
    """``text`` (a line, its newline included) as bytes, checked against the line limit."""
    line = text.encode("utf-8")
    if len(line) > MAX_LINE_BYTES + 1:
        raise ValueError(f"{kind} message of {len(line) - 1} bytes exceeds the line limit")
    return line


def encode_event(kind: str, data_json: str) -> bytes:
    """The line of ``Event(kind=kind, data=data)`` (no ``to``), ``data_json`` being the JSON
    text of ``data`` (not null): the same bytes as :func:`encode` gives, without building the
    line field by field (an event goes out at every step of every game)."""
    return _checked(f'{{"type":"event","kind":{_quote(kind)},"data":{data_json}}}\n', "event")


def encode_request(request_id: int, legal_json: str, time_left_ms: int,
                   observation_json: str, time_bank_ms: int | None = None) -> bytes:
    """The line of a :class:`~protocol.messages.Request` whose legal list and (not null)
    observation are already JSON text: the same bytes as :func:`encode` gives."""
    # the numbers are ints (never bools: the driver makes them): formatted as JSON writes them
    bank = "" if time_bank_ms is None else f',"time_bank_ms":{time_bank_ms}'
    return _checked(f'{{"type":"request","id":{request_id},"legal":{legal_json},'
                    f'"time_left_ms":{time_left_ms},'
                    f'"observation":{observation_json}{bank}}}\n', "request")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"the key {quote(key)} appears twice in one object")
        obj[key] = value
    return obj


#: Strict JSON: no NaN or Infinity, no key twice in one object.
_loads = json.JSONDecoder(parse_constant=_no_constants, object_pairs_hook=_no_duplicates).decode


def _decode(line: bytes, catalogue: dict[str, type]) -> Any:
    try:
        obj = _loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return PeerError(ErrorCode.MALFORMED, "the line is not valid UTF-8")
    except (ValueError, RecursionError) as exc:
        return PeerError(ErrorCode.MALFORMED, f"the line is not JSON: {exc}")
    if not isinstance(obj, dict):
        return PeerError(ErrorCode.MALFORMED, "a message is a JSON object, like {\"type\": ...}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        return PeerError(ErrorCode.MALFORMED, "a message needs a string field \"type\"")
    cls = catalogue.get(kind)
    if cls is None:
        known = ", ".join(sorted(catalogue))
        return PeerError(ErrorCode.UNKNOWN_MESSAGE,
                         f"unknown message type {quote(kind)}; send {known}")
    fields = {name: obj[name] for name in _field_names(cls) if obj.get(name) is not None}
    missing = [field.name for field in attrs.fields(cls)
               if field.default is attrs.NOTHING and field.name not in fields]
    if missing:
        return PeerError(ErrorCode.MALFORMED,
                         f"message {kind!r} needs field(s) {', '.join(missing)}")
    try:
        return cls(**fields)
    except (TypeError, ValueError) as exc:
        return PeerError(ErrorCode.MALFORMED, f"bad {kind} message: {exc}")


#: An answer written the way most bots write it (compact, in this order, a plain token): read
#: without the general decoder.  Anything else goes the general way, with the same result.
_PLAIN_ACTION = re.compile(
    rb'\{"type":"action","id":(0|-?[1-9][0-9]{0,15}),"action":"([ -!#-\[\]-~]*)"\}[ \t\r\n]*')


_new = object.__new__
_set = object.__setattr__


def decode_client(line: bytes) -> Any:
    """A bot's line as a message (hello, action, bye), or a PeerError."""
    plain = _PLAIN_ACTION.fullmatch(line)
    if plain is not None:
        request_id = int(plain.group(1))
        if -MAX_REQUEST_ID <= request_id <= MAX_REQUEST_ID:
            # what Action's validators check holds (an int in range, a str): made without
            # running them, as attrs's own __init__ sets a frozen instance's fields
            action = _new(Action)
            _set(action, "id", request_id)
            _set(action, "action", plain.group(2).decode("ascii"))
            return action
    return _decode(line, CLIENT_MESSAGES)


def decode_server(line: bytes) -> Any:
    """A server's line as a message, or a PeerError (for bot clients)."""
    return _decode(line, SERVER_MESSAGES)
