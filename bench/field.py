"""Level 8 against an engine of the field over the Hub protocol: International draughts.

    .venv/bin/python bench/field.py --engine "/opt/scan/scan hub" --cwd /opt/scan
    .venv/bin/python bench/field.py --engine "..." --cwd ... --times 0.1,1 --games 40

The engine stays outside the repository: build it yourself and name its command. For
Scan 2.0 (github.com/rhalbersma/scan, ``cd src && make``) that is ``scan hub``, run
in Scan's folder (``--cwd``) so it finds ``scan.ini`` and ``data/`` (its evaluation,
opening book and bitbases; threads, book and bitbases are set in ``scan.ini``).

The dialect is Scan 2.0's (``hub_loop`` in its ``src/main.cpp``): ``hub`` is answered
with ``wait``, ``init`` with ``ready``; each game starts with ``new``, and before each
of the engine's moves it gets the whole position (``pos`` and 51 characters: the side
to move, ``w`` or ``b``, then squares 1-50 as ``e``, ``w``, ``b``, ``W``, ``B``), then
its time (``time`` in milliseconds, after ``pos``, which resets it) and ``go``; it
answers ``move 32-28`` or ``move 28x19x23`` (from, to, each captured square), mapped
to our one legal move with the same start, end and captured squares. Nothing is sent
while it thinks: Scan gives up its search on any input. Scan 3's hub (the one
lidraughts runs) speaks another dialect and is not driven here.

Level 8 plays without its depth floor (``bench/strength.py``'s equal time), from
balanced openings with colours alternating; games are adjudicated as there. Each line
prints the score, the Elo difference with its 95% margin, level 8's mean depth and
the seconds a move each side took, and under it who crowned the first king in the
games level 8 lost, drew and won (with the median number of pieces on the board then;
against Scan 2.0 the first king ends games lost long before it, see ``--judge``); the
last line is one JSON object,
``{"vs_field": {seconds: score}, "engine": ENGINE}``. A script that prints figures,
not a test.

``--judge MS`` has the engine judge the games level 8 lost, afterwards: it analyses
level 8's position every fourth ply from ply 8 (``analyse`` after ``time MS``; its
score is its last ``info`` line's third number, in hundredths of a man for the side
to move) and a line under the score tells at which ply, as a median over those
games, and with how many pieces on the board, level 8's position first fell below
-50, -100 and -200 in the engine's eyes, and how many games were below -100 by ply
12 (lost in the opening the match gave). Against Scan 2.0 this showed the games
drifting away from the opening on, not turning at the first king (README).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strength import (  # noqa: E402
    GameOutcome,
    Opponent,
    number,
    outcome_line,
    play_against,
    score_of,
)

from engine import Game, Move, Position, get_rules  # noqa: E402
from engine.match import balanced_openings  # noqa: E402
from engine.pdn import write_pdn  # noqa: E402
from engine.rules import Color, Rules  # noqa: E402

VARIANT = "international"  # the rule set Scan 2.0's hub plays
# Seconds an engine has to answer hub and init (Scan loads its book and bitbases then).
STARTUP_SECONDS = 60.0


class Hub:
    """An engine child process speaking Scan 2.0's hub dialect."""

    def __init__(self, command: str, cwd: str | None):
        self.process = subprocess.Popen(
            shlex.split(command),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        # An engine that never answers would hang the match: it is stopped instead.
        watchdog = threading.Timer(STARTUP_SECONDS, self.process.kill)
        watchdog.start()
        try:
            self.send("hub")
            self.expect("wait")
            self.send("init")
            self.expect("ready")
        except (OSError, RuntimeError) as exc:
            if not watchdog.is_alive():
                raise RuntimeError(
                    f"no answer to hub and init within {STARTUP_SECONDS:g} s"
                ) from exc
            raise
        finally:
            watchdog.cancel()

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, word: str) -> str:
        """The first line starting with ``word``, skipping the others (info lines)."""
        return self._until(word)[-1]

    def _until(self, word: str) -> list[str]:
        """The lines up to and including the first one starting with ``word``."""
        assert self.process.stdout is not None
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine exited (code {self.process.wait()})")
            lines.append(line.strip())
            if line.split()[:1] == [word]:
                return lines
            if line.startswith("error"):
                raise RuntimeError(f"the engine says: {line.strip()}")

    def analyse(self, position: str, milliseconds: int) -> int | None:
        """The engine's score of ``position`` for the side to move after ``milliseconds``
        of analysis: the third number of its last ``info`` line (``info depth
        mean-depth score nodes seconds speed pv``), None where it printed none."""
        self.send(f"pos {position}")
        self.send(f"time {milliseconds}")
        self.send("analyse")
        score = None
        for line in self._until("move"):
            words = line.split()
            if words[:1] == ["info"] and len(words) > 3:
                score = int(words[3])
        return score

    def move(self, position: str, milliseconds: int) -> str:
        self.send(f"pos {position}")
        self.send(f"time {milliseconds}")
        self.send("go")
        return self.expect("move").split()[1]

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()


