"""The trio edge: the listener, each connection's loops, admission and reconnection,
spectators, tables, limits, transcripts, process binding."""
