"""Named limits of the wire protocol (SPEC.md, "Limits")."""

#: The protocol version the server speaks; a hello asking for another one is refused.
PROTOCOL_VERSION = 1

#: Longest line, in bytes, not counting the newline, in both directions.
MAX_LINE_BYTES = 64 * 1024

#: Longest player name, in characters.
MAX_NAME_CHARS = 40

#: Longest token, in characters.
MAX_TOKEN_CHARS = 200

#: Tries a bot gets per request: after this many bad answers the server plays a default action.
MAX_TRIES = 3

#: Bad lines in a row after which the server gives up on a connection and closes it.
MAX_CONSECUTIVE_ERRORS = 20
