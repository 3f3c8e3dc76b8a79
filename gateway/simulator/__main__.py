"""`python -m gateway.simulator --port P (--models-dir DIR | --cohort FILE | --round R)`.

Runs until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from gateway.simulator.server import Simulator
from records.inputs import load_round


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gateway.simulator", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="0 = any free port")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--models-dir", type=Path, help="folder of scripted-model JSON files")
    source.add_argument("--cohort", type=Path, help="a cohort file whose candidates name scripts")
    source.add_argument(
        "--round",
        help="a rehearsal round: its catalogue snapshot, each route with the round's script",
    )
    parser.add_argument("--api-key", default=None, help="accept only this key (default: any)")
    parser.add_argument(
        "--key-limit", type=float, default=None, help="the key's credit limit, USD (default: none)"
    )
    args = parser.parse_args(argv)
    common = {"port": args.port, "api_key": args.api_key, "key_limit_usd": args.key_limit}
    if args.round:
        sim = Simulator.from_rehearsal(load_round(args.round), **common)
    elif args.models_dir:
        sim = Simulator.from_dir(args.models_dir, **common)
    else:
        sim = Simulator.from_cohort(args.cohort.resolve(), **common)
    print(f"simulator serving {len(sim.models)} models at {sim.base_url}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        sim.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
