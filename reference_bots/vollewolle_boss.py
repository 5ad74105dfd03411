"""The vollewolle boss: determinized Monte Carlo search (reference_bots/boss/vollewolle.py).

``python -m reference_bots.vollewolle_boss --host H --port P [--think-ms 100] [--iterations N]
[--seed S]``
"""

from __future__ import annotations

import sys

from reference_bots.boss.options import boss_parser
from reference_bots.boss.vollewolle import VolleWolleBoss
from reference_bots.client import play


def main(argv: list[str] | None = None) -> int:
    args = boss_parser("arena vollewolle boss (determinized search)", "vollewolle-boss"
                       ).parse_args(argv)
    return play(VolleWolleBoss(args.think_ms, args.iterations, args.seed), args)


if __name__ == "__main__":
    sys.exit(main())
