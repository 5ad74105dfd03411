"""Broken: never reads its token file, so its hello carries no token."""

from honest import HonestBot


class NoTokenBot(HonestBot):
    def on_welcome(self, message):
        self.limits = message["limits"]
        self.send({"type": "hello", "name": "no-token"})


NoTokenBot().run()