def hub_position(rules: Rules, pos: Position) -> str:
    """``pos`` as the hub's 51 characters: side to move, then squares 1-50."""
    board = ["e"] * len(rules.board.squares)
    for sq in rules.board.squares:
        bit = 1 << sq
        colour = "w" if pos.white & bit else "b" if pos.black & bit else ""
        if colour:
            board[number(rules, sq) - 1] = colour.upper() if pos.kings & bit else colour
    return ("w" if pos.side_to_move is Color.WHITE else "b") + "".join(board)


def our_move(rules: Rules, legal: list[Move], text: str) -> Move:
    """The one legal move the hub's ``32-28`` or ``28x19x23`` names."""
    if "x" in text:
        start, end, *captured = (int(s) for s in text.split("x"))
    else:
        start, end = (int(s) for s in text.split("-"))
        captured = []
    found = [
        m
        for m in legal
        if number(rules, m.path[0]) == start
        and number(rules, m.path[-1]) == end
        and sorted(number(rules, c) for c in m.captured) == sorted(captured)
    ]
    if len(found) != 1:
        raise RuntimeError(f"the engine played {text}, which is not one legal move here")
    return found[0]


class HubOpponent(Opponent):
    """The hub engine as ``play_against``'s opponent: a fresh process a game, told the
    whole position before each of its moves."""

    def __init__(self, command: str, cwd: str, seconds: float):
        self.command, self.cwd, self.seconds = command, cwd or None, seconds
        self.hub: Hub | None = None

    def start(self, game: Game) -> None:
        self.hub = Hub(self.command, self.cwd)
        self.hub.send("new")

    def move(self, game: Game, legal: list[Move], seed: int) -> tuple[Move, int | None, float]:
        assert self.hub is not None
        started = time.perf_counter()
        text = self.hub.move(hub_position(game.rules, game.position), round(self.seconds * 1000))
        return our_move(game.rules, legal, text), None, time.perf_counter() - started

    def close(self) -> None:
        if self.hub is not None:
            self.hub.close()


def game_vs_hub(
    opening: list[str], ours_white: bool, seconds: float, seed: int, command: str, cwd: str
) -> GameOutcome:
    """One game of level 8 against the hub engine at ``seconds`` a move."""
    return play_against(
        HubOpponent(command, cwd, seconds), VARIANT, opening, ours_white, seconds, seed
    )


