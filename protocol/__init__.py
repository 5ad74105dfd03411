"""The arena wire protocol, sans-I/O: bytes in, messages out; messages in, bytes out.

No sockets, no trio, no clocks here (see h11 for the model).  ``linebuffer`` splits lines with a
maximum length, ``messages`` has one frozen class per message, ``codec`` turns lines into messages
and back, ``connection`` is the server side's state machine.  SPEC.md mirrors all of it.
"""

from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_LINE_BYTES, PROTOCOL_VERSION

__all__ = ["ErrorCode", "PeerError", "MAX_LINE_BYTES", "PROTOCOL_VERSION"]
