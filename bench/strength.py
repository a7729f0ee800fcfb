"""How strong the computer is: level 8 against py-draughts, and each level against the one below.

    .venv/bin/python bench/strength.py --quick      # a few games of each kind, < 5 minutes
    .venv/bin/python bench/strength.py              # the issue's run: 40 games a rule set
    .venv/bin/python bench/strength.py --times 0.1 --games 40 --ladder-games 20
    .venv/bin/python bench/strength.py --baseline 63ae8e0 --times 0.1 --games 40
    .venv/bin/python bench/strength.py --without reductions --times 1 --games 20

1. Level 8 against the strongest engine of the PyPI package ``py-draughts`` (its
   ``TurboEngine`` on 10x10, its alpha-beta ``SimpleEngine`` on 8x8: Turbo plays
   only 10x10) at equal time per move (``--times``, default 0.1 s and 1 s; level 8
   without its depth floor, which could run past the clock), on
   International, Brazilian and Russian (py-draughts gets English wrong), from
   balanced openings with colours alternating. py-draughts runs in its own virtual
   environment (``--pyd-python``; without it, one made on first use and reused in
   the user's cache folder, ``~/.cache/kondavo/pydraughts-venv``) as a child
   process speaking JSON lines (``bench/pyd_driver.py``): it gets the game's start
   FEN in numeric squares, every move played, and "go, T seconds"; its answer is
   mapped to our legal move by path (or start, end and captured squares). At every
   ply both libraries' legal moves are compared; any disagreement is reported.
   Our side decides the result (its rules are the ones the server plays). Each line
   also prints the seconds per move each side actually took (moves with one legal
   reply left out): py-draughts' 8x8 engine reads its clock only every 2,048 nodes
   and may run past the time it was given.
2. The ladder: level k+1 against level k for every rule set. Each step is played at
   the two levels' own ratio of think times, both scaled down so that the higher
   level thinks at most ``--ladder-budget`` seconds a move (level 8 against 7: 3 s
   and 0.75 s become 0.15 s and 0.0375 s at the default); steps whose levels think
   less than that play exactly as the server plays them. So the ladder fits in a
   session without changing what sets neighbouring levels apart.

3. ``--baseline REV`` (instead of 1 and 2): level 8 of the working tree against level 8
   of git revision REV, whose ``engine/`` is extracted (``git archive``) into a
   temporary folder and run in its own process per worker (``bench/baseline_driver.py``),
   both at equal time per move without their depth floors, from balanced openings
   with colours alternating, in every rule set of ``--variants`` at every time of
   ``--times``. Each line prints both sides' mean depth and seconds per move; the last
   line is ``{"vs_baseline": {variant: {seconds: score}}, "baseline": REV}``. The
   measure of every engine change: it pays only if this says so.

4. ``--without FEATURES`` (instead of 1 and 2): the same match, level 8 of the working
   tree against itself with search features turned off (``SearchParams`` switches:
   ``reductions``, ``forward_pruning``, ``endgame``; and ``patterns``, the evaluation's
   learned pattern tables; comma-separated). What each feature is worth at a given
   time per move: the table that keeps it or not.

Games vs py-draughts, against the baseline and ladder games are adjudicated as
engine-testing tools do (``engine.match.Adjudicator``): three pieces ahead against
no king for six quiet plies wins; level king endings for ten quiet plies are drawn.

Scores are fractions of a point for level 8 / the higher level, with the Elo
difference and its 95% error margin. The last line is one JSON object:
``{"vs_py_draughts": {variant: score}, "ladder": {variant: [2v1, 3v2, ..., 8v7]}}``
(``vs_py_draughts`` pools every time control; with ``--ladder-steps`` the lists hold
only the steps played). A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nodes import checkout_engine  # noqa: E402

from engine import VARIANTS, Game, Move, Position, get_rules  # noqa: E402
from engine.game import Result  # noqa: E402
from engine.levels import (  # noqa: E402
    MAX_LEVEL,
    MIN_LEVEL,
    game_history,
    get_level,
)
from engine.match import (  # noqa: E402
    MAX_PLIES,
    Adjudicator,
    Score,
    balanced_openings,
    play_game,
)
from engine.rules import Color, Rules  # noqa: E402
from engine.search import Searcher, SearchParams  # noqa: E402

PYD_VARIANTS = ("international", "brazilian", "russian")
DRIVER = Path(__file__).with_name("pyd_driver.py")
BASELINE_DRIVER = Path(__file__).with_name("baseline_driver.py")
REPO = Path(__file__).resolve().parent.parent
# What --without turns off (bench/baseline_driver.py): SearchParams' feature switches,
# and the evaluation's pattern tables.
SWITCHES = ("reductions", "forward_pruning", "endgame", "patterns")

# --- squares in PDN numbers -------------------------------------------------------------


def number(rules: Rules, square: int) -> int:
    """The PDN number of one of our squares (8x8 boards are named algebraically here)."""
    name = rules.square_name(square)
    if name.isdigit():
        return int(name)
    col, row = "abcdefgh".index(name[0]), 8 - int(name[1:])  # row 0: Black's back rank
    return row * 4 + col // 2 + 1


def numeric_fen(rules: Rules, fen: str) -> str:
    """Our FEN with every square as its PDN number."""
    side, *fields = fen.split(":")
    out = [side]
    for f in fields:
        colour, body = f[0], f[1:]
        squares = []
        for item in filter(None, body.split(",")):
            king = item.startswith("K")
            name = item[1:] if king else item
            n = int(name) if name.isdigit() else number_from_name(name)
            squares.append(("K" if king else "") + str(n))
        out.append(colour + ",".join(squares))
    return ":".join(out)


def number_from_name(name: str) -> int:
    col, row = "abcdefgh".index(name[0]), 8 - int(name[1:])
    return row * 4 + col // 2 + 1


def move_key(rules: Rules, move: Move) -> tuple[int, int, tuple[int, ...]]:
    return (
        number(rules, move.path[0]),
        number(rules, move.path[-1]),
        tuple(sorted(number(rules, c) for c in move.captured)),
    )


# --- py-draughts behind a pipe ----------------------------------------------------------


class Pipe:
    """A child process that answers one JSON line with one JSON line."""

    def __init__(self, argv: list[str]):
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            raise RuntimeError(f"{self.name} exited (code {self.process.wait()})")
        answer = json.loads(reply)
        if "error" in answer:
            raise RuntimeError(f"{self.name}: {answer['error']} (after {request})")
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(10)

    @property
    def name(self) -> str:
        return Path(self.process.args[1]).stem  # type: ignore[index]


# One child of each kind per worker process, started on first use (never pickled).
_DRIVERS: dict[tuple[str, ...], Pipe] = {}


def _driver(python: str) -> Pipe:
    return _pipe([python, str(DRIVER)])


def _pipe(argv: list[str]) -> Pipe:
    key = tuple(argv)
    if key not in _DRIVERS:
        _DRIVERS[key] = Pipe(argv)
    return _DRIVERS[key]


def pyd_python(given: str | None) -> str:
    """py-draughts' interpreter: ``given``, or a virtual environment in the user's cache
    folder (``$XDG_CACHE_HOME/kondavo/pydraughts-venv``, else ``~/.cache/...``), made
    with ``venv`` and ``pip install py-draughts`` the first time and reused after."""
    if given:
        return given
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    venv = cache / "kondavo" / "pydraughts-venv"
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    probe = [str(python), "-c", "import draughts.engines.turbo"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return str(python)
    print(f"making py-draughts' environment in {venv} (once)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "py-draughts"], check=True)
    subprocess.run(probe, check=True)
    return str(python)


@dataclass
class GameOutcome:
    variant: str
    seconds: float
    ours_white: bool
    points: float | None  # level 8's points; None: the game could not be finished
    reason: str
    plies: int
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    our_depths: list[int] = field(default_factory=list)
    # Wall time each side took per move it thought about (forced moves left out): "equal
    # time" is what both were given, and these show what each took (py-draughts' 8x8
    # engine reads its clock every 2,048 nodes, so it may run past it).
    our_seconds: list[float] = field(default_factory=list)
    their_seconds: list[float] = field(default_factory=list)
    their_depths: list[int] = field(default_factory=list)  # the baseline's (not py-draughts')
    # The game's moves in PDN notation, from the start position (the opening included),
    # so a match's games can be written out and looked at (bench/field.py --pdn).
    notation: list[str] = field(default_factory=list)


def equal_time_params(seconds: float, seed: int) -> SearchParams:
    """Level 8's search held to exactly ``seconds``: without its depth floor, which may
    run past the clock (``Level.min_depth``), as py-draughts never does."""
    return replace(get_level(MAX_LEVEL).params(seed, seconds), min_depth=0)


class Opponent:
    """The other side of one match game, as ``play_against`` drives it: what the games
    against py-draughts, another revision and an engine of the field
    (``bench/field.py``) differ in. Every step but ``move`` does nothing by default."""

    def start(self, game: Game) -> None:
        """The game begins (its opening already played in ``game``)."""

    def see(self, position: Position, legal: list[Move]) -> None:
        """Each position before its move is chosen, whoever is to move."""

    def move(self, game: Game, legal: list[Move], seed: int) -> tuple[Move, int | None, float]:
        """Its move in ``game.position``, the depth it reached (None if it does not say),
        and the seconds it took."""
        raise NotImplementedError

    def played(self, move: Move) -> None:
        """``move`` was played, by either side."""

    def close(self) -> None:
        """The game is over."""


def play_against(
    opponent: Opponent,
    variant: str,
    opening: list[str],
    ours_white: bool,
    seconds: float,
    seed: int,
) -> GameOutcome:
    """One game of the working tree's level 8 (one searcher, as an engine keeps one table
    a game) against ``opponent`` at ``seconds`` a move, from ``opening``: played until
    over, adjudicated or too long. An exception leaves the game out of the score with its
    error; forced moves are left out of the depths and seconds."""
    rules = get_rules(variant)
    game = Game.replay(rules, None, list(opening))
    outcome = GameOutcome(variant, seconds, ours_white, None, "", 0)
    ours = Color.WHITE if ours_white else Color.BLACK
    searcher = Searcher(rules)
    adjudicator = Adjudicator()
    verdict: Result | None = None
    try:
        opponent.start(game)
        while not game.is_over and len(game.moves) < MAX_PLIES:
            pos = game.position
            legal = pos.legal_moves()
            opponent.see(pos, legal)
            move_seed = seed * 1000 + len(game.moves)
            if pos.side_to_move is ours:
                result = searcher.search(
                    pos, game_history(game), equal_time_params(seconds, move_seed)
                )
                assert result.move is not None
                move, depth, took = result.move, result.depth, result.seconds
                depths, times = outcome.our_depths, outcome.our_seconds
            else:
                move, depth, took = opponent.move(game, legal, move_seed)
                depths, times = outcome.their_depths, outcome.their_seconds
            if len(legal) > 1:
                if depth is not None:
                    depths.append(depth)
                times.append(took)
            game.play(move)
            opponent.played(move)
            if not game.is_over:
                verdict = adjudicator.verdict(game.position)
                if verdict is not None:
                    break
    except Exception as exc:  # reported, and the game left out of the score
        outcome.error = f"{type(exc).__name__}: {exc}"
        outcome.plies = len(game.moves)
        outcome.notation = list(game.notation)
        return outcome
    finally:
        opponent.close()
    return _finish(outcome, game, verdict)


def _finish(outcome: GameOutcome, game: Game, verdict: Result | None) -> GameOutcome:
    """The outcome's result from the finished (or adjudicated, or too long) game."""
    ours_white = outcome.ours_white
    outcome.plies = len(game.moves)
    outcome.notation = list(game.notation)
    if game.is_over:
        assert game.result is not None and game.reason is not None
        res, outcome.reason = game.result, game.reason.value
    elif verdict is not None:
        res, outcome.reason = verdict, "adjudicated"
    else:
        res, outcome.reason = Result.DRAW, "adjudicated: too long"
    if res is Result.DRAW:
        outcome.points = 0.5
    else:
        outcome.points = 1.0 if (res is Result.WHITE_WINS) == ours_white else 0.0
    return outcome


