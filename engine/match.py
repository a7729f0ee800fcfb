"""Playing the computer: terminal games against it, and engine matches between levels.

``python -m engine play VARIANT [--level N] [--fen FEN]`` and
``python -m engine match VARIANT --a LEVEL --b LEVEL --games N [--time S]``
(``engine/cli.py`` registers both through ``add_subcommands``; until then
``python -m engine.match play|match ...`` runs them directly).

Matches start from balanced openings: a few random plies from the start
position, kept only if a short search scores them near level. Each opening is
played twice with the colours swapped, so neither side profits from a lucky
opening.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from .errors import EngineError
from .game import Game, Result
from .levels import MAX_LEVEL, MIN_LEVEL, get_level, search_move
from .position import Position
from .rules import Color, Rules
from .search import Searcher, SearchParams
from .variants import VARIANTS, get_rules

MAX_PLIES = 300  # a match game still going after this many plies is scored a draw
# Win adjudication, as engine-testing tools do, so that long lost endings do not eat
# the match's time: a side at least ADJUDICATE_LEAD pieces ahead, against no king,
# in quiet positions (no capture pending) for ADJUDICATE_PLIES plies in a row, wins.
# Against a king nothing is adjudicated: a lone flying king can hold several pieces.
ADJUDICATE_LEAD = 3
ADJUDICATE_PLIES = 6
# Draw adjudication: both sides hold a king and the pieces are level (within one,
# where kings fly: a flying king and a man cannot beat a king) for DRAW_PLIES
# quiet plies in a row — the king endings the draw rules would end much later.
DRAW_PLIES = 10


# --- openings -------------------------------------------------------------------------


def balanced_openings(
    rules: Rules, count: int, seed: int = 0, plies: int = 4, margin: int = 35, depth: int = 5
) -> list[list[str]]:
    """``count`` distinct openings of ``plies`` random moves that a ``depth``-ply search
    scores within ``margin`` hundredths of a man of equality."""
    rng = random.Random(seed)
    searcher = Searcher(
        rules, SearchParams(max_depth=depth, reductions=False, forward_pruning=False)
    )
    found: list[list[str]] = []
    seen: set[tuple[int, int, int, int]] = set()
    tries = 0
    while len(found) < count and tries < count * 50:
        tries += 1
        pos = Position.start(rules)
        line = []
        for _ in range(plies):
            moves = pos.legal_moves()
            if not moves:
                break
            m = rng.choice(moves)
            line.append(str(m))
            pos = pos.play(m)
        if len(line) < plies or pos.key() in seen or not pos.legal_moves():
            continue
        if abs(searcher.search(pos).score) > margin:
            continue
        seen.add(pos.key())
        found.append(line)
    return found


# --- games ----------------------------------------------------------------------------


class Adjudicator:
    """Watches a match game ply by ply and calls a hopeless or dead position early."""

    def __init__(
        self,
        lead: int = ADJUDICATE_LEAD,
        plies: int = ADJUDICATE_PLIES,
        draw_plies: int = DRAW_PLIES,
    ) -> None:
        self.lead, self.plies, self.draw_plies = lead, plies, draw_plies
        self._leader: Color | None = None
        self._run = 0
        self._level_run = 0

    def verdict(self, position: Position) -> Result | None:
        """Call once per position reached; the adjudicated result, if any."""
        wm, wk, bm, bk = position.material()
        lead = wm + wk - bm - bk
        leader: Color | None = None
        if lead >= self.lead and not bk:
            leader = Color.WHITE
        elif -lead >= self.lead and not wk:
            leader = Color.BLACK
        level = wk and bk and abs(lead) <= (1 if position.rules.flying_kings else 0)
        moves = position.legal_moves()
        if moves and moves[0].captured:
            # A pending capture may change the count: only quiet positions count,
            # and they need not follow each other.
            return None
        self._level_run = self._level_run + 1 if level else 0
        if self._level_run >= self.draw_plies:
            return Result.DRAW
        self._run = (
            self._run + 1
            if leader is not None and leader is self._leader
            else (1 if leader is not None else 0)
        )
        self._leader = leader
        if self._run >= self.plies:
            return Result.WHITE_WINS if leader is Color.WHITE else Result.BLACK_WINS
        return None


@dataclass(frozen=True)
class GameRecord:
    opening: tuple[str, ...]
    white_level: int
    black_level: int
    result: Result
    reason: str
    plies: int
    notation: tuple[str, ...]


def play_game(
    variant: str,
    opening: Iterable[str],
    white_level: int,
    black_level: int,
    time_limit: float | None = None,
    seed: int = 0,
    node_limit: int | None = None,
    time_scale: float = 1.0,
    adjudicate: bool = True,
) -> GameRecord:
    """One engine game from ``opening`` (moves in notation); picklable arguments only.

    Each side thinks its level's time times ``time_scale``, at most ``time_limit``.
    ``adjudicate``: end a hopeless game early (``Adjudicator``)."""
    rules = get_rules(variant)
    opening = tuple(opening)
    game = Game.replay(rules, None, list(opening))
    history: list[tuple[int, int, int, int]] = []
    # One searcher a side for the whole game: its table carries over between moves.
    searchers = (Searcher(rules), Searcher(rules))
    adjudicator = Adjudicator() if adjudicate else None
    verdict: Result | None = None
    while not game.is_over and len(game.moves) < MAX_PLIES:
        pos = game.position
        level = white_level if pos.side_to_move is Color.WHITE else black_level
        budget = get_level(level).think_time * time_scale
        if time_limit is not None:
            budget = min(budget, time_limit)
        result = search_move(
            pos,
            level,
            seed=seed * 1000 + len(game.moves),
            time_limit=budget,
            node_limit=node_limit,
            history=history,
            searcher=searchers[pos.turn],
        )
        assert result.move is not None
        if pos.is_irreversible(result.move):
            history.clear()
        else:
            history.append(pos.key())
        game.play(result.move)
        if adjudicator is not None and not game.is_over:
            verdict = adjudicator.verdict(game.position)
            if verdict is not None:
                break
    if game.is_over:
        assert game.result is not None and game.reason is not None
        res, reason = game.result, game.reason.value
    elif verdict is not None:
        res, reason = verdict, "adjudicated"
    else:
        res, reason = Result.DRAW, "adjudicated: too long"
    return GameRecord(
        opening, white_level, black_level, res, reason, len(game.moves), tuple(game.notation)
    )


@dataclass
class Score:
    """A's wins, draws and losses against B."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def fraction(self) -> float:
        return self.points / self.games if self.games else 0.5

    def add(self, record: GameRecord, a_is_white: bool) -> None:
        if record.result is Result.DRAW:
            self.draws += 1
        elif (record.result is Result.WHITE_WINS) == a_is_white:
            self.wins += 1
        else:
            self.losses += 1

    def elo(self) -> tuple[float, float]:
        """Elo difference of A over B and its 95% error margin."""
        n = self.games
        if not n:
            return 0.0, 0.0
        s = self.fraction
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2) / n
        margin = 1.96 * math.sqrt(var / n)
        lo, hi = elo_difference(s - margin), elo_difference(s + margin)
        return elo_difference(s), (hi - lo) / 2

    def __str__(self) -> str:
        diff, err = self.elo()
        return (
            f"+{self.wins} ={self.draws} -{self.losses}  {self.points:g}/{self.games} "
            f"({100 * self.fraction:.1f}%)  Elo {diff:+.0f} ± {err:.0f}"
        )


