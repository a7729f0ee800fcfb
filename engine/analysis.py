"""The analyst: an evaluation of every position of a game, and a judgement of every move.

A position's evaluation is the search's score at a fixed node budget, turned to White's
point of view, in hundredths of a man (a won position is ``+-WIN`` less the plies to
the win). A move's *loss* is how much worse its mover stands after it than the search
thought the mover stood before it, both at the same budget: lichess judges chess moves
by lost centipawns the same way. Losses are measured on evaluations capped at ``CAP``
(a position several men up is won whatever the exact figure) and judged by
``JUDGEMENTS``.

A node budget, not a time budget, makes an analysis the same on a busy machine as on an
idle one, and the same every time it is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .evaluation import WIN, WIN_BOUND
from .game import Game
from .position import WHITE, Position
from .search import Searcher, SearchParams
from .variants import get_rules

DEFAULT_NODES = 20_000  # per position: about a fifth of a second on 10x10
MAX_NODES = 200_000
MAX_PLIES = 600  # positions of one analysis, past any real game
PV_PLIES = 8  # moves of the engine's line kept per position
CAP = 800  # eight men: beyond it a position counts as won however large its score
# Hundredths of a man one move lost, worst first. lichess's chess thresholds are
# 50/100/300 centipawns; a man is worth about a pawn and a half and draughts games
# are decided by smaller margins, so ours are a little tighter.
JUDGEMENTS: tuple[tuple[str, int], ...] = (("blunder", 200), ("mistake", 90), ("inaccuracy", 40))


@dataclass(frozen=True)
class PositionEval:
    """The search's verdict on the position after ``ply`` moves."""

    ply: int
    white_to_move: bool
    eval: int  # White's point of view, hundredths of a man; +-(WIN - n): won in n plies
    best: str | None  # the move the search prefers (None: the game is over here)
    pv: list[str] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "ply": self.ply,
            "white_to_move": self.white_to_move,
            "eval": self.eval,
            "best": self.best,
            "pv": self.pv,
            "depth": self.depth,
            "nodes": self.nodes,
            "win_in": win_in(self.eval),
        }


def win_in(score: int) -> int | None:
    """Plies to the end of a won (positive) or lost (negative) score; None otherwise.

    >>> win_in(WIN - 3), win_in(-(WIN - 4)), win_in(250)
    (3, -4, None)
    """
    if abs(score) < WIN_BOUND:
        return None
    plies = WIN - abs(score)
    return plies if score > 0 else -plies


def replayed(variant: str, start_fen: str | None, moves: list[str]) -> Game:
    """The record replayed as it was played: a game that went on past a repetition
    nobody claimed is analysed to its end. Raises the engine's ``ValueError``s for a
    bad FEN or move (``InvalidFenError``, ``IllegalMoveError``...)."""
    game = Game(get_rules(variant), start_fen, automatic_draws=False)
    for text in moves:
        game.play(text)
    return game


def _positions_and_histories(
    game: Game,
) -> tuple[list[Position], list[list[tuple[int, int, int, int]]]]:
    """Every position of ``game``, and for each the keys of the earlier ones that can
    recur (since the last irreversible move): what the search needs to see a
    repetition coming, as ``levels.game_history`` gives it for the last one."""
    position = game.start_position
    positions = [position]
    histories: list[list[tuple[int, int, int, int]]] = [[]]
    keys: list[tuple[int, int, int, int]] = []
    for move in game.moves:
        keys = [] if position.is_irreversible(move) else [*keys, position.key()]
        position = position.play(move)
        positions.append(position)
        histories.append(keys)
    return positions, histories


def evaluate_positions(
    variant: str,
    start_fen: str | None,
    moves: list[str],
    plies: list[int],
    nodes: int = DEFAULT_NODES,
) -> list[dict[str, object]]:
    """Process-pool entry point: the evaluations (``PositionEval.to_json``) of the
    positions after each of ``plies`` moves of the record, ``nodes`` nodes each."""
    rules = get_rules(variant)
    positions, histories = _positions_and_histories(replayed(variant, start_fen, moves))
    budget = max(1_000, min(nodes, MAX_NODES))
    searcher = Searcher(rules, SearchParams(node_limit=budget))
    found: list[dict[str, object]] = []
    for ply in plies:
        position = positions[ply]
        if not position.legal_moves():
            # No legal move (or no piece left): the side to move has lost.
            white_to_move = position.turn == WHITE
            found.append(
                PositionEval(ply, white_to_move, -WIN if white_to_move else WIN, None).to_json()
            )
            continue
        white_to_move = position.turn == WHITE
        # A forced move is answered at once by the search, with no look past it: look
        # past the forced moves (a capture chain's replies, say) and search from there.
        forced: list[str] = []
        history = histories[ply]
        while len(legal := position.legal_moves()) == 1 and len(forced) < PV_PLIES:
            history = [] if position.is_irreversible(legal[0]) else [*history, position.key()]
            forced.append(str(legal[0]))
            position = position.play(legal[0])
        if not legal:
            score = WIN - len(forced)  # the forced line ends the game for its last victim
            score = -score if (position.turn == WHITE) else score
            found.append(PositionEval(ply, white_to_move, score, forced[0], forced).to_json())
            continue
        result = searcher.search(position, history, SearchParams(node_limit=budget))
        score = result.score if position.turn == WHITE else -result.score
        line = forced + [str(move) for move in result.pv] or (
            [str(result.move)] if result.move is not None else []
        )
        line = line[:PV_PLIES]
        best = line[0] if line else None
        found.append(
            PositionEval(
                ply, white_to_move, score, best, line, result.depth + len(forced), result.nodes
            ).to_json()
        )
    return found


def _capped(score: int) -> int:
    return max(-CAP, min(CAP, score))


def judge_moves(evals: list[int], white_moves: list[bool]) -> list[dict[str, object]]:
    """Each move's loss (hundredths of a man, never negative) and judgement (None,
    "inaccuracy", "mistake" or "blunder"). ``evals[i]`` is White's view of the position
    after ``i`` moves (one more than moves); ``white_moves[i]``: White made move ``i``.

    >>> [j["judgement"] for j in judge_moves([0, 10, 300, 290], [True, False, True])]
    [None, 'blunder', None]
    """
    judged: list[dict[str, object]] = []
    for i, white in enumerate(white_moves):
        before, after = _capped(evals[i]), _capped(evals[i + 1])
        loss = max(0, before - after if white else after - before)
        verdict = next((name for name, least in JUDGEMENTS if loss >= least), None)
        judged.append({"ply": i + 1, "loss": loss, "judgement": verdict})
    return judged


def summary(judged: list[dict[str, object]], white_moves: list[bool]) -> dict[str, object]:
    """Per side: how many inaccuracies, mistakes and blunders, and the average loss."""
    sides: dict[str, object] = {}
    for side, white in (("white", True), ("black", False)):
        losses = [
            int(str(j["loss"])) for j, w in zip(judged, white_moves, strict=True) if w == white
        ]
        verdicts = [j["judgement"] for j, w in zip(judged, white_moves, strict=True) if w == white]
        counts = {name: verdicts.count(name) for name, _ in JUDGEMENTS}
        sides[side] = {**counts, "average_loss": round(sum(losses) / len(losses)) if losses else 0}
    return sides
