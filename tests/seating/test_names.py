"""Names on ``arena serve``: same-named bots on an open server are told apart and play; with
registered players one player holds one connection (``token_in_use``), and whoever is refused
or renamed is told why."""

from __future__ import annotations

from pathlib import Path

from arena.seating.arrival import ArrivalSeating
from arena.seating.names import NameBook, numbered
from protocol.errors import ErrorCode
from protocol.limits import MAX_NAME_CHARS
from tests.serve_harness import Served


def test_same_names_are_told_apart_by_the_lowest_free_number():
    book = NameBook()
    assert [book.take_numbered(i, "random") for i in range(3)] == [
        "random", "random#2", "random#3"]
    assert book.take_numbered(3, "RANDOM") == "RANDOM#4"  # compared without case
    book.release(1)
    assert book.take_numbered(4, "random") == "random#2"  # a number is free again
    book.release(0)
    assert book.take_numbered(5, "random") == "random"
    assert book.take(6, "Random#3") is False  # held (case aside)
    assert book.take_numbered(7, "other") == "other"


def test_a_name_a_bot_chose_for_itself_is_never_given_twice():
    book = NameBook()
    assert book.take_numbered("a", "x#2") == "x#2"
    assert [book.take_numbered(s, "x") for s in "bcd"] == ["x", "x#3", "x#4"]
    book.release("a")
    assert book.take_numbered("e", "x") == "x#2"


def test_a_numbered_name_stays_a_valid_name():
    long = "n" * MAX_NAME_CHARS
    assert len(numbered(long, 12)) == MAX_NAME_CHARS and numbered(long, 12).endswith("#12")
    book = NameBook()
    assert book.take_numbered(1, long) == long
    assert book.take_numbered(2, long) == "n" * (MAX_NAME_CHARS - 2) + "#2"


def test_a_thousand_bots_with_one_name_get_a_thousand_names_and_give_them_back():
    book = NameBook()
    names = {book.take_numbered(i, "random") for i in range(1000)}
    assert len(names) == 1000 and "random#1000" in names
    for i in range(1000):
        book.release(i)
    assert len(book) == 0 and not book.top and not book.returned


def test_an_open_server_seats_same_named_bots_at_one_table():
    seating = ArrivalSeating(3)
    admitted = [seating.admit(s, "random", None).name for s in ("s1", "s2", "s3")]
    assert admitted == ["random", "random#2", "random#3"]


def test_a_registered_player_holds_one_connection():
    seating = ArrivalSeating(2, {"Alice": "alice-secret-token-1"})
    assert seating.admit("s1", "alice", "alice-secret-token-1").name == "Alice"
    assert seating.admit("s2", "ALICE", "alice-secret-token-1").refusal is ErrorCode.TOKEN_IN_USE
    assert seating.admit("s3", "alice", "wrong-token-000000").refusal is ErrorCode.BAD_TOKEN
    seating.gone("s1", 0)
    assert seating.admit("s4", "alice", "alice-secret-token-1").name == "Alice"


def test_three_random_bots_without_names_play_a_game(tmp_path: Path):
    with Served(tmp_path, "--game", "chochlik", "--hands", "1") as served:
        for _ in range(3):
            served.bot()
        result = served.out.expect(r"table \S+: (.*)  \[")
        names = {part.split("=")[0] for part in result.group(1).split()}
        assert names == {"random", "random#2", "random#3"}
        assert served.interrupt() == 0


def test_a_renamed_bot_is_told_its_name(tmp_path: Path):
    with Served(tmp_path, "--game", "vollewolle", "--players", "2") as served:
        first = served.client("bob")
        second = served.client("Bob")
        info = second.expect("info")
        assert info["reason"] == "renamed" and info["name"] == "Bob#2"
        start = first.expect("game_start")
        assert sorted(start["names"]) == ["Bob#2", "bob"]
        assert second.expect("game_start")["names"] == start["names"]
        assert served.interrupt() == 0


def test_a_second_connection_with_a_connected_players_token_is_refused(tmp_path: Path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("alice alice-secret-token-1\nbob bob-secret-token-22\n")
    with Served(tmp_path, "--game", "vollewolle", "--players", "2",
                "--tokens", str(tokens)) as served:
        alice = served.client("alice", token="alice-secret-token-1")
        twin = served.client("ALICE", token="alice-secret-token-1")
        refusal = twin.expect("error")
        assert refusal["code"] == "token_in_use" and refusal["fatal"] is True
        assert twin.read() is None  # closed
        served.err.expect(r"refused 'ALICE' \(127\.0\.0\.1\): token_in_use")
        served.client("bob", token="bob-secret-token-22")
        assert sorted(alice.expect("game_start")["names"]) == ["alice", "bob"]  # it kept it
        assert served.interrupt() == 0
