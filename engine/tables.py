"""Per-rule-set lookup tables, built once: the jumps and rays move generation walks."""

from __future__ import annotations

from .rules import Color, Rules

_CACHE: dict[str, Tables] = {}


class Tables:
    """Precomputed, read-only data for one rule set. Index 0 is White, 1 is Black."""

    def __init__(self, rules: Rules) -> None:
        board = rules.board
        groups = board.direction_groups
        self.rules = rules
        self.mask = board.mask
        self.flying = rules.flying_kings
        self.removed_at_once = rules.captured_removed_at_once
        self.no_turning_back = rules.no_turning_back
        self.men_capture_kings = rules.men_capture_kings
        self.crowning = rules.crowning_in_capture
        self.precedence = rules.capture_precedence

        def dirs(color: str, wanted: frozenset[str]) -> tuple[int, ...]:
            return tuple(d for g in ("forward", "sideways", "backward") if g in wanted
                         for d in groups[color][g])

        self.step_dirs = (dirs("white", rules.men_steps), dirs("black", rules.men_steps))
        self.capture_dirs = (dirs("white", rules.men_capture), dirs("black", rules.men_capture))
        self.king_dirs = board.directions
        self.promotion = (
            rules.promotion_mask(Color.WHITE),
            rules.promotion_mask(Color.BLACK),
        )
        size = max(board.squares) + 1
        rays = board.rays
        # man_jumps[side][sq]: (direction, victim, landing) for every jump a man might make.
        self.man_jumps: tuple[list[tuple], list[tuple]] = ([()] * size, [()] * size)
        for side in (0, 1):
            for sq in board.squares:
                self.man_jumps[side][sq] = tuple(
                    (d, rays[sq][d][0], rays[sq][d][1])
                    for d in self.capture_dirs[side] if len(rays[sq][d]) >= 2
                )
        # king_jumps[sq]: short-range kings; king_rays[sq]: flying kings.
        self.king_jumps: list[tuple] = [()] * size
        self.king_rays: list[tuple] = [()] * size
        for sq in board.squares:
            self.king_jumps[sq] = tuple(
                (d, rays[sq][d][0], rays[sq][d][1]) for d in self.king_dirs if len(rays[sq][d]) >= 2
            )
            self.king_rays[sq] = tuple((d, rays[sq][d]) for d in self.king_dirs if rays[sq][d])


def tables_for(rules: Rules) -> Tables:
    t = _CACHE.get(rules.id)
    if t is None:
        t = _CACHE[rules.id] = Tables(rules)
    return t
