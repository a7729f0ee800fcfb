"""``python -m engine``: perft, divide, legal, variants (and play, match from engine.match)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import NoReturn

from . import accel
from .errors import EngineError
from .perft import perft, perft_fast
from .position import Position
from .variants import VARIANTS, get_rules


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line on stderr and exit status 2, as for every other bad input.
        self.exit(2, f"{self.prog}: {message}\n")


class BadInput(Exception):
    """Input the user must fix: one line on stderr, exit status 2."""


def _position(variant: str, fen: str | None) -> Position:
    rules = get_rules(variant)
    return Position.from_fen(rules, fen) if fen else Position.start(rules)


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be a whole number, not {text!r}") from None
    if not 0 <= value <= 20:
        raise argparse.ArgumentTypeError(f"depth must be between 0 and 20, not {value}")
    return value


def cmd_variants(args: argparse.Namespace) -> None:
    for rules in VARIANTS.values():
        print(f"{rules.id:<14} {rules.name_en} / {rules.name_de}")


# The C perft's transposition table: 2**20 entries of 64 bytes. Deep counts run about
# five times faster than without one (International depth 11: 2.9 s against 15 s).
PERFT_TABLE_BITS = 20


def cmd_perft(args: argparse.Namespace) -> None:
    """Counted in C where the accelerator is built (KONDAVO_ENGINE=python: never), else
    by the Python fast perft; a position beyond the C limits falls back to Python."""
    pos = _position(args.variant, args.fen)
    cache: dict[tuple[int, int, int, int, int], int] = {}
    use_c = accel.available()
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        nodes = -1
        if use_c:
            try:
                nodes = accel.perft(pos, depth, args.keep_duplicates, PERFT_TABLE_BITS)
            except OverflowError:  # beyond the C limits: Python counts it
                use_c = False
        if nodes < 0:
            nodes = perft_fast(pos, depth, args.keep_duplicates, cache)
        print(f"{depth} {nodes} {time.perf_counter() - start:.3f}", flush=True)


def cmd_divide(args: argparse.Namespace) -> None:
    pos = _position(args.variant, args.fen)
    if args.depth < 1:
        raise BadInput("divide needs a depth of at least 1")
    total = 0
    moves = pos.legal_moves_keeping_duplicates() if args.keep_duplicates else pos.legal_moves()
    use_c = accel.available()
    for move in moves:
        after = pos.play(move)
        nodes = -1
        if use_c:
            try:
                nodes = accel.perft(after, args.depth - 1, args.keep_duplicates)
            except OverflowError:  # beyond the C limits: Python counts it
                use_c = False
        if nodes < 0:
            nodes = perft(after, args.depth - 1, args.keep_duplicates)
        total += nodes
        print(f"{move} {nodes}")
    print(f"total {total}")


def cmd_legal(args: argparse.Namespace) -> None:
    pos = _position(args.variant, args.fen)
    moves = pos.legal_moves()
    if args.json:
        print(json.dumps([m.to_dict() for m in moves]))
    else:
        for m in moves:
            print(m)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="Kondavo's draughts rules engine.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("variants", help="list the rule sets")
    p.set_defaults(run=cmd_variants)
    variant_help = "one of: " + ", ".join(VARIANTS)
    p = sub.add_parser("perft", help="count the move tree, one line per depth")
    p.add_argument("variant", help=variant_help)
    p.add_argument("depth", type=_depth)
    p.add_argument("--fen")
    p.add_argument(
        "--keep-duplicates",
        action="store_true",
        help="count capture paths with the same captured set in another order apart",
    )
    p.set_defaults(run=cmd_perft)
    p = sub.add_parser("divide", help="perft below each legal move")
    p.add_argument("variant", help=variant_help)
    p.add_argument("depth", type=_depth)
    p.add_argument("--fen")
    p.add_argument("--keep-duplicates", action="store_true")
    p.set_defaults(run=cmd_divide)
    p = sub.add_parser("legal", help="the legal moves of a position")
    p.add_argument("variant", help=variant_help)
    p.add_argument("fen", nargs="?")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_legal)
    from . import match

    match.add_subcommands(sub)
    from . import pdn_cli

    pdn_cli.add_subcommands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
    except (EngineError, BadInput) as e:
        print(f"python -m engine {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code if isinstance(code, int) else 0
