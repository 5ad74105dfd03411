"""Broken: says bye after its first game, as if a connection were one game."""

from honest import HonestBot


class OneGameBot(HonestBot):
    def on_game_end(self, message):
        self.send({"type": "bye"})
        raise SystemExit(0)


OneGameBot().run()
