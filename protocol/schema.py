"""JSON Schema (draft 2020-12) of every protocol message, made from the message classes
themselves, so the schema cannot drift from what the server sends and accepts.

``protocol_schema()`` describes both directions: ``$defs`` holds one schema per message type
(``hello``, ``request``, ...) and the unions ``client_message`` (what a bot may send) and
``server_message`` (what it may receive).  ``value_schema(type)`` turns a Python type
annotation (attrs classes included) into a schema; the games use it for their observations
(``arena schema --game G``).  Fields that may be null may also be left out, and unknown fields
are allowed (later protocol versions may add some), as the protocol says.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping, Sequence, Set
from typing import Any

import attrs

from protocol.errors import ErrorCode
from protocol.messages import CLIENT_MESSAGES, MAX_REQUEST_ID, SERVER_MESSAGES

DRAFT = "https://json-schema.org/draft/2020-12/schema"

#: Fields whose value is an id in the request id range.
_ID_FIELDS = {("action", "id"), ("watch", "table"), ("hello", "protocol")}


def value_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of values of a Python type as the codec writes them."""
    if annotation is Any or annotation is object:
        return {}
    if annotation is type(None) or annotation is None:
        return {"type": "null"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if annotation is str:
        return {"type": "string"}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [member.value for member in annotation]}
    if isinstance(annotation, type) and attrs.has(annotation):
        return object_schema(annotation)
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [value_schema(argument) for argument in arguments]
        return {"anyOf": options}
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    if origin is not None and isinstance(origin, type):
        if issubclass(origin, Mapping):
            values = value_schema(arguments[1]) if len(arguments) == 2 else {}
            return {"type": "object", "additionalProperties": values}
        if issubclass(origin, (Sequence, Set)) and not issubclass(origin, str):
            if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
                return {"type": "array", "items": value_schema(arguments[0])}
            if origin is tuple and arguments:
                return {"type": "array", "prefixItems": [value_schema(a) for a in arguments],
                        "minItems": len(arguments), "maxItems": len(arguments)}
            return {"type": "array", "items": value_schema(arguments[0]) if arguments else {}}
    return {}  # a type the codec writes some other way: any JSON value


def object_schema(cls: type, *, message_type: str | None = None) -> dict[str, Any]:
    """An attrs class as a JSON object (its fields, in order)."""
    attrs.resolve_types(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    if message_type is not None:
        properties["type"] = {"const": message_type}
        required.append("type")
    for field in attrs.fields(cls):
        schema = value_schema(field.type)
        if (message_type, field.name) in _ID_FIELDS:
            schema = _with_range(schema)
        if message_type == "error" and field.name == "code":
            schema = {"enum": sorted(code.value for code in ErrorCode)}
        if field.default is attrs.NOTHING:
            required.append(field.name)
        properties[field.name] = schema
    described: dict[str, Any] = {"type": "object", "properties": properties,
                                 "required": required}
    doc = (cls.__doc__ or "").strip()
    if doc:
        described["description"] = " ".join(doc.split())
    return described


def _with_range(schema: dict[str, Any]) -> dict[str, Any]:
    ranged = {"type": "integer", "minimum": -MAX_REQUEST_ID, "maximum": MAX_REQUEST_ID}
    if "anyOf" in schema:
        return {"anyOf": [ranged if s.get("type") == "integer" else s for s in schema["anyOf"]]}
    return ranged


def protocol_schema() -> dict[str, Any]:
    """Every message, both directions."""
    definitions: dict[str, Any] = {}
    for catalogue in (CLIENT_MESSAGES, SERVER_MESSAGES):
        for name, cls in catalogue.items():
            definitions[name] = object_schema(cls, message_type=name)
    definitions["client_message"] = {"oneOf": [{"$ref": f"#/$defs/{name}"}
                                               for name in CLIENT_MESSAGES]}
    definitions["server_message"] = {"oneOf": [{"$ref": f"#/$defs/{name}"}
                                               for name in SERVER_MESSAGES]}
    return {"$schema": DRAFT, "title": "arena protocol: one JSON object per line",
            "$defs": definitions,
            "anyOf": [{"$ref": "#/$defs/client_message"}, {"$ref": "#/$defs/server_message"}]}


def game_protocol_schema(game: str, observation_type: type) -> dict[str, Any]:
    """The protocol of one game: observations in ``request`` and ``game_start`` are that
    game's observation (under ``$defs/observation``)."""
    schema = protocol_schema()
    definitions = schema["$defs"]
    definitions["observation"] = object_schema(observation_type)
    definitions["request"]["properties"]["observation"] = {"$ref": "#/$defs/observation"}
    definitions["game_start"]["properties"]["observation"] = {
        "anyOf": [{"$ref": "#/$defs/observation"}, {"type": "null"}]}
    schema["title"] = f"arena protocol for {game}: one JSON object per line"
    return schema
