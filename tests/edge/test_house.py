"""A server of several games on one port (``arena.edge.house``), as its bots see it: real TCP
on port 0, two games, bots of each naming theirs in hello."""

from __future__ import annotations

import json
import random
from pathlib import Path

import trio

from arena.edge.house import GameHouse
from arena.edge.server import ArenaServer, ServerConfig
from arena.games import GAMES, get_game
from tests.helpers import LineClient, connect_tcp, log_files, log_lines

#: Two games of the registry (any two: the house holds no game's name).
TWO = sorted(GAMES)[:2]


def house(tmp_path: Path, names: list[str] = TWO, **config: object) -> GameHouse:
    servers = []
    for name in names:
        spec = get_game(name)
        options = spec.short_options(spec.parse_options({}).players)
        servers.append(ArenaServer(ServerConfig(
            spec=spec, options=options, port=0, log_dir=tmp_path / "logs", seed="house",
            **config)))  # type: ignore[arg-type]
    return GameHouse(servers)


async def bots_of(port: int, game: str, count: int, prefix: str) -> list[LineClient]:
    clients = [await connect_tcp(port) for _ in range(count)]
    for i, client in enumerate(clients):
        welcome = await client.hello(f"{prefix}{i}", game=game)
        assert welcome["games"] == TWO and "game" not in welcome and "players" not in welcome
    return clients


async def test_bots_of_two_games_play_at_one_port_each_game_at_its_own_tables(tmp_path,
                                                                             nursery):
    served = house(tmp_path)
    port = await nursery.start(served.serve)
    seats = {name: get_game(name).parse_options({}).players for name in TWO}
    first = await bots_of(port, TWO[0], seats[TWO[0]], "a")
    second = await bots_of(port, TWO[1], seats[TWO[1]], "b")
    ends: dict[str, list[dict]] = {name: [] for name in TWO}

    async def play(client: LineClient, game: str, seed: int) -> None:
        ends[game].append(await client.play_randomly(random.Random(seed)))

    async with trio.open_nursery() as players:
        for game, clients in zip(TWO, (first, second)):
            for i, client in enumerate(clients):
                players.start_soon(play, client, game, i)
    for game, clients, prefix in zip(TWO, (first, second), "ab"):
        (start, *_) = [m for m in clients[0].seen if m["type"] == "game_start"]
        assert start["game"] == game and sorted(start["names"]) == [
            f"{prefix}{i}" for i in range(seats[game])]
        assert len(ends[game]) == seats[game] and not ends[game][0].get("aborted")
    with trio.fail_after(10):
        while len(log_files(tmp_path / "logs")) < 2:
            await served.servers[0].wait_for_change()
    for game in TWO:
        (log,) = log_files(tmp_path / "logs", f"{game}-*")
        assert json.loads(log_lines(log)[0])["game"] == game
    await served.shutdown()


async def test_a_hello_without_a_game_gets_one_clear_error_naming_the_games(tmp_path, nursery):
    served = house(tmp_path)
    port = await nursery.start(served.serve)
    client = await connect_tcp(port)
    await client.hello("nameless")
    error = await client.until("error")
    assert error["code"] == "game_required" and error["fatal"]
    assert all(repr(game) in error["message"] for game in TWO)
    assert await client.receive() is None  # and the connection is closed
    client = await connect_tcp(port)
    await client.hello("lost", game="no-such-game")
    error = await client.until("error")
    assert error["code"] == "wrong_game" and error["fatal"]
    await served.shutdown()


async def test_a_spectator_sees_only_the_tables_of_the_game_it_named(tmp_path, nursery):
    served = house(tmp_path)
    port = await nursery.start(served.serve)
    game = TWO[0]
    (bot, *_) = await bots_of(port, game, get_game(game).parse_options({}).players, "a")
    await bot.until("game_start")
    watchers = {}
    for name in TWO:
        watchers[name] = await connect_tcp(port)
        await watchers[name].hello(f"watch-{name}", game=name, role="spectator")
        await watchers[name].send({"type": "watch"})
    assert len((await watchers[game].until("tables"))["tables"]) == 1
    assert (await watchers[TWO[1]].until("tables"))["tables"] == []
    await served.shutdown()


