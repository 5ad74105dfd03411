"""Broken: crashes on game_end (reads a field the message does not have)."""

from honest import HonestBot


class CrashBot(HonestBot):
    def on_game_end(self, message):
        print("the winner is", message["winner"])


CrashBot().run()
