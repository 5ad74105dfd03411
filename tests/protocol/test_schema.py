"""The JSON Schema made from the message classes: SPEC.md's examples and every line a real game
sends fit it, and it rejects what the server rejects."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import jsonschema
import pytest

from arena.gameplay.driver import MatchDriver
from arena.games import GAMES
from protocol.codec import encode
from protocol.schema import game_protocol_schema, protocol_schema

SPEC_TEXT = (Path(__file__).parent.parent.parent / "SPEC.md").read_text()


def validator(schema: dict) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_schema_is_valid_and_spec_examples_fit_it():
    check = validator(protocol_schema())
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", SPEC_TEXT, re.S)
                if "..." not in block]
    assert len(examples) >= 8
    for example in examples:
        errors = list(check.iter_errors(example))
        assert not errors, (example, [e.message for e in errors])


@pytest.mark.parametrize("line", [
    {"type": "action", "id": "7", "action": "play 1"},  # an id must be a number
    {"type": "action", "id": 2**53, "action": "play 1"},  # out of range
    {"type": "action", "action": "play 1"},  # no id
    {"type": "hello"},  # no name
    {"type": "dance"},  # no such message
    {"type": "error", "code": "no_such_code", "message": "x"},
])
def test_what_the_server_refuses_does_not_fit(line):
    assert not validator(protocol_schema()).is_valid(line)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_line_of_random_games_fits_the_games_schema(name):
    spec = GAMES[name]
    check = validator(game_protocol_schema(name, spec.observation_type))
    rng = random.Random(5)
    seen = set()  # a line sent to several seats (an event) is checked once: the same text
    for players in sorted({spec.min_players, spec.max_players}):
        driver = MatchDriver(spec, spec.parse_options({"players": players}), f"schema{players}",
                             [f"p{n}" for n in range(players)], game_id="g", table=1,
                             move_timeout=5.0)
        out = driver.start(0.0)
        steps = 0
        while True:
            for item in out:
                text = item.line or encode(item.message)
                if text in seen:
                    continue
                seen.add(text)
                line = json.loads(text)
                errors = list(check.iter_errors(line))
                assert not errors, (line, [e.message for e in errors][:3])
            if driver.finished or steps > 300:
                break
            seat, request = rng.choice(sorted(driver.open.items()))
            out = driver.answer(seat, request.id, rng.choice(request.legal), 0.0)
            steps += 1


def test_an_observation_of_the_wrong_shape_does_not_fit():
    spec = GAMES["chochlik"]
    check = validator(game_protocol_schema("chochlik", spec.observation_type))
    line = {"type": "request", "id": 1, "legal": ["x"], "time_left_ms": 5,
            "observation": {"hand": "not a list"}}
    assert not check.is_valid(line)


def test_arena_schema_prints_it():
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["schema", "--game", "vollewolle"])
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["$defs"]["request"]["properties"]["observation"] == {
        "$ref": "#/$defs/observation"}
    validator(document)