def game_record(outcome: GameOutcome, name: str, seed: int) -> str:
    """One match game as PDN. A game stopped by the match's adjudication (or left
    unfinished by an error) is written with the result ``*``, as PDN has it for a game
    not over on the board, and the match's verdict in a ``Termination`` tag."""
    rules = get_rules(VARIANT)
    game = Game.replay(rules, None, outcome.notation)
    ours, theirs = "Kondavo level 8", name
    verdict = outcome.error or outcome.reason
    if outcome.points is not None and game.result is None:
        verdict += f", {outcome.points:g} for level 8"
    tags = {
        "Event": f"bench/field.py {outcome.seconds:g} s a move",
        "Round": str(seed),
        "White": ours if outcome.ours_white else theirs,
        "Black": theirs if outcome.ours_white else ours,
        "Termination": verdict,
    }
    return write_pdn(game, tags)


def first_king(outcome: GameOutcome) -> tuple[str, int] | None:
    """Who crowned the game's first king, "ours" or "theirs", and how many pieces stood
    on the board then; None for a game that ended without a king."""
    game = Game.replay(get_rules(VARIANT), None, outcome.notation)
    position = game.start_position
    for move in game.moves:
        position = position.play(move)
        if position.kings:
            white = bool(position.white & position.kings)
            pieces = (position.white | position.black).bit_count()
            return ("ours" if white == outcome.ours_white else "theirs"), pieces
    return None


def first_king_line(outcomes: list[GameOutcome], name: str) -> str:
    """Who crowned first in the games level 8 lost, drew and won, with the median number
    of pieces on the board then: where Scan 2.0 beats level 8, it is nearly always
    Scan that crowns first, in a game it was already winning (``judge_line``; README)."""
    parts = []
    for label, kept in (
        ("lost", lambda p: p == 0),
        ("drawn", lambda p: p == 0.5),
        ("won", lambda p: p == 1),
    ):
        games = [o for o in outcomes if o.points is not None and kept(o.points)]
        if not games:
            continue
        kings = [first_king(o) for o in games]
        counts = []
        for side, shown in (("theirs", name), ("ours", "level 8")):
            pieces = [k[1] for k in kings if k is not None and k[0] == side]
            if pieces:
                median = statistics.median(pieces)
                counts.append(f"{shown} {len(pieces)} (median {median:g} pieces)")
        none = sum(k is None for k in kings)
        if none:
            counts.append(f"no king {none}")
        parts.append(f"{len(games)} {label}: " + ", ".join(counts))
    return "  first king: " + "; ".join(parts)


# Plies of a lost game the judge looks at: level 8's positions every fourth ply from here.
JUDGE_FROM = 8
JUDGE_EVERY = 4
# Below these scores (level 8's, in the engine's eyes) a game counts as slipping away.
JUDGE_THRESHOLDS = (-50, -100, -200)
# A game below -100 by this ply was lost in the opening the match gave it.
OPENING_PLIES = 12


def judge_game(
    notation: list[str], ours_white: bool, command: str, cwd: str, milliseconds: int
) -> list[tuple[int, int, int]]:
    """The engine's view of one game: (ply, pieces on the board, level 8's score) for
    level 8's positions every ``JUDGE_EVERY`` plies from ``JUDGE_FROM``, until the
    score falls below the last threshold."""
    rules = get_rules(VARIANT)
    game = Game.replay(rules, None, notation)
    hub = Hub(command, cwd or None)
    out: list[tuple[int, int, int]] = []
    try:
        hub.send("new")
        position = game.start_position
        ours = Color.WHITE if ours_white else Color.BLACK
        for ply, move in enumerate(game.moves):
            if ply >= JUDGE_FROM and ply % JUDGE_EVERY < 2 and position.side_to_move is ours:
                score = hub.analyse(hub_position(rules, position), milliseconds)
                if score is not None:
                    out.append((ply, (position.white | position.black).bit_count(), score))
                    if score < JUDGE_THRESHOLDS[-1]:
                        break
            position = position.play(move)
    finally:
        hub.close()
    return out