class PyDraughts(Opponent):
    """py-draughts' engine behind its pipe (``bench/pyd_driver.py``), which also lists
    its legal moves at every position: where they differ from ours, the game records it."""

    def __init__(self, rules: Rules, python: str, seconds: float, disagreements: list):
        self.rules, self.pipe, self.seconds = rules, _driver(python), seconds
        self.disagreements = disagreements

    def start(self, game: Game) -> None:
        rules = self.rules
        self.pipe.ask(
            cmd="new", variant=rules.id, fen=numeric_fen(rules, game.start_position.fen())
        )
        for move in game.moves:
            self.played(move)

    def see(self, position: Position, legal: list[Move]) -> None:
        ours = {move_key(self.rules, m) for m in legal}
        theirs = {(a, b, tuple(c)) for a, b, c in self.pipe.ask(cmd="legal")["legal"]}
        if ours != theirs:
            self.disagreements.append(
                {
                    "fen": position.fen(),
                    "only_kondavo": sorted(ours - theirs),
                    "only_py_draughts": sorted(theirs - ours),
                }
            )

    def move(self, game: Game, legal: list[Move], seed: int) -> tuple[Move, int | None, float]:
        started = time.perf_counter()
        answer = self.pipe.ask(cmd="go", time=self.seconds)
        return _our_move(self.rules, legal, answer), None, time.perf_counter() - started

    def played(self, move: Move) -> None:
        self.pipe.ask(cmd="push", path=[number(self.rules, s) for s in move.path])


