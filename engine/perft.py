"""Perft: count the leaf nodes of the legal-move tree, the standard test of a move generator."""

from __future__ import annotations

from .position import Position


def perft(pos: Position, depth: int, keep_duplicates: bool = False) -> int:
    """Leaf count at ``depth``; the last ply is counted without building moves."""
    if depth <= 0:
        return 1
    if depth == 1:
        return pos.count_legal_moves(keep_duplicates)
    moves = pos.legal_moves_keeping_duplicates() if keep_duplicates else pos.legal_moves()
    total = 0
    for m in moves:
        total += perft(pos.play(m), depth - 1, keep_duplicates)
    return total


def divide(pos: Position, depth: int, keep_duplicates: bool = False) -> list[tuple[str, int]]:
    moves = pos.legal_moves_keeping_duplicates() if keep_duplicates else pos.legal_moves()
    return [(str(m), perft(pos.play(m), depth - 1, keep_duplicates)) for m in moves]


def perft_public(pos: Position, depth: int) -> int:
    """The same count through the public API only (generate, play, recurse): benchmarks."""
    if depth == 0:
        return 1
    total = 0
    for m in pos.legal_moves():
        total += perft_public(pos.play(m), depth - 1)
    return total


def perft_fast(
    pos: Position,
    depth: int,
    keep_duplicates: bool = False,
    cache: dict[tuple[int, int, int, int, int], int] | None = None,
) -> int:
    """The engine's fastest perft: raw bitboards, bulk counting at the last ply, and a
    transposition table (draughts trees are full of transpositions)."""
    from .movegen import capture_moves, count_quiet_moves, has_capture

    t = pos._t
    table: dict[tuple[int, int, int, int, int], int] = {} if cache is None else cache
    step_dirs = t.step_dirs
    promotion = t.promotion
    king_rays = t.king_rays
    flying = t.flying

    def rec(own: int, opp: int, kings: int, turn: int, depth: int) -> int:
        key = (own, opp, kings, turn, depth)
        hit = table.get(key)
        if hit is not None:
            return hit
        other = 1 - turn
        total = 0
        if has_capture(t, own, opp, kings, turn):
            moves = capture_moves(t, own, opp, kings, turn, keep_duplicates)
            if depth == 1:
                table[key] = len(moves)
                return len(moves)
            for m in moves:
                fb = 1 << m.path[0]
                tb = 1 << m.path[-1]
                cap = m.capmask
                k = kings & ~cap
                if k & fb:
                    k = (k & ~fb) | tb
                elif m.promotes:
                    k |= tb
                total += rec(opp & ~cap, (own & ~fb) | tb, k, other, depth - 1)
        elif depth == 1:
            total = count_quiet_moves(t, own, opp, kings, turn)
        else:
            occ = own | opp
            empty = t.mask & ~occ
            men = own & ~kings
            promo = promotion[turn]
            for d in step_dirs[turn]:
                targets = ((men << d) if d > 0 else (men >> -d)) & empty
                while targets:
                    tb = targets & -targets
                    targets ^= tb
                    fb = (tb >> d) if d > 0 else (tb << -d)
                    k = kings | tb if tb & promo else kings
                    total += rec(opp, own ^ (fb | tb), k, other, depth - 1)
            own_kings = own & kings
            while own_kings:
                fb = own_kings & -own_kings
                own_kings ^= fb
                sq = fb.bit_length() - 1
                for _, ray in king_rays[sq]:
                    for s in ray:
                        tb = 1 << s
                        if occ & tb:
                            break
                        total += rec(opp, own ^ (fb | tb), kings ^ (fb | tb), other, depth - 1)
                        if not flying:
                            break
        table[key] = total
        return total

    if depth <= 0:
        return 1
    own, opp = (pos.white, pos.black) if pos.turn == 0 else (pos.black, pos.white)
    return rec(own, opp, pos.kings, pos.turn, depth)
