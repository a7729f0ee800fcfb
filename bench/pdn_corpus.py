"""Read a corpus of real PDN files as the import would, and print what came of it.

    python bench/pdn_corpus.py CORPUS_DIR

``CORPUS_DIR`` holds the files and a ``manifest.tsv`` (path, rule set, succeed|fail,
source; ``#`` starts a comment line). The rule set serves the games without a GameType
tag; a rule set Kondavo does not play (Czech) is replayed as Russian and counted apart.
Printed: games read, plies replayed, refusals by reason, round trips (written, read
again, equal), records played on past one of our automatic draws, the first refusal
of each file, and which result convention the English records follow (the side a
convention names as winner should usually have made the last move). The corpus stays
outside the repository: nothing of it is copied here.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.game import Result  # noqa: E402
from engine.pdn import read_pdn_games, round_trips  # noqa: E402
from engine.pdn_cli import Tally, read_file  # noqa: E402
from engine.rules import Color  # noqa: E402
from engine.variants import VARIANTS  # noqa: E402

STAND_IN = "russian"  # for rule sets Kondavo does not play (Czech draughts)


def group_of(variant: str, expect: str) -> str:
    if variant not in VARIANTS:
        return f"{expect}, {variant} (not a Kondavo rule set: replayed as {STAND_IN})"
    return f"{expect}, Kondavo rule sets"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = Path(argv[0])
    manifest = root / "manifest.tsv"
    if not manifest.is_file():
        print(f"{manifest} not found: give the corpus folder", file=sys.stderr)
        return 2
    groups: dict[str, Tally] = {}
    firsts: list[str] = []
    # English records: does the side our reading names as winner make the last move?
    winner_moved_last = other_moved_last = 0
    # English problems (a FEN, no moves): is the side to move the winner?
    winner_to_move = loser_to_move = 0
    started = time.perf_counter()
    for row in manifest.read_text(encoding="utf-8").splitlines():
        if not row.strip() or row.startswith("#"):
            continue
        path, variant, expect = row.split("\t")[:3]
        rules = VARIANTS.get(variant) or VARIANTS[STAND_IN]
        tally = groups.setdefault(group_of(variant, expect), Tally())
        file_tally = Tally()
        first_error = None
        for record in read_pdn_games(read_file(str(root / path)), rules):
            trip = record.game is not None and round_trips(record.game)
            tally.add(record, trip)
            file_tally.add(record, trip)
            if record.error is not None and first_error is None:
                first_error = f"game {record.index + 1}: {record.error}"
            game = record.game
            if (
                game is not None
                and game.rules.id == "english"
                and game.result in (Result.WHITE_WINS, Result.BLACK_WINS)
            ):
                won = Color.WHITE if game.result is Result.WHITE_WINS else Color.BLACK
                if not game.moves:
                    to_move = game.position.side_to_move
                    winner_to_move += to_move is won
                    loser_to_move += to_move is not won
                elif game.position.side_to_move.opponent is won:
                    winner_moved_last += 1
                else:
                    other_moved_last += 1
        refused = sum(file_tally.refused.values())
        if refused:
            firsts.append(
                f"  {path} [{expect}, {variant}]: {refused} of {file_tally.games} "
                f"refused; first: {first_error}"
            )
    seconds = time.perf_counter() - started
    total = Tally()
    print(f"PDN corpus {root}")
    for name, tally in groups.items():
        print(f"{name}:\n  {tally.summary()}")
        total.merge(tally)
    print(f"all: {total.summary()}")
    print(f"read in {seconds:.1f} s ({total.plies / seconds:,.0f} plies/s, round trips included)")
    print("refusals, first of each file:")
    print("\n".join(firsts) if firsts else "  none")
    decisive = winner_moved_last + other_moved_last
    print(
        f"English decisive records with moves, read as checkers PDN (1-0 = Black wins): "
        f"{decisive}; the winner made the last move in {winner_moved_last}, "
        f"the loser in {other_moved_last}; {winner_to_move + loser_to_move} decisive "
        f"problems (a position, no moves): the winner is to move in {winner_to_move}, "
        f"the loser in {loser_to_move}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
