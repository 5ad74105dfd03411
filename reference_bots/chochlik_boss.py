"""The chochlik boss: determinized Monte Carlo search (reference_bots/boss/chochlik.py).

``python -m reference_bots.chochlik_boss --host H --port P [--think-ms 100] [--iterations N]
[--seed S]``
"""

from __future__ import annotations

import sys

from reference_bots.boss.chochlik import ChochlikBoss
from reference_bots.boss.options import boss_parser
from reference_bots.client import play


def main(argv: list[str] | None = None) -> int:
    args = boss_parser("arena chochlik boss (determinized search)", "chochlik-boss"
                       ).parse_args(argv)
    return play(ChochlikBoss(args.think_ms, args.iterations, args.seed), args)


if __name__ == "__main__":
    sys.exit(main())
