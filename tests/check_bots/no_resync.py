"""Broken: comes back after a lost connection, but then ignores requests until a game starts
afresh (it does not take the resumed game_start and the request sent again)."""

from honest import HonestBot


class NoResyncBot(HonestBot):
    waiting_for_fresh_game = False

    def on_lost(self):
        self.waiting_for_fresh_game = True
        return super().on_lost()

    def on_game_start(self, message):
        if not message.get("resumed"):
            self.waiting_for_fresh_game = False

    def on_request(self, message):
        if not self.waiting_for_fresh_game:
            super().on_request(message)


NoResyncBot().run()
