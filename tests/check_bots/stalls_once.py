"""Broken: at its 10th request of a game (or its AT-th), after AFTER finished games, it stops
answering, once (it writes the file STATE; a copy that finds it plays on): it connects to
127.0.0.1:PORT (so a test knows, without polling), sends the stalled game's id and a newline,
and exits when the test hangs up.
Arguments: AFTER STATE PORT [AT]."""

import os
import socket
import sys
from pathlib import Path

from honest import HonestBot


class StallsOnce(HonestBot):
    def __init__(self) -> None:
        super().__init__()
        self.after, self.state, self.port = int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
        self.at = int(sys.argv[4]) if len(sys.argv) > 4 else 10
        self.games = self.in_game = 0
        self.game_id = ""

    def on_game_start(self, message):
        self.game_id = message["game_id"]

    def on_game_end(self, message):
        self.games += 1
        self.in_game = 0

    def on_request(self, message):
        self.in_game += 1
        if self.games >= self.after and self.in_game == self.at and not self.state.exists():
            self.state.write_text("stalled")
            with socket.create_connection(("127.0.0.1", self.port)) as test:
                test.sendall(self.game_id.encode() + b"\n")
                test.recv(1)  # until the test hangs up
            os._exit(0)
        super().on_request(message)


StallsOnce().run()
