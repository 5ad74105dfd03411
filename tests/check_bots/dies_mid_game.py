"""Broken: its process ends (exit 3) at its first request after AFTER finished games, while
the file STATE holds fewer than DEATHS deaths (each death adds one character), so a restarted
copy plays on.  Arguments: AFTER STATE DEATHS."""

import os
import sys
from pathlib import Path

from honest import HonestBot


class DiesMidGame(HonestBot):
    def __init__(self) -> None:
        super().__init__()
        self.after, self.state, self.deaths = int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
        self.games = 0

    def on_game_end(self, message):
        self.games += 1

    def on_request(self, message):
        died = len(self.state.read_text()) if self.state.exists() else 0
        if self.games >= self.after and died < self.deaths:
            with open(self.state, "a") as file:
                file.write("x")
            os._exit(3)
        super().on_request(message)


DiesMidGame().run()
