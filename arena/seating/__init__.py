"""Who sits where and when a table starts: pure seating policies (time is an input)."""