def judge_line(views: list[list[tuple[int, int, int]]], name: str, milliseconds: int) -> str:
    """Where the lost games slipped away in the engine's eyes: for each threshold the
    median ply (and pieces) at which level 8's score first fell below it."""
    parts = []
    for threshold in JUDGE_THRESHOLDS:
        below = [
            next((p, n) for p, n, s in v if s < threshold)
            for v in views
            if any(s < threshold for _, _, s in v)
        ]
        if below:
            ply = statistics.median(p for p, _ in below)
            pieces = statistics.median(n for _, n in below)
            parts.append(f"below {threshold} in {len(below)}, at ply {ply:g} ({pieces:g} pieces)")
        else:
            parts.append(f"below {threshold} in none")
    opening = sum(1 for v in views if any(p <= OPENING_PLIES and s < -100 for p, _, s in v))
    return (
        f"  judged by {name} at {milliseconds} ms a position, {len(views)} lost games: "
        + ", ".join(parts)
        + f" (medians); {opening} below -100 by ply {OPENING_PLIES}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", required=True, help='the engine\'s command, e.g. "scan hub"')
    parser.add_argument("--cwd", default="", help="the folder to run it in")
    parser.add_argument(
        "--name", default="", help="its name in the output (default: the program's)"
    )
    parser.add_argument("--games", type=int, default=20, help="games a time")
    parser.add_argument("--times", default="0.1", help="seconds a move, comma-separated")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pdn", default="", help="write every game to this PDN file, to look at afterwards"
    )
    parser.add_argument(
        "--judge",
        type=int,
        default=0,
        metavar="MS",
        help="the engine judges the lost games afterwards, MS milliseconds a position",
    )
    args = parser.parse_args(argv)
    name = args.name or os.path.basename(shlex.split(args.engine)[0])
    times = [float(t) for t in args.times.split(",") if t]
    try:  # the engine starts and answers hub and init, or nothing is played
        Hub(args.engine, args.cwd or None).close()
    except (OSError, RuntimeError) as exc:
        print(f"field: cannot start {args.engine!r}: {exc}", file=sys.stderr)
        return 2
    openings = balanced_openings(get_rules(VARIANT), (args.games + 1) // 2, args.seed)
    print(f"field: level 8 vs {name}, {VARIANT}, {args.games} games a time, {args.jobs} jobs")
    started = time.perf_counter()
    summary: dict[str, float] = {}
    errors: list[str] = []
    records: list[str] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for seconds in times:
            outcomes = list(
                pool.map(
                    game_vs_hub,
                    [openings[(i // 2) % len(openings)] for i in range(args.games)],
                    [i % 2 == 0 for i in range(args.games)],
                    [seconds] * args.games,
                    [args.seed + i for i in range(args.games)],
                    [args.engine] * args.games,
                    [args.cwd] * args.games,
                )
            )
            errors += [f"{seconds:g}s: {o.error}" for o in outcomes if o.error]
            records += [game_record(o, name, args.seed + i) for i, o in enumerate(outcomes)]
            points = [o.points for o in outcomes if o.points is not None]
            summary[f"{seconds:g}"] = round(score_of(points).fraction, 3)
            print(
                outcome_line(f"{VARIANT} {seconds:g}s/move: vs {name}", outcomes, name), flush=True
            )
            print(first_king_line(outcomes, name), flush=True)
            lost = [o for o in outcomes if o.points == 0]
            if args.judge and lost:
                views = list(
                    pool.map(
                        judge_game,
                        [o.notation for o in lost],
                        [o.ours_white for o in lost],
                        [args.engine] * len(lost),
                        [args.cwd] * len(lost),
                        [args.judge] * len(lost),
                    )
                )
                print(judge_line(views, name, args.judge), flush=True)
    if args.pdn:
        with open(args.pdn, "w", encoding="utf-8") as out:
            out.write("\n".join(records))
        print(f"{len(records)} games written to {args.pdn}")
    for e in errors[:10]:
        print(f"  error: {e}")
    print(f"elapsed {time.perf_counter() - started:.0f} s")
    print(json.dumps({"vs_field": summary, "engine": name}))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
