"""Broken: keeps running after the server said bye."""

import time

from honest import HonestBot


class StaysBot(HonestBot):
    def run(self):
        super().run()
        time.sleep(60)


StaysBot().run()
