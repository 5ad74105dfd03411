"""Broken: ignores error replies, so a refused answer is never sent again."""

from honest import HonestBot


class DeafBot(HonestBot):
    def on_error(self, message):
        pass


DeafBot().run()
