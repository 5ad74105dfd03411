from __future__ import annotations

from protocol.linebuffer import TOO_LONG, LineBuffer


def drain(buffer: LineBuffer) -> list:
    lines = []
    while (line := buffer.next_line()) is not None:
        lines.append(line)
    return lines


def test_lines_split_on_newline_crlf_and_blank_lines_skipped():
    buffer = LineBuffer()
    buffer.feed(b'{"a":1}\r\n\n  \n{"b":2}\n{"c"')
    assert drain(buffer) == [b'{"a":1}', b'{"b":2}']
    buffer.feed(b":3}\n")
    assert drain(buffer) == [b'{"c":3}']


def test_one_byte_at_a_time_gives_the_same_lines():
    data = b'{"type":"hello","name":"\xc5\xbc\xc3\xb3\xc5\x82w"}\n{"type":"bye"}\r\n'
    buffer = LineBuffer()
    lines = []
    for byte in data:
        buffer.feed(bytes([byte]))
        lines.extend(drain(buffer))
    assert lines == [b'{"type":"hello","name":"\xc5\xbc\xc3\xb3\xc5\x82w"}', b'{"type":"bye"}']


def test_a_line_at_the_limit_passes_and_one_over_is_reported_once_then_skipped():
    buffer = LineBuffer(max_line=10)
    buffer.feed(b"x" * 10 + b"\n")
    assert drain(buffer) == [b"x" * 10]
    buffer.feed(b"y" * 11)
    assert drain(buffer) == [TOO_LONG]
    buffer.feed(b"y" * 1000)
    assert drain(buffer) == []  # still inside the long line: dropped, not reported again
    assert buffer.buffered == 0
    buffer.feed(b"yyy\nok\n")
    assert drain(buffer) == [b"ok"]


def test_a_long_line_that_arrives_whole_is_reported():
    buffer = LineBuffer(max_line=10)
    buffer.feed(b"z" * 50 + b"\nnext\n")
    assert drain(buffer) == [TOO_LONG, b"next"]


def test_memory_stays_bounded_under_an_endless_line():
    buffer = LineBuffer(max_line=1000)
    reported = 0
    for _ in range(10_000):
        buffer.feed(b"a" * 512)
        reported += drain(buffer).count(TOO_LONG)
        assert buffer.buffered <= 1000 + 512
    assert reported == 1


def test_a_longest_line_whose_cr_and_lf_arrive_apart_is_accepted():
    buffer = LineBuffer(max_line=8)
    buffer.feed(b"x" * 8 + b"\r")
    assert buffer.next_line() is None  # not too long yet: the LF may follow
    buffer.feed(b"\n")
    assert buffer.next_line() == b"x" * 8
    buffer.feed(b"y" * 8 + b"\r")
    assert buffer.next_line() is None
    buffer.feed(b"z\n")  # the CR was not the end after all: 10 bytes
    assert buffer.next_line() is TOO_LONG
