"""``python -m engine pdn check|convert``: read PDN files as the import would.

``check`` prints, per game, the plies replayed (and where our automatic draw rules
would have ended it) or the first problem with its line, then a summary: games read,
plies, refusals by reason, round trips (written again, read again, equal).
``convert`` writes the games back normalised: the rule set's result form, full tags,
moves numbered from the first player; comments and variations are left out.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from .pdn import PdnGame, read_pdn_games, result_to_pdn, round_trips, write_pdn
from .rules import Rules
from .variants import VARIANTS, get_rules


@dataclass
class Tally:
    """Figures over many games."""

    games: int = 0
    read: int = 0
    plies: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    round_trips: int = 0
    draws_passed: int = 0  # games our automatic draw rules would have ended earlier
    notes: int = 0

    def add(self, record: PdnGame, round_trip: bool) -> None:
        self.games += 1
        self.notes += len(record.notes)
        if record.error is not None:
            self.refused[record.error.kind] += 1
            return
        self.read += 1
        self.plies += record.plies
        self.round_trips += round_trip
        self.draws_passed += bool(record.draws_passed)

    def merge(self, other: Tally) -> None:
        for name in ("games", "read", "plies", "round_trips", "draws_passed", "notes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.refused.update(other.refused)

    def summary(self) -> str:
        refused = sum(self.refused.values())
        reasons = ", ".join(f"{kind} {n}" for kind, n in self.refused.most_common())
        return (
            f"{self.games} games: {self.read} read, {self.plies} plies replayed, "
            f"{refused} refused{f' ({reasons})' if reasons else ''}, "
            f"{self.round_trips} of {self.read} round trips equal, "
            f"{self.draws_passed} played on past one of our automatic draws"
            + (f", {self.notes} notes on what was read leniently" if self.notes else "")
        )


def read_file(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise BadFile(f"cannot read {path}: {e.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Older Windows programs (CheckerBoard, Turbo Dambase) write Latin-1 / cp1252.
        return data.decode("cp1252", errors="replace")


class BadFile(Exception):
    """A file that cannot be opened."""


def describe(record: PdnGame) -> str:
    where = f"game {record.index + 1} (line {record.line})"
    if record.error is not None:
        return f"{where}: refused: {record.error}"
    game = record.game
    assert game is not None
    tags = record.tags
    # Italian federation files name the players Bianco and Nero.
    white = tags.get("White", tags.get("Bianco", "?"))
    black = tags.get("Black", tags.get("Nero", "?"))
    players = f"{white} - {black}"
    result = result_to_pdn(game.result, game.rules)
    text = f"{where} {players}: {record.plies} plies replayed, {result}"
    if record.draws_passed:
        passed = ", ".join(f"ply {ply} ({reason.value})" for ply, reason in record.draws_passed[:3])
        more = f" and {len(record.draws_passed) - 3} more" if len(record.draws_passed) > 3 else ""
        text += f"; our rules would have drawn at {passed}{more}"
    for note in record.notes:
        text += f"; {note}"
    return text


def check_text(text: str, rules: Rules | None, name: str, quiet: bool = False) -> Tally:
    tally = Tally()
    for record in read_pdn_games(text, rules):
        tally.add(record, record.game is not None and round_trips(record.game))
        if not quiet or record.error is not None:
            print(f"{name}: {describe(record)}")
    return tally


def _rules(args: argparse.Namespace) -> Rules | None:
    return get_rules(args.variant) if args.variant else None


def cmd_check(args: argparse.Namespace) -> int:
    total = Tally()
    for path in args.files:
        try:
            text = read_file(path)
        except BadFile as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
        tally = check_text(text, _rules(args), path, args.quiet)
        print(f"{path}: {tally.summary()}")
        total.merge(tally)
    if len(args.files) > 1:
        print(f"total: {total.summary()}")
    return 1 if sum(total.refused.values()) else 0


def cmd_convert(args: argparse.Namespace) -> int:
    try:
        text = read_file(args.file)
    except BadFile as e:
        print(f"{args.file}: {e}", file=sys.stderr)
        return 2
    written, refused = [], 0
    for record in read_pdn_games(text, _rules(args)):
        if record.game is None:
            refused += 1
            print(f"{args.file}: {describe(record)}", file=sys.stderr)
            continue
        written.append(write_pdn(record.game, record.tags))
    out = "\n".join(written)
    if args.output:
        Path(args.output).write_text(out, encoding="utf-8")
    else:
        sys.stdout.write(out)
    return 1 if refused else 0


# Whatever parser class the caller's subparsers make (engine/cli.py's own).
_Parser = TypeVar("_Parser", bound=argparse.ArgumentParser)


def add_subcommands(subparsers: argparse._SubParsersAction[_Parser]) -> None:
    """Register ``pdn check`` and ``pdn convert``; ``run`` returns the exit code
    (0 all read, 1 some game refused, 2 a file that cannot be opened)."""
    p = subparsers.add_parser("pdn", help="read PDN files: check them or write them back")
    sub = p.add_subparsers(dest="pdn_command", required=True, parser_class=type(p))
    variant_help = (
        "rule set of the games without a GameType tag (default: International, "
        "PDN's GameType 20): " + ", ".join(VARIANTS)
    )
    c = sub.add_parser("check", help="replay every game; print moves replayed or the problem")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--variant", help=variant_help)
    c.add_argument("--quiet", action="store_true", help="print only refusals and summaries")
    c.set_defaults(run=cmd_check)
    v = sub.add_parser("convert", help="write the games back normalised (refusals on stderr)")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--variant", help=variant_help)
    v.add_argument("-o", "--output", help="write here instead of to standard output")
    v.set_defaults(run=cmd_convert)
