"""py-draughts behind a pipe: JSON lines on stdin, one JSON answer per line on stdout.

Runs in py-draughts' own virtual environment (``bench/strength.py`` starts it with
that interpreter); it imports nothing of Kondavo but its pipe loop (``json_lines.py``,
stdlib only). Squares are PDN numbers (1-based).

Requests:
- ``{"cmd": "new", "variant": V, "fen": F}``: a fresh board from FEN ``F``.
- ``{"cmd": "push", "path": [s...]}``: play the legal move with this path (or
  start and end when the path differs only in its middle squares).
- ``{"cmd": "go", "time": T}``: the strongest engine's move after ``T`` s:
  ``{"path": [...], "captured": [...]}``.
- ``{"cmd": "legal"}``: ``{"legal": [[start, end, [captured...]], ...], "fen": ...}``.

Every answer is one line; errors are ``{"error": "..."}``.
"""

from __future__ import annotations

from draughts import BrazilianBoard, RussianBoard, StandardBoard
from draughts.engines.simple import SimpleEngine
from draughts.engines.turbo import TurboEngine
from json_lines import serve

BOARDS = {"international": StandardBoard, "brazilian": BrazilianBoard, "russian": RussianBoard}


def engine_for(variant: str, seconds: float):
    """py-draughts' strongest engine for the board: Turbo on 10x10 (it plays nothing
    else), the alpha-beta SimpleEngine on 8x8; depth left open so time decides."""
    if variant == "international":
        return TurboEngine(depth_limit=None, time_limit=seconds)
    return SimpleEngine(depth_limit=64, time_limit=seconds)


def path_of(move) -> list[int]:
    return [s + 1 for s in move.square_list]


def main() -> None:
    board = None
    engines: dict[tuple[str, float], object] = {}
    variant = ""

    def answer(req: dict) -> dict:
        nonlocal board, variant
        cmd = req["cmd"]
        if cmd == "new":
            engines.clear()  # a new game: no tables carried over from the last
            variant = req["variant"]
            board = BOARDS[variant].from_fen(req["fen"])
            return {"ok": True}
        if cmd == "push":
            want = req["path"]
            legal = board.legal_moves
            found = [m for m in legal if path_of(m) == want] or [
                m
                for m in legal
                if path_of(m)[0] == want[0]
                and path_of(m)[-1] == want[-1]
                and len(m.square_list) == len(want)
            ]
            if len(found) != 1:
                return {"error": f"no single legal move for path {want}"}
            board.push(found[0])
            return {"ok": True}
        if cmd == "go":
            key = (variant, float(req["time"]))
            if key not in engines:
                engines[key] = engine_for(variant, float(req["time"]))
            move = engines[key].get_best_move(board)
            return {"path": path_of(move), "captured": sorted(s + 1 for s in move.captured_list)}
        if cmd == "legal":
            return {
                "legal": [
                    [path_of(m)[0], path_of(m)[-1], sorted(s + 1 for s in m.captured_list)]
                    for m in board.legal_moves
                ],
                "fen": board.fen,
            }
        return {"error": f"unknown command {cmd!r}"}

    serve(answer)


if __name__ == "__main__":
    main()