async def test_lines_before_the_hello_are_answered_at_the_door_and_the_hello_still_counts(
        tmp_path, nursery):
    served = house(tmp_path)
    port = await nursery.start(served.serve)
    client = await connect_tcp(port)
    await client.until("welcome")
    await client.send('{"type":"action","id":1,"action":"x"}')
    error = await client.until("error")
    assert error["code"] == "unexpected_message" and not error["fatal"]
    await client.send({"type": "hello", "name": "late", "game": TWO[1], "role": "spectator"})
    await client.send({"type": "watch"})
    assert (await client.until("tables"))["tables"] == []
    assert len(served.servers[1].sessions) == 1 and not served.servers[0].sessions
    await served.shutdown()


def test_hellos_checked_slowly_wait_in_one_queue_for_every_game(tmp_path):
    """A flood of hellos whose check is slow (a registration hashed with scrypt) takes one
    worker thread and one bounded queue whichever games it names, as at a one-game server:
    naming another game gets it no second thread, and leaves the other core to the games."""
    served = house(tmp_path)
    first, second = (server.loops for server in served.servers)
    assert first.preparing is second.preparing and first.checking is second.checking


async def test_a_silent_table_of_one_game_holds_up_no_table_of_the_other(tmp_path, nursery):
    served = house(tmp_path, move_timeout=600.0)
    port = await nursery.start(served.serve)
    quiet, busy = TWO
    silent = await bots_of(port, quiet, get_game(quiet).parse_options({}).players, "s")
    await silent[0].until("game_start")  # and then nobody at that table ever answers
    players = await bots_of(port, busy, get_game(busy).parse_options({}).players, "p")
    with trio.fail_after(60):  # far less than one of the silent table's move timeouts
        async with trio.open_nursery() as playing:
            for i, client in enumerate(players):
                playing.start_soon(client.play_randomly, random.Random(i))
    assert len(served.servers[0].tables) == 1  # still waiting for its first answer
    await served.shutdown()


async def test_one_address_has_one_connection_limit_over_all_games(tmp_path, nursery):
    served = house(tmp_path, max_connections_per_address=2)
    port = await nursery.start(served.serve)
    watchers = [await connect_tcp(port) for _ in TWO]  # kept open
    for watcher, game in zip(watchers, TWO):
        await watcher.hello(f"w-{game}", game=game, role="spectator")
    third = await connect_tcp(port)
    error = await third.until("error")
    assert error["code"] == "too_many_connections" and error["fatal"]
    assert served.per_address == {"127.0.0.1": 2}
    await served.shutdown()


async def test_one_token_may_play_in_two_games_at_once_and_once_in_each(tmp_path, nursery):
    """What SPEC.md says of a several-game server: each game seats by its own seating, so a
    registered bot's token is seated in two games at once (one connection each), and a second
    connection with it to the same game is refused (``token_in_use``)."""
    from arena.seating.arrival import ArrivalSeating

    tokens = {name: f"{name}-token-of-sixteen" for name in ("alice", "p1", "p2", "p3", "p4")}
    servers = []
    for name in TWO:
        spec = get_game(name)
        options = spec.short_options(spec.parse_options({}).players)
        servers.append(ArenaServer(ServerConfig(
            spec=spec, options=options, port=0, log_dir=tmp_path / "logs", seed="house"),
            seating=ArrivalSeating(options.players, tokens)))
    served = GameHouse(servers)
    port = await nursery.start(served.serve)
    tables = []  # every connection kept open
    for server in servers:
        game, players = server.spec.name, server.players
        clients = [await connect_tcp(port) for _ in range(players)]
        for client, name in zip(clients, ["alice", "p1", "p2", "p3", "p4"][:players]):
            await client.hello(name, game=game, token=tokens[name])
        tables.append(clients)
    alices = [clients[0] for clients in tables]
    for alice, game in zip(alices, TWO):
        with trio.fail_after(10):
            start = await alice.until("game_start")
        assert start["game"] == game and start["names"][start["seat"]] == "alice"
    again = await connect_tcp(port)
    await again.hello("alice", game=TWO[0], token=tokens["alice"])
    with trio.fail_after(10):
        error = await again.until("error")
    assert error["code"] == "token_in_use"
    await served.shutdown()