def game_vs_pyd(
    variant: str, opening: list[str], ours_white: bool, seconds: float, seed: int, python: str
) -> GameOutcome:
    """One game of level 8 against py-draughts at ``seconds`` a move."""
    disagreements: list[dict[str, Any]] = []
    outcome = play_against(
        PyDraughts(get_rules(variant), python, seconds, disagreements),
        variant,
        opening,
        ours_white,
        seconds,
        seed,
    )
    outcome.disagreements = disagreements
    return outcome


def _our_move(rules: Rules, legal: list[Move], answer: dict[str, Any]) -> Move:
    path = answer["path"]
    exact = [m for m in legal if [number(rules, s) for s in m.path] == path]
    if len(exact) == 1:
        return exact[0]
    key = (path[0], path[-1], tuple(sorted(answer["captured"])))
    by_key = [m for m in legal if move_key(rules, m) == key]
    if len(by_key) == 1:
        return by_key[0]
    raise RuntimeError(
        f"py-draughts played {path} (captured {answer['captured']}), "
        f"which is not one legal move here"
    )


# --- another revision's level 8 -----------------------------------------------------------


class Baseline(Opponent):
    """Level 8 of another tree in its own process (``bench/baseline_driver.py``)."""

    def __init__(self, base_dir: str, seconds: float, off: str):
        argv = [sys.executable, str(BASELINE_DRIVER), base_dir, *(["--off", off] if off else [])]
        self.pipe, self.seconds = _pipe(argv), seconds

    def start(self, game: Game) -> None:
        self.pipe.ask(cmd="new", variant=game.rules.id, moves=[str(m) for m in game.moves])

    def move(self, game: Game, legal: list[Move], seed: int) -> tuple[Move, int | None, float]:
        answer = self.pipe.ask(cmd="go", time=self.seconds, seed=seed)
        return game.position.parse_move(answer["move"]), answer["depth"], answer["seconds"]

    def played(self, move: Move) -> None:
        self.pipe.ask(cmd="push", move=str(move))


