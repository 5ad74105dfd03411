"""The wypas boss: determinized Monte Carlo search (reference_bots/boss/wypas.py).

``python -m reference_bots.wypas_boss --host H --port P [--think-ms 100] [--iterations N]
[--seed S]``
"""

from __future__ import annotations

import sys

from reference_bots.boss.options import boss_parser
from reference_bots.boss.wypas import WypasBoss
from reference_bots.client import play


def main(argv: list[str] | None = None) -> int:
    args = boss_parser("arena wypas boss (determinized search)", "wypas-boss"
                       ).parse_args(argv)
    return play(WypasBoss(args.think_ms, args.iterations, args.seed), args)


if __name__ == "__main__":
    sys.exit(main())
