"""Ctrl-C and SIGTERM for commands that run trio (arena.edge.signals) and ``arena serve``'s
stop at them, in-process: each signal is one, none is lost before the loop, none comes back
as a KeyboardInterrupt after the command stopped listening."""

from __future__ import annotations

import signal

import trio

from arena.edge.serve_report import Tally
from arena.edge.serve_run import run_serve
from arena.edge.signals import StopSignals, run_stoppable
from tests.helpers import make_server


def test_signals_before_the_loop_wait_for_it_and_two_close_together_are_two():
    with StopSignals() as stops:
        signal.raise_signal(signal.SIGINT)  # before trio runs: no KeyboardInterrupt

        async def main() -> list[int]:
            signals = stops.attach()
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGINT)  # trio's own receiver kept a set: 2 of these 4
            return [await signals.receive() for _ in range(4)]

        assert trio.run(main) == [signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGINT]
        signal.raise_signal(signal.SIGINT)  # after the loop, still entered: dropped
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_serve_stops_at_a_ctrl_c_from_before_its_banner_and_a_late_one_is_no_traceback(
        tmp_path):
    out: list[str] = []

    async def main(signals: trio.MemoryReceiveChannel[int]) -> None:
        server = make_server(tmp_path)
        signal.raise_signal(signal.SIGINT)  # before the server listens
        signal.raise_signal(signal.SIGINT)  # right behind it: hurries the stop
        await run_serve(server, games=None, tally=Tally(), tally_every=None,
                        banner=lambda port: f"listening on {port}", out=out.append,
                        err=out.append, signals=signals)
        out.append("returned")
        signal.raise_signal(signal.SIGINT)  # after the stop (trio's receiver re-delivered
        await trio.lowlevel.checkpoint()    # it as a KeyboardInterrupt): dropped

    run_stoppable(main)
    assert out[0].startswith("listening on ")
    assert out[1:3] == ["arena: stopping (running games are logged as aborted)",
                        "arena: stopping now"], out
    assert "returned" in out

