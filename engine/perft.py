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