def game_vs_baseline(
    variant: str,
    opening: list[str],
    ours_white: bool,
    seconds: float,
    seed: int,
    base_dir: str,
    off: str = "",
) -> GameOutcome:
    """One game of the working tree's level 8 against ``base_dir``'s level 8 (its own
    process, with the search switches ``off`` turned off), both at ``seconds`` a move
    without their depth floors."""
    return play_against(
        Baseline(base_dir, seconds, off), variant, opening, ours_white, seconds, seed
    )


def ladder_game(
    variant: str, opening: list[str], white: int, black: int, seed: int, scale: float
) -> tuple[str, str, int]:
    record = play_game(variant, opening, white, black, seed=seed, time_scale=scale)
    return record.result.value, record.reason, record.plies


# --- reporting --------------------------------------------------------------------------


def score_of(points: list[float]) -> Score:
    score = Score()
    for p in points:
        if p == 1.0:
            score.wins += 1
        elif p == 0.0:
            score.losses += 1
        else:
            score.draws += 1
    return score


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def line(label: str, score: Score) -> str:
    return f"{label:<44} {score}"


def outcome_line(label: str, outcomes: list[GameOutcome], their: str) -> str:
    """A match line: score, Elo, and what each side reached and took per move."""
    done = [o for o in outcomes if o.points is not None]
    points = [o.points for o in done if o.points is not None]
    depths = mean([d for o in done for d in o.our_depths])
    plies = mean([o.plies for o in done])
    ours_s = mean([t for o in done for t in o.our_seconds])
    theirs_s = mean([t for o in done for t in o.their_seconds])
    their_depth = [d for o in done for d in o.their_depths]
    reached = f"our depth {depths:.1f}" + (
        f", {their} {mean(their_depth):.1f}" if their_depth else ""
    )
    return (
        line(label, score_of(points)) + f"  [{len(done)} games, {plies:.0f} plies avg, "
        f"{reached}; s/move taken: ours {ours_s:.3f}, {their} {theirs_s:.3f}]"
    )


