"""Level 8 of another revision behind a pipe: JSON lines on stdin, one answer per line.

``bench/strength.py --baseline REV`` extracts REV's ``engine/`` into a temporary folder
and starts this script with that folder as its first argument, so the ``engine`` this
process imports is REV's, never the working tree's (checked below). It uses only calls
that every revision since the levels were introduced has: ``get_rules``, ``Game``,
``get_level``, ``Searcher``, ``game_history``.

Requests:
- ``{"cmd": "new", "variant": V, "moves": [m...]}``: a game from the start position
  after the opening moves (in the rule set's notation).
- ``{"cmd": "push", "move": m}``: play a move (full path in notation).
- ``{"cmd": "go", "time": T, "seed": S}``: level 8's move after at most ``T`` seconds,
  without its depth floor (the same rule ``strength.equal_time_params`` applies to the
  working tree): ``{"move": m, "depth": d, "seconds": s}``.

Every answer is one line; errors are ``{"error": "..."}``.

``--off a,b`` after the folder turns those ``SearchParams`` switches off in every
search, and ``patterns`` the evaluation's pattern tables (``bench/strength.py
--without``, where the folder is the working tree).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from json_lines import serve


def main() -> None:
    root = Path(sys.argv[1]).resolve()
    off = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[2] == "--off" else []
    sys.path.insert(0, str(root))
    import engine
    from engine import Game, get_rules
    from engine.levels import MAX_LEVEL, game_history, get_level
    from engine.search import Searcher

    if root not in Path(engine.__file__).resolve().parents:
        raise SystemExit(f"imported {engine.__file__}, not the engine of {root}")

    game = None
    searcher = None
    switches = [switch for switch in off if switch != "patterns"]

    def evaluator(rules):
        if "patterns" not in off:
            return None  # the rule set's own
        from engine.evaluation import Evaluator, weights_for

        return Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=None))

    def answer(req: dict) -> dict:
        nonlocal game, searcher
        cmd = req["cmd"]
        if cmd == "new":
            rules = get_rules(req["variant"])
            game = Game.replay(rules, None, list(req["moves"]))
            # One a game, as the working tree's side has.
            searcher = Searcher(rules, evaluator=evaluator(rules))
            return {"ok": True}
        if cmd == "push":
            game.play(req["move"])
            return {"ok": True}
        if cmd == "go":
            params = dataclasses.replace(
                get_level(MAX_LEVEL).params(int(req["seed"]), float(req["time"])),
                min_depth=0,
                **{switch: False for switch in switches},
            )
            result = searcher.search(game.position, game_history(game), params)
            return {"move": str(result.move), "depth": result.depth, "seconds": result.seconds}
        return {"error": f"unknown command {cmd!r}"}

    serve(answer)


if __name__ == "__main__":
    main()
