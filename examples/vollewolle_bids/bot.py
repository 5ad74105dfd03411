"""The tuned linear bidder as a bot: it loads the weights train.py saved and plays through the
client library, so it connects to ``arena serve`` (or ``arena match``) like any other bot.

    python examples/vollewolle_bids/bot.py --port 7777 [--weights FILE]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from policy import LinearBidder  # noqa: E402

from reference_bots.client import argument_parser, play  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser("a tuned linear vollewolle bidder", "linear-bidder")
    parser.add_argument("--weights", type=Path, default=HERE / "weights.json")
    args = parser.parse_args(argv)
    return play(LinearBidder.load(args.weights, args.seed), args)


if __name__ == "__main__":
    sys.exit(main())
