"""The wypas boss: determinized Monte Carlo search (reference_bots/boss/wypas.py).

``python -m reference_bots.wypas_boss --host H --port P [--think-ms 100] [--iterations N]
[--seed S] [--search shear,place,bid,special]``
"""

from __future__ import annotations

import sys

from reference_bots.boss.options import boss_parser
from reference_bots.boss.wypas import DEFAULT_SEARCHED, SEARCHED, WypasBoss
from reference_bots.client import play


def main(argv: list[str] | None = None) -> int:
    parser = boss_parser("arena wypas boss (determinized search)", "wypas-boss")
    parser.add_argument("--search", default=",".join(DEFAULT_SEARCHED),
                        help="the decisions searched, among "
                             f"{','.join(SEARCHED)} (default: {','.join(DEFAULT_SEARCHED)})")
    args = parser.parse_args(argv)
    searched = tuple(args.search.split(","))
    if not set(searched) <= set(SEARCHED):
        parser.error(f"--search: among {','.join(SEARCHED)}")
    return play(WypasBoss(args.think_ms, args.iterations, args.seed, searched), args)


if __name__ == "__main__":
    sys.exit(main())
