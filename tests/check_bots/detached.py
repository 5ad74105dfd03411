"""Broken: plays from a daemon (a double fork into a session of its own), not from the process
it was started as, so arena match would refuse its token (token_not_yours)."""

import os
import time

from honest import HonestBot

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        HonestBot().run()  # reparented: no longer a descendant of the process check-bot started
    os._exit(0)
time.sleep(30)  # the process check-bot started stays, doing nothing (it is stopped at the end)