def run_baseline(args: argparse.Namespace) -> int:
    """Level 8 of the working tree against level 8 of ``args.baseline``, every rule set of
    ``--variants`` at every time of ``--times``, from balanced openings (each played
    with both colours). The baseline runs in its own process per worker
    (``bench/baseline_driver.py``) on its own ``engine/``, extracted to a temporary folder."""
    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        get_rules(v)  # an unknown rule set fails here, naming the known ones
    times = [float(t) for t in args.times.split(",") if t]
    started = time.perf_counter()
    summary: dict[str, dict[str, float]] = {}
    errors: list[str] = []
    off = args.without or ""
    with tempfile.TemporaryDirectory(prefix="kondavo-baseline-") as extracted:
        if off:
            folder, rev = str(REPO), f"without {off}"
        else:
            rev, built = checkout_engine(args.baseline, Path(extracted))
            folder = extracted
        against = f"itself {rev}" if off else f"level 8 of {rev}"
        if not off:
            against += " (compiled)" if built else " (pure Python: no accelerator built)"
        print(
            f"strength: level 8 of the working tree vs {against}, "
            f"{args.games} games a rule set and time, {args.jobs} jobs",
            flush=True,
        )
        with ProcessPoolExecutor(args.jobs) as pool:
            for seconds in times:
                tasks = {}
                for variant in variants:
                    openings = balanced_openings(
                        get_rules(variant), (args.games + 1) // 2, args.seed
                    )
                    tasks[variant] = [
                        pool.submit(
                            game_vs_baseline,
                            variant,
                            openings[(i // 2) % len(openings)],
                            i % 2 == 0,
                            seconds,
                            args.seed + i,
                            folder,
                            off,
                        )
                        for i in range(args.games)
                    ]
                for variant in variants:
                    outcomes = [t.result() for t in tasks[variant]]
                    errors += [f"{variant} {seconds:g}s: {o.error}" for o in outcomes if o.error]
                    points = [o.points for o in outcomes if o.points is not None]
                    summary.setdefault(variant, {})[f"{seconds:g}"] = round(
                        score_of(points).fraction, 3
                    )
                    print(
                        outcome_line(f"{variant} {seconds:g}s/move: vs {rev}", outcomes, rev),
                        flush=True,
                    )
    for e in errors[:10]:
        print(f"  error: {e}")
    print(f"elapsed {time.perf_counter() - started:.0f} s")
    if off:
        print(json.dumps({"vs_without": summary, "without": off.split(",")}))
    else:
        print(json.dumps({"vs_baseline": summary, "baseline": rev}))
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few, fast games: < 5 minutes")
    parser.add_argument("--games", type=int, default=40, help="games per rule set and time")
    parser.add_argument("--times", default="0.1,1", help="seconds per move vs py-draughts")
    parser.add_argument("--ladder-games", type=int, default=20, help="games per ladder step")
    parser.add_argument(
        "--ladder-budget",
        type=float,
        default=0.15,
        help="seconds a move for the higher level of a step, at most",
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"rule sets to play (py-draughts plays only {', '.join(PYD_VARIANTS)} of them)",
    )
    parser.add_argument(
        "--ladder-steps",
        default="",
        help="higher levels of the steps to play, e.g. 7,8 (default: all)",
    )
    parser.add_argument("--skip-ladder", action="store_true")
    parser.add_argument("--skip-pyd", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--pyd-python",
        default=None,
        help="interpreter with py-draughts (default: one made in the cache "
        "folder, ~/.cache/kondavo/pydraughts-venv)",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="play level 8 of the working tree against level 8 of git "
        "revision REV instead (every --variants rule set, --times, "
        "--games); no py-draughts match, no ladder",
    )
    parser.add_argument(
        "--without",
        metavar="FEATURES",
        help="play level 8 of the working tree against itself with these search "
        f"features off ({', '.join(SWITCHES)}) instead; no py-draughts match, no ladder",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.without:
        unknown = set(args.without.split(",")) - set(SWITCHES)
        if unknown:
            parser.error(
                f"no search switch {', '.join(sorted(unknown))}; the switches: "
                + ", ".join(SWITCHES)
            )
    if args.quick:
        args.games, args.times, args.ladder_games, args.ladder_budget = 2, "0.1", 2, 0.02
    if args.baseline or args.without:
        return run_baseline(args)
    args.pyd_python = None if args.skip_pyd else pyd_python(args.pyd_python)
    times = [float(t) for t in args.times.split(",") if t]
    steps = [int(h) for h in args.ladder_steps.split(",") if h] or list(
        range(MIN_LEVEL + 1, MAX_LEVEL + 1)
    )
    ladder_variants = [v for v in args.variants.split(",") if v]
    for v in ladder_variants:
        get_rules(v)  # an unknown rule set fails here, naming the known ones
    pyd_variants = [v for v in PYD_VARIANTS if v in ladder_variants]
    started = time.perf_counter()
    print(
        f"strength: {'quick' if args.quick else 'full'} run, {args.jobs} jobs, "
        f"py-draughts {'skipped' if args.skip_pyd else args.pyd_python}",
        flush=True,
    )

    vs_pyd: dict[str, list[float]] = {v: [] for v in pyd_variants}
    disagreements: list[dict[str, Any]] = []
    errors: list[str] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        if not args.skip_pyd:
            for seconds in times:
                tasks = []
                for variant in pyd_variants:
                    openings = balanced_openings(
                        get_rules(variant), (args.games + 1) // 2, args.seed
                    )
                    for i in range(args.games):
                        opening = openings[(i // 2) % len(openings)]
                        tasks.append(
                            pool.submit(
                                game_vs_pyd,
                                variant,
                                opening,
                                i % 2 == 0,
                                seconds,
                                args.seed + i,
                                args.pyd_python,
                            )
                        )
                by_variant: dict[str, list[GameOutcome]] = {v: [] for v in pyd_variants}
                for task in tasks:
                    outcome = task.result()
                    by_variant[outcome.variant].append(outcome)
                for variant in pyd_variants:
                    done = [o for o in by_variant[variant] if o.points is not None]
                    for o in by_variant[variant]:
                        disagreements += [{"variant": variant, **d} for d in o.disagreements]
                        if o.error:
                            errors.append(f"{variant} {seconds}s: {o.error}")
                    vs_pyd[variant] += [o.points for o in done if o.points is not None]
                    print(
                        outcome_line(
                            f"{variant} {seconds:g}s/move: level 8 vs py-draughts",
                            by_variant[variant],
                            "py-draughts",
                        ),
                        flush=True,
                    )
            print(f"legal-move disagreements between the libraries: {len(disagreements)}")
            for d in disagreements[:10]:
                print(
                    f"  {d['variant']} {d['fen']}: only Kondavo {d['only_kondavo']}, "
                    f"only py-draughts {d['only_py_draughts']}"
                )
            for e in errors[:10]:
                print(f"  error: {e}")
            for variant in pyd_variants:
                if vs_pyd[variant]:
                    print(
                        line(
                            f"{variant} all times: level 8 vs py-draughts",
                            score_of(vs_pyd[variant]),
                        )
                    )

        ladder: dict[str, list[float]] = {}
        if not args.skip_ladder:
            tasks2 = {}
            for variant in ladder_variants:
                openings = balanced_openings(
                    get_rules(variant), (args.ladder_games + 1) // 2, args.seed
                )
                for high in steps:
                    for i in range(args.ladder_games):
                        opening = openings[(i // 2) % len(openings)]
                        high_white = i % 2 == 0
                        white, black = (high, high - 1) if high_white else (high - 1, high)
                        tasks2[(variant, high, i)] = (
                            high_white,
                            pool.submit(
                                ladder_game,
                                variant,
                                opening,
                                white,
                                black,
                                args.seed + i,
                                min(1.0, args.ladder_budget / get_level(high).think_time),
                            ),
                        )
            for variant in ladder_variants:
                ladder[variant] = []
                for high in steps:
                    score = Score()
                    for i in range(args.ladder_games):
                        high_white, task = tasks2[(variant, high, i)]
                        result, _, _ = task.result()
                        if result == "draw":
                            score.draws += 1
                        elif (result == "white") == high_white:
                            score.wins += 1
                        else:
                            score.losses += 1
                    ladder[variant].append(round(score.fraction, 3))
                    print(line(f"{variant}: level {high} vs level {high - 1}", score), flush=True)

    for pipe in _DRIVERS.values():
        pipe.close()
    print(f"elapsed {time.perf_counter() - started:.0f} s")
    summary = {
        "vs_py_draughts": {v: round(sum(p) / len(p), 3) if p else None for v, p in vs_pyd.items()},
        "ladder": ladder,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
