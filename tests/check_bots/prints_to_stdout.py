"""Broken over stdio: prints a debugging line to standard output, where only protocol lines
may go."""

from honest import HonestBot


class ChattyBot(HonestBot):
    def on_game_start(self, message):
        print("starting a game", flush=True)


ChattyBot().run()
