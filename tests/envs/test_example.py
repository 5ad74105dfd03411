"""The training example runs end to end: train.py tunes and saves, bot.py's policy loads what
was saved and answers a request with a legal bid."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vollewolle_bids"


def load(name: str):
    sys.path.insert(0, str(EXAMPLE))
    try:
        spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(EXAMPLE))


def test_train_saves_weights_that_the_bot_plays(tmp_path, capsys):
    out = tmp_path / "weights.json"
    assert load("train").main(["--generations", "0", "--games", "1", "--players", "2",
                               "--out", str(out)]) == 0
    saved = json.loads(out.read_text())
    assert len(saved["weights"]) == len(saved["features"])
    assert "saved" in capsys.readouterr().out
    policy = load("policy").LinearBidder.load(out, seed=1)
    from arena.envs.aec import as_json
    from arena.games import GAMES
    spec = GAMES["vollewolle"]
    options = spec.parse_options({"players": 3})
    state = spec.new_state(options, "example")
    policy.on_message({"type": "game_start", "info": as_json(spec.info(options))})
    legal = state.legal_actions(0)
    assert policy.choose({"observation": as_json(state.observe(0)), "legal": legal}) in legal
