"""The `companion` command line: one subcommand per job, each with its own --help.

Errors a user can cause end with a one-line message on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence

from companion import __version__
from companion.errors import CompanionError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _cmd_check(args: argparse.Namespace) -> int:
    from companion.record.jellyfish import read_match_file
    from companion.record.audit import audit_match

    reports = []
    unreadable = []
    for name in args.files:
        try:
            reports.append(audit_match(read_match_file(name)))
        except CompanionError as exc:
            unreadable.append(str(exc))
    if args.json:
        out = {"files": [r.to_json() for r in reports], "unreadable": unreadable}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        for r in reports:
            status = "legal" if r.ok else f"{len(r.findings)} problem(s)"
            winner = f", won by {r.players[r.winner]}" if r.winner is not None else ""
            length = f"{r.length}-point match" if r.length else "money play"
            print(f"{r.source}: {length}, {len(r.games)} game(s), {r.plays} plays checked: {status}"
                  f" (final score {r.final_score[0]}-{r.final_score[1]}{winner})")
            for f in r.findings:
                print(f"  {f}")
        for message in unreadable:
            print(f"error: {message}", file=sys.stderr)
    if unreadable:
        return EXIT_USAGE
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FINDINGS


def _cmd_dicecup(args: argparse.Namespace) -> int:
    import time

    from companion.devices import DiceCupDriver, SoftwareDiceCup
    from companion.referee.observations import DiceReading

    cup = SoftwareDiceCup(seed=args.seed).start() if args.simulate else None
    port = cup.path if cup is not None else args.port
    driver = DiceCupDriver(port)
    rolls, next_roll = 0, time.monotonic() + 1.0
    deadline = time.monotonic() + args.seconds if args.seconds else None
    try:
        while deadline is None or time.monotonic() < deadline:
            for item in driver.poll(0.05):
                if isinstance(item, DiceReading) and item.valid:
                    rolls += 1
                    print(f"roll {item.sequence}: {item.values[0]}-{item.values[1]}", flush=True)
                else:
                    print(item, flush=True)
            if cup is not None and time.monotonic() >= next_roll:
                if args.rolls and cup.acknowledged and rolls >= args.rolls:
                    break
                if cup.acknowledged:
                    cup.roll()
                next_roll = time.monotonic() + 1.0
    finally:
        driver.close()
        if cup is not None:
            cup.close()
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Backgammon Companion: referee, recorder and training aid beside a real board.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="replay match files under the rules and report illegal plays, cube actions and scores",
        description="Replay Jellyfish match files (.mat/.txt) with the rules engine. Exit status: 0 all legal, "
        "1 something is not, 2 a file could not be read.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="match files (.mat or .txt)")
    check.add_argument("--json", action="store_true", help="print a machine-readable report")
    check.set_defaults(handler=_cmd_check)

    dicecup = sub.add_parser(
        "dicecup",
        help="show what an electronic dice cup sends (link status, cup state, rolls)",
        description="Connect to a dice cup (found by its USB ids, or --port) and print its link status, states "
        "and rolls. --simulate runs a software cup on a pseudo-terminal that rolls once a second.",
    )
    dicecup.add_argument("--port", help="serial device or pyserial URL (default: find the cup by USB id)")
    dicecup.add_argument("--simulate", action="store_true", help="use a software dice cup instead of hardware")
    dicecup.add_argument("--rolls", type=int, default=0, help="with --simulate, stop after this many rolls")
    dicecup.add_argument("--seconds", type=float, default=0, help="stop after this long (default: run until Ctrl-C)")
    dicecup.add_argument("--seed", type=int, default=None, help="with --simulate, seed the software cup's dice")
    dicecup.set_defaults(handler=_cmd_dicecup)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_OK
    try:
        return handler(args)
    except CompanionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

