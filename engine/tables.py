"""Per-rule-set lookup tables, built once: the jumps and rays move generation walks."""

from __future__ import annotations

from typing import cast

from .move import Move
from .rules import Color, Rules

_CACHE: dict[str, Tables] = {}

# (direction, victim, landing): one jump over a neighbour.
Jump = tuple[int, int, int]
# (direction, the squares along it, nearest first): one flying king's ray.
Ray = tuple[int, tuple[int, ...]]


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
            return tuple(
                d
                for g in ("forward", "sideways", "backward")
                if g in wanted
                for d in groups[color][g]
            )

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
        self.man_jumps: tuple[list[tuple[Jump, ...]], list[tuple[Jump, ...]]] = (
            [()] * size,
            [()] * size,
        )
        for side in (0, 1):
            for sq in board.squares:
                self.man_jumps[side][sq] = tuple(
                    (d, rays[sq][d][0], rays[sq][d][1])
                    for d in self.capture_dirs[side]
                    if len(rays[sq][d]) >= 2
                )
        # king_jumps[sq]: short-range kings; king_rays[sq]: flying kings.
        self.king_jumps: list[tuple[Jump, ...]] = [()] * size
        self.king_rays: list[tuple[Ray, ...]] = [()] * size
        for sq in board.squares:
            self.king_jumps[sq] = tuple(
                (d, rays[sq][d][0], rays[sq][d][1]) for d in self.king_dirs if len(rays[sq][d]) >= 2
            )
            self.king_rays[sq] = tuple((d, rays[sq][d]) for d in self.king_dirs if rays[sq][d])
        # Quiet moves never change, so each is built once and shared by every position:
        # man_step_moves[side][i][to] is the step in step_dirs[side][i] that ends on ``to``;
        # king_ray_moves[sq] the king moves along each ray, nearest first.
        self.man_step_moves: tuple[list[list[Move]], list[list[Move]]] = ([], [])
        for side in (0, 1):
            for d in self.step_dirs[side]:
                by_target: list[Move | None] = [None] * size
                for sq in board.squares:
                    ray = rays[sq][d]
                    if ray:
                        to = ray[0]
                        by_target[to] = Move(
                            rules, (sq, to), (), 0, bool((1 << to) & self.promotion[side])
                        )
                # Typed as moves: move generation reads only a step's targets, which
                # are board squares and so hold one (the rest stay None, never read).
                self.man_step_moves[side].append(cast(list[Move], by_target))
        self.king_ray_moves: list[tuple[tuple[tuple[int, ...], tuple[Move, ...]], ...]] = [
            ()
        ] * size
        for sq in board.squares:
            self.king_ray_moves[sq] = tuple(
                (ray, tuple(Move(rules, (sq, s)) for s in ray)) for _, ray in self.king_rays[sq]
            )


def tables_for(rules: Rules) -> Tables:
    t = _CACHE.get(rules.id)
    if t is None:
        t = _CACHE[rules.id] = Tables(rules)
    return t
