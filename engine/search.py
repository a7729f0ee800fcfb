"""Alpha-beta search for every rule set: the computer opponent's thinking.

Iterative deepening over a negamax principal-variation search, with a
transposition table, killer and history move ordering, a one-reply extension,
and a capture quiescence: captures are compulsory, so a position is "quiet"
only when the side to move has no capture, and only quiet positions are scored
statically. Everything lives in a ``Searcher`` (tables, counters, the random
generator seeded from ``SearchParams.seed``): no module state, safe to run in
several processes or threads at once.

Positions are keyed by a Zobrist hash: one random 64-bit number per (colour,
man or king, square) and one for the side to move, XORed together. A move
updates the key with a few XORs (the piece leaves its square, lands on another,
captured pieces vanish, the turn flips) instead of hashing four bitboards, and a
Python int key is cheaper for the tables than a tuple. Two positions sharing a
key (odds about 2^-64 per pair) could only swap a score: a table move is always
matched against the real legal moves before it is used.

The search works on bare bitboards ``(own, opp, kings, turn)`` and the move
generator's functions, not on ``Position`` objects: making a move is four
integer operations.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import accel
from .endgame import EndgameTable, default_pieces, table_for
from .evaluation import WIN, WIN_BOUND, Evaluator
from .move import Move
from .movegen import capture_moves, has_capture, legal_moves
from .position import Position
from .rules import Rules
from .tables import tables_for

INF = WIN + 1
MAX_PLY = 120
MAX_DEPTH = 64  # iterations of the deepening: "as deep as the budget allows"

# Transposition-table bounds.
EXACT, LOWER, UPPER = 0, 1, 2
# Half-width of the first root window around the last iteration's score.
ASPIRATION = 30
# Forward pruning (ProbCut): at a node expected to fail high, a search of about 2/5 the
# depth whose score clears beta by this many hundredths of a man per ply of depth is
# taken as the node's cut. Draughts has no null move (zugzwang is everywhere), so a
# shallow search stands in for it; it gave level 8 about half a ply more at the same nodes.
# It is tried at nodes whose moves are captures too, as Scan 2.0 does: a third fewer
# nodes to depth 14 on International's games (README).
PROBCUT_MARGIN = 10
# Late-move reductions: quiet moves after the first (after the third at nodes on the
# root's window, where the line that counts runs) are searched a ply shallower, two
# from the seventh at the others, and searched again at full depth if they beat alpha.
# As Scan 2.0 does; the ordering puts the table's move, killers and history first, so
# the late ones are rarely the best.
LMR_PV_FROM = 3
LMR_TWO_FROM = 6
# Pieces more than the endgame tables hold at which the search starts probing them.
ENDGAME_NEAR = 4
# How far past its time limit a search may run to complete its ``min_depth``.
FLOOR_OVERRUN = 3.0
EVAL_CACHE = 1 << 18  # entries of the static-score cache
# Entries of the legal-move cache (about 0.4 kB each on 10x10: some 27 MB when full).
# Iterative deepening and transpositions generate the moves of a position again and
# again; a colliding key could only mislead one line of the search, never the root.
MOVE_CACHE = 1 << 16


# A table entry: (depth, score, bound, best move as (start, end, captured mask)).
_Entry = tuple[int, int, int, tuple[int, int, int] | None]
# The Zobrist numbers come from a fixed seed: every process keys a position alike.
ZOBRIST_SEED = 0x6B6F6E6461766F


@dataclass(frozen=True)
class Zobrist:
    """Random keys of one board size: ``men[colour][sq]``, ``kings[colour][sq]``, and
    ``turn`` (XORed in when Black is to move)."""

    men: tuple[tuple[int, ...], tuple[int, ...]]
    kings: tuple[tuple[int, ...], tuple[int, ...]]
    turn: int

    @classmethod
    def for_size(cls, size: int) -> Zobrist:
        rng = random.Random(ZOBRIST_SEED)

        def row() -> tuple[int, ...]:
            return tuple(rng.getrandbits(64) for _ in range(size))

        men = (row(), row())
        kings = (row(), row())
        return cls(men, kings, rng.getrandbits(64))

    def key(self, white: int, black: int, kings: int, turn: int) -> int:
        """The key of a whole position (the search updates it move by move)."""
        h = self.turn if turn else 0
        for colour, bits in ((0, white), (1, black)):
            men, kgs = self.men[colour], self.kings[colour]
            while bits:
                low = bits & -bits
                sq = low.bit_length() - 1
                h ^= kgs[sq] if kings & low else men[sq]
                bits ^= low
        return h


class _Stop(Exception):
    """The time or node budget ran out; unwinds the search to the root."""


@dataclass(frozen=True)
class SearchParams:
    """How hard and how long to think.

    ``max_depth`` in plies; ``time_limit`` in seconds and ``node_limit`` in nodes
    (either may be None: unlimited). ``noise`` adds a random amount in
    ``[-noise, noise]`` (hundredths of a man) to every root move's score, so weak
    levels blunder like people do. ``seed`` makes noise and tie-breaks
    reproducible; with a node limit (not a time limit) the whole search is.
    """

    max_depth: int = MAX_DEPTH
    time_limit: float | None = None
    node_limit: int | None = None
    noise: int = 0
    seed: int | None = None
    # Plies completed whatever the clock says, within FLOOR_OVERRUN times the time
    # limit: a level's floor, so a short think in a rule set with many moves (Turkish)
    # still looks further than the fixed-depth level below it.
    min_depth: int = 0
    tt_size: int = 1 << 17  # entries (about 0.4 kB each); a full table takes no more
    reductions: bool = True  # late-move reductions for quiet moves
    forward_pruning: bool = True  # ProbCut (``PROBCUT_MARGIN``)
    # Probe the endgame tables (``engine/endgame.py``) once the root has at most
    # ENDGAME_NEAR pieces more than they hold (loaded, or built once, only then).
    endgame: bool = False


@dataclass
class SearchResult:
    move: Move | None  # None only when the side to move has no legal move
    score: int  # for the side to move, hundredths of a man (WIN - plies when winning)
    depth: int  # the last depth completed
    nodes: int
    seconds: float
    pv: list[Move] = field(default_factory=list)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class Searcher:
    """One search engine for one rule set. Reuse it across the moves of a game to keep
    its transposition table; create one per process for concurrent searches."""

    def __init__(
        self, rules: Rules, params: SearchParams | None = None, evaluator: Evaluator | None = None
    ) -> None:
        self.rules = rules
        self.params = params or SearchParams()
        self.evaluator = evaluator or Evaluator(rules)
        self._score = self.evaluator.score
        self.t = tables_for(rules)
        self.rng = random.Random(self.params.seed)
        size = max(rules.board.squares) + 1
        self._size = size
        self.zobrist = Zobrist.for_size(size)
        self._zmen, self._zkings, self._zturn = (
            self.zobrist.men,
            self.zobrist.kings,
            self.zobrist.turn,
        )
        self.tt: dict[int, _Entry] = {}
        # Static scores of quiet positions (they do not depend on the path or window).
        self._evals: dict[int, int] = {}
        # Legal moves by key, in the generator's order (never sorted in place).
        self._moves: dict[int, list[Move]] = {}
        self.history = [0] * (size * size)
        self.killers = [[-1, -1] for _ in range(MAX_PLY + 2)]
        self.nodes = 0
        self._deadline = 0.0
        self._node_limit = 0
        self._path: set[int] = set()
        self._improved: tuple[Move, int] | None = None
        self._tt_growth = 0  # entries the last search added to ``tt``
        self._reductions, self._tt_size = self.params.reductions, self.params.tt_size
        self._probcut = self.params.forward_pruning
        self._step_dirs = self.t.step_dirs
        self._king_dirs = self.t.king_dirs
        self._mask = self.t.mask
        self._egtb: EndgameTable | None = None
        self._eg_pieces = 0
        self._c_search: Any = None

    # --- public --------------------------------------------------------------------

    def search(
        self,
        position: Position,
        history: Iterable[tuple[int, int, int, int]] = (),
        params: SearchParams | None = None,
    ) -> SearchResult:
        """The best move found within the budget.

        ``history``: ``Position.key()`` of earlier positions of the game (since the
        last capture or man move is enough); reaching one of them again counts as a
        draw, so the engine neither walks into nor misses a repetition.
        """
        # The search makes no reference cycles: reference counting frees all it
        # allocates, and the cyclic collector would only rescan the growing tables
        # (a tenth of the time at 10x10). Paused for the search, restored after.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._search(position, history, params)
        finally:
            if collecting:
                gc.enable()

    def _search(
        self,
        position: Position,
        history: Iterable[tuple[int, int, int, int]],
        params: SearchParams | None,
    ) -> SearchResult:
        p = params or self.params
        if p is not self.params and p.seed is not None:
            self.rng = random.Random(p.seed)
        self._reductions, self._tt_size = p.reductions, p.tt_size
        self._probcut = p.forward_pruning
        self._egtb, self._eg_pieces = None, 0
        if p.endgame:
            n = default_pieces(self.rules)
            if n >= 2 and (position.white | position.black).bit_count() <= n + ENDGAME_NEAR:
                self._egtb = table_for(self.rules, n)
                self._eg_pieces = n if self._egtb is not None else 0
        start = time.perf_counter()
        self.nodes = 0
        deadline = start + p.time_limit if p.time_limit is not None else float("inf")
        floor_deadline = (
            start + FLOOR_OVERRUN * p.time_limit if p.time_limit is not None else deadline
        )
        self._node_limit = p.node_limit or (1 << 62)
        # The table takes no new entry once full, so a search that fills it runs on
        # without one from then on: a long one (a second on 10x10 adds some 20,000)
        # would spend its deepest iterations on a table of old moves' positions. It is
        # cleared while that could happen: when it lacks room for twice what the last
        # search added.
        if len(self.tt) + 2 * self._tt_growth >= p.tt_size:
            self.tt.clear()
        tt_before = len(self.tt)
        if len(self._evals) >= EVAL_CACHE:
            self._evals.clear()
        if len(self._moves) >= MOVE_CACHE:
            self._moves.clear()
        # Age the history so an old game's statistics fade.
        self.history = [h >> 2 for h in self.history]
        for k in self.killers:
            k[0] = k[1] = -1

        turn = position.turn
        own, opp = (
            (position.white, position.black) if turn == 0 else (position.black, position.white)
        )
        kings = position.kings
        zkey = self.zobrist.key
        history_keys = list(history)
        self._path = {zkey(w, b, k, tn) for w, b, k, tn in history_keys}
        root_key = zkey(position.white, position.black, kings, turn)
        self._path.discard(root_key)

        moves = list(legal_moves(self.t, own, opp, kings, turn))
        if not moves:
            return SearchResult(None, -WIN, 0, 1, time.perf_counter() - start)
        if len(moves) == 1:
            # A forced move: nothing to think about.
            score = self._static(own, opp, kings, turn)
            return SearchResult(moves[0], score, 0, 1, time.perf_counter() - start, [moves[0]])

        # The seed decides between equal moves (indexes shuffled, not the moves, so the
        # compiled search gets the same order: its moves are listed as these are).
        shuffled = list(range(len(moves)))
        self.rng.shuffle(shuffled)
        generated, moves = moves, [moves[i] for i in shuffled]
        noise = [self.rng.randint(-p.noise, p.noise) for _ in moves] if p.noise else None
        compiled = self._compiled()
        if compiled is not None:
            found = self._search_compiled(
                compiled, position, history_keys, generated, shuffled, noise, p
            )
            if found is not None:
                best, score, depth, nodes, pv = found
                seconds = time.perf_counter() - start
                self.nodes = nodes
                return SearchResult(best, score, depth, nodes, seconds, pv)

        best_move, best_score, done_depth = moves[0], -INF, 0
        self._path.add(root_key)
        try:
            for depth in range(1, max(1, p.max_depth) + 1):
                # Within the floor the search may overrun; past it the clock rules.
                self._deadline = floor_deadline if depth <= p.min_depth else deadline
                try:
                    self._improved = None
                    if noise is not None:
                        score, order = self._root_noisy(
                            own, opp, kings, turn, root_key, moves, depth, noise
                        )
                    else:
                        score, order = self._aspirate(
                            own,
                            opp,
                            kings,
                            turn,
                            root_key,
                            moves,
                            depth,
                            best_score if done_depth >= 3 else None,
                        )
                except _Stop:
                    # A move that beat the previous best in the unfinished iteration,
                    # searched in full, is better information than the last iteration.
                    if self._improved is not None:
                        best_move, best_score = self._improved
                    break
                moves = order
                best_move, best_score, done_depth = moves[0], score, depth
                if abs(score) > WIN_BOUND:
                    break  # a forced win or loss found: deeper search changes nothing
                # With a clock, go on until it runs out: the unfinished iteration searches
                # the best move first and keeps any move found to beat it.
        finally:
            self._path.discard(root_key)
        self._tt_growth = len(self.tt) - tt_before
        seconds = time.perf_counter() - start
        return SearchResult(
            best_move, best_score, done_depth, self.nodes, seconds, self._pv(position, best_move)
        )

    # --- the compiled search (engine/_accel/search.c) --------------------------------

    def _compiled(self) -> Any:
        """The compiled search for this searcher (an ``engine._accel.Search``), made on
        first use; None when the accelerator is not built or ``KONDAVO_ENGINE=python``
        asks for this one."""
        if not accel.available():
            return None
        if self._c_search is None:
            self._c_search = accel.search(self.rules, self.evaluator, self.params.tt_size)
        return self._c_search

    def _search_compiled(
        self,
        compiled: Any,
        position: Position,
        history: list[tuple[int, int, int, int]],
        moves: list[Move],
        order: list[int],
        noise: list[int] | None,
        p: SearchParams,
    ) -> tuple[Move, int, int, int, list[Move]] | None:
        """The compiled search of ``position`` (more than one legal move, ``moves`` in
        the generator's order, to be tried in ``order``): its move and line as this
        position's Move objects, with its score, depth and nodes. None, and the Python
        search answers, where the root has more moves than the C generator holds or the
        move found is not one of ``moves`` (the generators disagree: never seen, but
        never a wrong move)."""
        found = compiled.search(
            position.white,
            position.black,
            position.kings,
            position.turn,
            history,
            order,
            noise,
            p.max_depth,
            p.time_limit if p.time_limit is not None else -1.0,
            FLOOR_OVERRUN * p.time_limit if p.time_limit is not None else -1.0,
            p.node_limit or 0,
            p.min_depth,
            p.reductions,
            p.forward_pruning,
            self._egtb.probe if self._egtb is not None else None,
            self._eg_pieces,
        )
        if found is None:
            return None  # a root beyond the C generator's limits
        index, score, depth, nodes, line = found
        best = moves[index]
        f, to, capmask = line[0]
        if (best.path[0], best.path[-1], best.capmask) != (f, to, capmask):
            return None
        pv = [best]
        pos = position.play(best)
        for f, to, capmask in line[1:]:
            found = next(
                (
                    m
                    for m in pos.legal_moves()
                    if m.path[0] == f and m.path[-1] == to and m.capmask == capmask
                ),
                None,
            )
            if found is None:
                break
            pv.append(found)
            pos = pos.play(found)
        return best, score, depth, nodes, pv

    # --- root ----------------------------------------------------------------------

    def _aspirate(
        self,
        own: int,
        opp: int,
        kings: int,
        turn: int,
        h: int,
        moves: list[Move],
        depth: int,
        guess: int | None,
    ) -> tuple[int, list[Move]]:
        """One iteration at the root in a narrow window around the last score, widened
        and searched again when the score falls outside it."""
        if guess is None or abs(guess) > WIN_BOUND:
            return self._root(own, opp, kings, turn, h, moves, depth, -INF, INF)
        delta = ASPIRATION
        alpha, beta = guess - delta, guess + delta
        while True:
            score, order = self._root(own, opp, kings, turn, h, moves, depth, alpha, beta)
            if score <= alpha:
                alpha = -INF if delta >= 4 * ASPIRATION else score - 2 * delta
            elif score >= beta:
                beta = INF if delta >= 4 * ASPIRATION else score + 2 * delta
                moves = order  # the move that failed high goes first
            else:
                return score, order
            delta *= 2

    def _root(
        self,
        own: int,
        opp: int,
        kings: int,
        turn: int,
        h: int,
        moves: list[Move],
        depth: int,
        alpha: int,
        beta: int,
    ) -> tuple[int, list[Move]]:
        """One iteration at the root; returns the score and the moves best first.

        In a window ``(alpha, beta)``: a score at or below ``alpha`` means every move
        failed low; at or above ``beta``, the first move in the order failed high."""
        alpha0 = alpha
        scored: list[tuple[int, int]] = []
        best_i, best = 0, -INF
        for i, m in enumerate(moves):
            c_own, c_opp, c_kings, c_h = self._play(own, opp, kings, turn, h, m)
            if i == 0:
                score = -self._negamax(
                    c_own, c_opp, c_kings, turn ^ 1, depth - 1, -beta, -alpha, 1, c_h
                )
            else:
                score = -self._negamax(
                    c_own, c_opp, c_kings, turn ^ 1, depth - 1, -alpha - 1, -alpha, 1, c_h
                )
                if alpha < score < beta:
                    score = -self._negamax(
                        c_own, c_opp, c_kings, turn ^ 1, depth - 1, -beta, -alpha, 1, c_h
                    )
            scored.append((score if score > alpha or i == 0 else alpha - 1, i))
            if score > best:
                best, best_i = score, i
            if score > alpha:
                alpha = score
                if i and alpha0 < score:
                    self._improved = (m, score)
                if score >= beta:
                    break
        scored.sort(key=lambda s: -s[0])
        order = [moves[best_i]] + [moves[i] for _, i in scored if i != best_i]
        order += moves[len(scored) :]
        if alpha0 < best < beta:
            self._store(h, depth, best, EXACT, order[0])
        return best, order

    def _root_noisy(
        self,
        own: int,
        opp: int,
        kings: int,
        turn: int,
        h: int,
        moves: list[Move],
        depth: int,
        noise: list[int],
    ) -> tuple[int, list[Move]]:
        """The weak levels' root: the move with the best score plus its noise.

        A move only matters if its score plus its noise beats the best total so far,
        so each move after the first is searched with a null window at that bar, and
        searched again in full only when it clears it. That is the choice scoring every
        move exactly would make, at half the nodes, except where a window changes what
        the search prunes (a different but near-equal move in about one position in
        seven at depths 3-4). The time-limited levels that err (5-7) thus reach the
        depth their time buys, even in rule sets with many moves (Turkish)."""
        scored: list[tuple[int, int]] = []
        best_i, best = 0, -INF
        for i, m in enumerate(moves):
            c_own, c_opp, c_kings, c_h = self._play(own, opp, kings, turn, h, m)
            if -WIN_BOUND < best < WIN_BOUND:
                # Past the bar means above it: with it below WIN_BOUND, a won move
                # always clears it, and a lost one, never noisy, can never beat a
                # normal score.
                bar = min(best - noise[i], WIN_BOUND - 1)
                score = -self._negamax(
                    c_own, c_opp, c_kings, turn ^ 1, depth - 1, -bar - 1, -bar, 1, c_h
                )
                if score <= bar:
                    scored.append((score + noise[i], i))  # an upper bound is enough
                    continue
            score = -self._negamax(c_own, c_opp, c_kings, turn ^ 1, depth - 1, -INF, INF, 1, c_h)
            # Noise never hides a forced win or loss the search has seen.
            total = score + noise[i] if abs(score) < WIN_BOUND else score
            scored.append((total, i))
            if total > best:
                best, best_i = total, i
        scored.sort(key=lambda s: -s[0])
        order = [moves[best_i]] + [moves[i] for _, i in scored if i != best_i]
        return best, order

    # --- tree ----------------------------------------------------------------------

    def _play(
        self, own: int, opp: int, kings: int, turn: int, h: int, m: Move
    ) -> tuple[int, int, int, int]:
        """Bitboards and key after ``m`` by ``turn``, from the opponent's side:
        (own, opp, kings, key). Four integer operations for the bitboards; for the key,
        XORs of the moving piece, each captured piece and the side to move."""
        path = m.path
        f, to = path[0], path[-1]
        fb = 1 << f
        tb = 1 << to
        cap = m.capmask
        k = kings & ~cap
        if k & fb:
            k = (k & ~fb) | tb
            zk = self._zkings[turn]
            h ^= zk[f] ^ zk[to]
        elif m.promotes:
            k |= tb
            h ^= self._zmen[turn][f] ^ self._zkings[turn][to]
        else:
            zm = self._zmen[turn]
            h ^= zm[f] ^ zm[to]
        if cap:
            zm, zk = self._zmen[turn ^ 1], self._zkings[turn ^ 1]
            for c in m.captured:
                h ^= zk[c] if kings >> c & 1 else zm[c]
        return opp & ~cap, (own & ~fb) | tb, k, h ^ self._zturn

    def _static(self, own: int, opp: int, kings: int, turn: int) -> int:
        if turn == 0:
            return self._score(own, opp, kings, 0)
        return self._score(opp, own, kings, 1)

    def _can_step(self, own: int, opp: int, kings: int, turn: int) -> bool:
        """Whether the side to move has a quiet move (it has no capture here)."""
        empty = self._mask & ~(own | opp)
        men = own & ~kings
        for d in self._step_dirs[turn]:
            if ((men << d) if d > 0 else (men >> -d)) & empty:
                return True
        own_kings = own & kings
        if own_kings:
            for d in self._king_dirs:
                if ((own_kings << d) if d > 0 else (own_kings >> -d)) & empty:
                    return True
        return False

    def _quiesce(
        self,
        own: int,
        opp: int,
        kings: int,
        turn: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        h: int,
    ) -> int:
        """Play out forced captures; score the first quiet position. ``depth`` is
        ignored: the arguments are ``_negamax``'s, so a node whose children are all at
        the horizon calls this directly instead of through ``_negamax``. With endgame
        tables, a position of few enough pieces gets its exact result instead.

        (A quiescence that also stood pat and searched crowning moves, and at the
        horizon the steps that start a shot, did not pay: 47.5-51% against this one,
        80 games at 0.1 s a move; see issue 33's note. Nor did Scan 2.0's, with the
        steps that offer a plain exchange while no king is on the board, in the C
        search: 2.7 times the nodes, 43.8% and 47.5% (README).)"""
        self.nodes += 1
        if not self.nodes & 511:
            self._check_budget()
        if self._eg_pieces and (own | opp).bit_count() <= self._eg_pieces:
            return self._probe(own, opp, kings, turn, ply)
        # A position in the score cache is quiet: no capture to look for.
        score = self._evals.get(h)
        if score is not None:
            return score + ply if score == -WIN else score
        t = self.t
        moves = self._moves.get(h)
        if moves is None:
            if has_capture(t, own, opp, kings, turn):
                moves = capture_moves(t, own, opp, kings, turn)
                if len(self._moves) < MOVE_CACHE:
                    self._moves[h] = moves
        elif not moves or not moves[0].capmask:
            moves = None  # the cached moves are quiet ones
        if moves is None:
            if not own:
                return -WIN + ply
            if not self._can_step(own, opp, kings, turn):
                score = -WIN  # blocked: no legal move loses
            elif turn == 0:
                score = self._score(own, opp, kings, 0)
            else:
                score = self._score(opp, own, kings, 1)
            if len(self._evals) < EVAL_CACHE:
                self._evals[h] = score
            return score + ply if score == -WIN else score
        if ply >= MAX_PLY:
            return self._static(own, opp, kings, turn)
        if len(moves) > 1:
            # Most pieces first, then crowning moves (a sorted copy: the cache keeps the
            # generator's order, which the full-width nodes sort by their own keys).
            moves = sorted(moves, key=lambda m: -(len(m.captured) * 2 + m.promotes))
        best = -INF
        play = self._play
        for m in moves:
            c_own, c_opp, c_kings, c_h = play(own, opp, kings, turn, h, m)
            score = -self._quiesce(c_own, c_opp, c_kings, turn ^ 1, 0, -beta, -alpha, ply + 1, c_h)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def _negamax(
        self,
        own: int,
        opp: int,
        kings: int,
        turn: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        key: int,
    ) -> int:
        if depth <= 0:
            return self._quiesce(own, opp, kings, turn, 0, alpha, beta, ply, key)
        self.nodes += 1
        if not self.nodes & 511:
            self._check_budget()
        if key in self._path:
            return 0  # a repetition: a draw
        if ply >= MAX_PLY:
            return self._static(own, opp, kings, turn)
        if self._eg_pieces and (own | opp).bit_count() <= self._eg_pieces:
            return self._probe(own, opp, kings, turn, ply)

        tt_best = None
        entry = self.tt.get(key)
        if entry is not None:
            e_depth, e_score, e_flag, e_best = entry
            tt_best = e_best
            if e_depth >= depth:
                if e_score > WIN_BOUND:
                    e_score -= ply
                elif e_score < -WIN_BOUND:
                    e_score += ply
                if e_flag == EXACT:
                    if beta - alpha == 1:  # no cut at PV nodes keeps the PV whole
                        return e_score
                elif e_flag == LOWER:
                    if e_score >= beta:
                        return e_score
                elif e_score <= alpha:
                    return e_score

        moves = self._moves.get(key)
        if moves is None:
            moves = legal_moves(self.t, own, opp, kings, turn)
            if len(self._moves) < MOVE_CACHE:
                self._moves[key] = moves
        n = len(moves)
        if not n:
            return -WIN + ply  # no piece or no move: the side to move has lost

        size = self._size
        capture = bool(moves[0].capmask)
        if self._probcut and depth >= 3 and beta - alpha == 1 and -WIN_BOUND < beta < WIN_BOUND:
            bar = beta + PROBCUT_MARGIN * depth
            shallow = self._negamax(own, opp, kings, turn, depth * 2 // 5, bar - 1, bar, ply, key)
            if shallow >= bar:
                return shallow - PROBCUT_MARGIN * depth
        if n > 1:
            killers = self.killers[ply]
            history = self.history
            keys = []
            for m in moves:
                path = m.path
                if capture:
                    s = len(m.captured) * 1000 + m.promotes * 500
                else:
                    q = path[0] * size + path[-1]
                    if m.promotes:
                        s = 1 << 40
                    elif q == killers[0]:
                        s = 1 << 39
                    elif q == killers[1]:
                        s = 1 << 38
                    else:
                        s = history[q]
                if (
                    tt_best is not None
                    and path[0] == tt_best[0]
                    and path[-1] == tt_best[1]
                    and m.capmask == tt_best[2]
                ):
                    s = 1 << 50
                keys.append(s)
            order = sorted(range(n), key=keys.__getitem__, reverse=True)
            moves = [moves[i] for i in order]
            # One reply only (usually a forced capture): search it a ply deeper.
            new_depth = depth - 1
        else:
            new_depth = depth

        alpha0 = alpha
        pv_node = beta - alpha > 1
        best, best_move = -INF, moves[0]
        reduce_ok = self._reductions and not capture and depth >= 3
        path_set = self._path
        path_set.add(key)
        play = self._play
        child = self._quiesce if new_depth <= 0 else self._negamax
        try:
            for i, m in enumerate(moves):
                c_own, c_opp, k, c_key = play(own, opp, kings, turn, key, m)
                if i == 0:
                    score = -child(
                        c_own, c_opp, k, turn ^ 1, new_depth, -beta, -alpha, ply + 1, c_key
                    )
                else:
                    d = new_depth
                    if reduce_ok and not m.promotes and i >= (LMR_PV_FROM if pv_node else 1):
                        # Late quiet moves: look shallower first, two plies from the
                        # seventh on where no line of the root's window runs through.
                        d -= 1 + (not pv_node and i >= LMR_TWO_FROM)
                    # (reductions need depth >= 3: only a ``_negamax`` child is reduced)
                    score = -child(c_own, c_opp, k, turn ^ 1, d, -alpha - 1, -alpha, ply + 1, c_key)
                    if score > alpha and (d < new_depth or score < beta):
                        score = -child(
                            c_own, c_opp, k, turn ^ 1, new_depth, -beta, -alpha, ply + 1, c_key
                        )
                if score > best:
                    best, best_move = score, m
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if not capture:
                                q = m.path[0] * size + m.path[-1]
                                killers = self.killers[ply]
                                if killers[0] != q:
                                    killers[1] = killers[0]
                                    killers[0] = q
                                self.history[q] += depth * depth
                            break
        finally:
            path_set.discard(key)

        flag = LOWER if best >= beta else (EXACT if best > alpha0 else UPPER)
        stored = best
        if stored > WIN_BOUND:
            stored += ply
        elif stored < -WIN_BOUND:
            stored -= ply
        # Keep a deeper result of the same position (ProbCut's shallow search of this
        # very node, a transposition reached with fewer plies left) unless this one is
        # exact: as the compiled search's table does, so both walk the same tree.
        old = self.tt.get(key)
        if (old is None and len(self.tt) < self._tt_size) or (
            old is not None and (old[0] <= depth or flag == EXACT)
        ):
            # A node that failed low has no best move, only the least bad of a failed
            # search: keep the move an earlier search of it found, else none (as Scan
            # 2.0 does; 13% fewer nodes to depth 14 on International's games).
            kept: tuple[int, int, int] | None
            if flag == UPPER:
                kept = old[3] if old is not None else None
            else:
                kept = (best_move.path[0], best_move.path[-1], best_move.capmask)
            self.tt[key] = (depth, stored, flag, kept)
        return best

    def _store(self, key: int, depth: int, score: int, flag: int, move: Move) -> None:
        self.tt[key] = (depth, score, flag, (move.path[0], move.path[-1], move.capmask))

    def _probe(self, own: int, opp: int, kings: int, turn: int, ply: int) -> int:
        """The endgame table's exact result, as a score: won or lost in d plies from
        here is a win or loss at ``ply + d``, like a win the search found itself."""
        assert self._egtb is not None
        if not own:
            return -WIN + ply  # the table holds no position without a side's pieces
        if turn == 0:
            v = self._egtb.probe(own, opp, kings, 0)
        else:
            v = self._egtb.probe(opp, own, kings, 1)
        if v > 0:
            return WIN - ply - v
        if v < 0:
            return -WIN + ply - v - 1
        return 0

    def _check_budget(self) -> None:
        if self.nodes >= self._node_limit or time.perf_counter() >= self._deadline:
            raise _Stop

    def _pv(self, position: Position, first: Move | None) -> list[Move]:
        """The principal variation: the best move, then the table's best replies."""
        pv: list[Move] = []
        if first is None:
            return pv
        seen = set()
        pos = position
        move: Move | None = first
        while move is not None and len(pv) < 32:
            pv.append(move)
            pos = pos.play(move)
            key = self.zobrist.key(pos.white, pos.black, pos.kings, pos.turn)
            if key in seen:
                break
            seen.add(key)
            entry = self.tt.get(key)
            move = None
            if entry is not None and entry[3] is not None:
                f, to, capmask = entry[3]
                for m in pos.legal_moves():
                    if m.path[0] == f and m.path[-1] == to and m.capmask == capmask:
                        move = m
                        break
        return pv


def best_move(
    position: Position,
    params: SearchParams | None = None,
    history: Iterable[tuple[int, int, int, int]] = (),
) -> SearchResult:
    """Search ``position`` once with a fresh ``Searcher``."""
    return Searcher(position.rules, params).search(position, history)