def elo_difference(score: float) -> float:
    """Elo difference that a score fraction implies (clamped away from 0 and 1)."""
    s = min(max(score, 0.001), 0.999)
    return -400 * math.log10(1 / s - 1) + 0.0  # + 0.0: no "-0"


def run_match(
    variant: str,
    a: int,
    b: int,
    games: int,
    time_limit: float | None = None,
    seed: int = 0,
    jobs: int = 1,
    node_limit: int | None = None,
    progress: Callable[[int, GameRecord, Score], None] | None = None,
    time_scale: float = 1.0,
) -> Score:
    """Level ``a`` against level ``b``: ``games`` games, colours alternating per opening."""
    rules = get_rules(variant)
    openings = balanced_openings(rules, (games + 1) // 2, seed)
    tasks = []
    for i in range(games):
        opening = openings[(i // 2) % len(openings)]
        a_white = i % 2 == 0
        white, black = (a, b) if a_white else (b, a)
        tasks.append(
            (
                (variant, opening, white, black, time_limit, seed + i, node_limit, time_scale),
                a_white,
            )
        )
    score = Score()
    if jobs <= 1:
        for i, (args, a_white) in enumerate(tasks):
            record = play_game(*args)
            score.add(record, a_white)
            if progress:
                progress(i, record, score)
        return score
    with ProcessPoolExecutor(jobs) as pool:
        futures = [pool.submit(play_game, *args) for args, _ in tasks]
        for i, (fut, (_, a_white)) in enumerate(zip(futures, tasks, strict=True)):
            record = fut.result()
            score.add(record, a_white)
            if progress:
                progress(i, record, score)
    return score


# --- terminal play --------------------------------------------------------------------


def play_terminal(
    variant: str,
    level: int = 3,
    fen: str | None = None,
    color: str | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """A game against the computer on the terminal; returns an exit code."""
    rules = get_rules(variant)
    get_level(level)
    game = Game(rules, fen)
    human = Color(color) if color else game.side_to_move
    write(
        f"{rules.name_en}, you play {human}, the computer level {level}. "
        "Type a move ('11-15', '22x15'), 'moves', 'undo' or 'quit'."
    )
    history: list[tuple[int, int, int, int]] = []
    while not game.is_over:
        pos = game.position
        write("")
        write(str(pos))
        if pos.side_to_move is human:
            try:
                text = read(f"{pos.side_to_move} to move> ").strip()
            except EOFError:
                return 0
            if text in ("quit", "q", "exit"):
                return 0
            if text == "moves":
                write(" ".join(str(m) for m in pos.legal_moves()))
                continue
            if text == "undo":
                if len(game.moves) >= 2:
                    notation = game.notation[:-2]
                    game = Game.replay(rules, fen, notation)
                    history = []
                continue
            try:
                move = game.play(text)
            except EngineError as e:
                write(str(e))
                continue
        else:
            t0 = time.perf_counter()
            result = search_move(
                pos, level, seed=None if seed is None else seed + len(game.moves), history=history
            )
            assert result.move is not None
            move = game.play(result.move)
            write(
                f"computer plays {move}  (depth {result.depth}, {result.nodes} nodes, "
                f"{time.perf_counter() - t0:.1f}s)"
            )
        if pos.is_irreversible(move):
            history.clear()
        else:
            history.append(pos.key())
    write("")
    write(str(game.position))
    assert game.result is not None and game.reason is not None
    winner = {"white": "White wins", "black": "Black wins", "draw": "Draw"}[game.result.value]
    write(f"{winner} ({game.reason.value}).")
    return 0


# --- command line ---------------------------------------------------------------------


def _level(text: str) -> int:
    n = int(text)
    if not MIN_LEVEL <= n <= MAX_LEVEL:
        raise argparse.ArgumentTypeError(
            f"level {n} does not exist: choose {MIN_LEVEL} to {MAX_LEVEL}"
        )
    return n


def _cmd_play(args: argparse.Namespace) -> int:
    return play_terminal(args.variant, args.level, args.fen, args.color, args.seed)


def _cmd_match(args: argparse.Namespace) -> int:
    def progress(i: int, record: GameRecord, score: Score) -> None:
        if not args.quiet:
            print(
                f"game {i + 1:3d}: {' '.join(record.opening):24s} "
                f"L{record.white_level}-L{record.black_level} {record.result.pdn:8s} "
                f"{record.reason:16s} {record.plies:3d} plies   {score}",
                flush=True,
            )

    start = time.perf_counter()
    score = run_match(
        args.variant,
        args.a,
        args.b,
        args.games,
        args.time,
        args.seed,
        args.jobs,
        progress=progress,
        time_scale=args.time_scale,
    )
    print(
        f"{args.variant}: level {args.a} vs level {args.b}: {score}  "
        f"[{time.perf_counter() - start:.0f}s]"
    )
    return 0


# Whatever parser class the caller's subparsers make (engine/cli.py's own).
_Parser = TypeVar("_Parser", bound=argparse.ArgumentParser)


def add_subcommands(subparsers: argparse._SubParsersAction[_Parser]) -> None:
    """Register ``play`` and ``match`` on the engine command line's subparsers.
    Each sets ``run`` (and its alias ``func``): ``args.run(args)`` returns the exit code."""
    variants = sorted(VARIANTS)
    p = subparsers.add_parser("play", help="play against the computer in the terminal")
    p.add_argument("variant", choices=variants)
    p.add_argument("--level", type=_level, default=3, help="computer level 1-8 (default 3)")
    p.add_argument("--fen", help="start from this position")
    p.add_argument(
        "--color", choices=["white", "black"], help="your colour (default: the side to move first)"
    )
    p.add_argument("--seed", type=int, help="make the computer's choices reproducible")
    p.set_defaults(run=_cmd_play, func=_cmd_play)

    m = subparsers.add_parser("match", help="engine match between two computer levels")
    m.add_argument("variant", choices=variants)
    m.add_argument("--a", type=_level, required=True, help="level of engine A")
    m.add_argument("--b", type=_level, required=True, help="level of engine B")
    m.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    m.add_argument("--time", type=float, help="cap on seconds per move for both sides")
    m.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="multiply each level's think time (0.25: a quicker match)",
    )
    m.add_argument("--seed", type=int, default=0, help="seed of openings and play")
    m.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    m.add_argument("--quiet", action="store_true", help="print only the final score")
    m.set_defaults(run=_cmd_match, func=_cmd_match)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.match")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
