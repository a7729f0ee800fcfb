"""Legal move generation for every rule set, driven by ``Tables`` (rules as data).

Quiet moves of men come from whole-board shifts; captures from a depth-first
search per piece that follows the rule set's fields: which directions men jump,
flying or short kings, whether captured pieces block until the move ends,
what crowning mid-capture does, no 180-degree turns, and capture precedence.
"""

from __future__ import annotations

from .move import Move
from .rules import CrowningInCapture
from .tables import Tables

# One capture sequence while searching: (path, captured in order, promotes, with_king).
Sequence = tuple[tuple[int, ...], tuple[int, ...], bool, bool]


def _shift(bits: int, d: int) -> int:
    return bits << d if d > 0 else bits >> -d


# --- captures ---------------------------------------------------------------------------


def has_capture(t: Tables, own: int, opp: int, kings: int, turn: int) -> bool:
    """Whether the side to move has any capture (fast, set-wise)."""
    empty = t.mask & ~(own | opp)
    men = own & ~kings
    if men:
        victims = opp if t.men_capture_kings else opp & ~kings
        for d in t.capture_dirs[turn]:
            if d > 0:
                if (((men << d) & victims) << d) & empty:
                    return True
            elif (((men >> -d) & victims) >> -d) & empty:
                return True
    own_kings = own & kings
    if own_kings:
        if t.flying:
            for d in t.king_dirs:
                front = _shift(own_kings, d)
                while front:
                    if _shift(front & opp, d) & empty:
                        return True
                    front = _shift(front & empty, d)
        else:
            for d in t.king_dirs:
                if _shift(_shift(own_kings, d) & opp, d) & empty:
                    return True
    return False


def capture_sequences(t: Tables, own: int, opp: int, kings: int, turn: int) -> list[Sequence]:
    """Every complete capture sequence, before precedence and before merging duplicates."""
    out: list[Sequence] = []
    occ_all = own | opp
    empty = t.mask & ~occ_all
    # Only men with a jump available right now can start a capture: find them set-wise.
    men = own & ~kings
    victims = opp if t.men_capture_kings else opp & ~kings
    starters = 0
    for d in t.capture_dirs[turn]:
        if d > 0:
            starters |= (((empty >> d) & victims) >> d) & men
        else:
            starters |= (((empty << -d) & victims) << -d) & men
    bits = starters | (own & kings)
    while bits:
        b = bits & -bits
        bits ^= b
        sq = b.bit_length() - 1
        occ = occ_all & ~b  # the moving piece has left its square: it may pass it again
        if men & b:
            _man_search(t, sq, turn, [sq], [], occ, opp, kings, out, 0)
        elif t.flying:
            _flying_king_search(t, sq, [sq], [], occ, opp, kings, out, 0, True, False)
        else:
            _short_king_search(t, sq, [sq], [], occ, opp, kings, out, 0, True, False)
    return out


def _man_search(
    t: Tables,
    sq: int,
    turn: int,
    path: list[int],
    caps: list[int],
    occ: int,
    alive: int,
    kings: int,
    out: list[Sequence],
    last_d: int,
) -> bool:
    extended = False
    promotion = t.promotion[turn]
    for d, victim, land in t.man_jumps[turn][sq]:
        if t.no_turning_back and d == -last_d:
            continue
        vb = 1 << victim
        if not alive & vb or occ & (1 << land):
            continue
        if not t.men_capture_kings and kings & vb:
            continue  # Italian: a man may never capture a king
        extended = True
        new_alive = alive & ~vb
        new_occ = occ & ~vb if t.removed_at_once else occ
        path.append(land)
        caps.append(victim)
        if (1 << land) & promotion and t.crowning is not CrowningInCapture.PASSES:
            if t.crowning is CrowningInCapture.ENDS_MOVE:
                out.append((tuple(path), tuple(caps), True, False))
            # Russian: crowned at once, the capture goes on as a king.
            elif t.flying:
                if not _flying_king_search(
                    t, land, path, caps, new_occ, new_alive, kings, out, d, False, True
                ):
                    out.append((tuple(path), tuple(caps), True, False))
            elif not _short_king_search(
                t, land, path, caps, new_occ, new_alive, kings, out, d, False, True
            ):
                out.append((tuple(path), tuple(caps), True, False))
        elif not _man_search(t, land, turn, path, caps, new_occ, new_alive, kings, out, d):
            # FMJD 5.3: a man passing the last row is crowned only if it ends there.
            out.append((tuple(path), tuple(caps), bool((1 << land) & promotion), False))
        path.pop()
        caps.pop()
    return extended


def _short_king_search(
    t: Tables,
    sq: int,
    path: list[int],
    caps: list[int],
    occ: int,
    alive: int,
    kings: int,
    out: list[Sequence],
    last_d: int,
    with_king: bool,
    promoted: bool,
) -> bool:
    extended = False
    for d, victim, land in t.king_jumps[sq]:
        if t.no_turning_back and d == -last_d:
            continue
        vb = 1 << victim
        if not alive & vb or occ & (1 << land):
            continue
        extended = True
        new_occ = occ & ~vb if t.removed_at_once else occ
        path.append(land)
        caps.append(victim)
        if not _short_king_search(
            t, land, path, caps, new_occ, alive & ~vb, kings, out, d, with_king, promoted
        ):
            out.append((tuple(path), tuple(caps), promoted, with_king))
        path.pop()
        caps.pop()
    return extended


def _flying_king_search(
    t: Tables,
    sq: int,
    path: list[int],
    caps: list[int],
    occ: int,
    alive: int,
    kings: int,
    out: list[Sequence],
    last_d: int,
    with_king: bool,
    promoted: bool,
) -> bool:
    extended = False
    for d, ray in t.king_rays[sq]:
        if t.no_turning_back and d == -last_d:
            continue
        n = len(ray)
        i = 0
        while i < n and not (occ >> ray[i]) & 1:
            i += 1
        if i >= n - 1:
            continue  # nothing on this line, or the piece stands at the edge
        victim = ray[i]
        vb = 1 << victim
        if not alive & vb or (occ >> ray[i + 1]) & 1:
            continue  # own piece, a piece already taken, or no free square behind it
        extended = True
        new_alive = alive & ~vb
        new_occ = occ & ~vb if t.removed_at_once else occ
        caps.append(victim)
        # FMJD 4.10: the king must land where the capture goes on, if there is such a square.
        goes_on = False
        dead_ends = []
        j = i + 1
        while j < n and not (new_occ >> ray[j]) & 1:
            land = ray[j]
            path.append(land)
            if _flying_king_search(
                t, land, path, caps, new_occ, new_alive, kings, out, d, with_king, promoted
            ):
                goes_on = True
            elif not goes_on:
                dead_ends.append(tuple(path))
            path.pop()
            j += 1
        if not goes_on:
            captured = tuple(caps)
            for p in dead_ends:
                out.append((p, captured, promoted, with_king))
        caps.pop()
    return extended


# A sequence's rank under the capture-choice rule: counts, flags and the kings' order.
PrecedenceKey = tuple[int | tuple[int, ...], ...]


def _precedence_key(t: Tables, seq: Sequence, kings: int) -> PrecedenceKey:
    key: list[int | tuple[int, ...]] = []
    caps = seq[1]
    for criterion in t.precedence:
        if criterion == "pieces":
            key.append(len(caps))
        elif criterion == "with_king":
            key.append(seq[3])
        elif criterion == "kings":
            key.append(sum(1 for c in caps if (kings >> c) & 1))
        elif criterion == "earliest_king":
            key.append(tuple((kings >> c) & 1 for c in caps))
    return tuple(key)


def apply_precedence(t: Tables, seqs: list[Sequence], kings: int) -> list[Sequence]:
    """Keep only the sequences the capture-choice rule allows."""
    criteria = t.precedence
    if not criteria or len(seqs) < 2:
        return seqs
    if criteria[0] == "pieces":
        most = max(len(s[1]) for s in seqs)
        seqs = [s for s in seqs if len(s[1]) == most]
        criteria = criteria[1:]
        if not criteria or len(seqs) < 2:
            return seqs
    # The other criteria all look at kings: with no king capturing or captured they tie.
    if not any(s[3] for s in seqs) and not any(kings & (1 << c) for s in seqs for c in s[1]):
        return seqs
    keys = [_precedence_key(t, s, kings) for s in seqs]
    best = max(keys)
    return [s for s, k in zip(seqs, keys, strict=True) if k == best]


def capture_moves(
    t: Tables, own: int, opp: int, kings: int, turn: int, keep_duplicates: bool = False
) -> list[Move]:
    seqs = apply_precedence(t, capture_sequences(t, own, opp, kings, turn), kings)
    rules = t.rules
    moves: dict[tuple[int, int, int | tuple[int, ...]], Move] = {}
    for path, caps, promotes, _ in seqs:
        capmask = 0
        for c in caps:
            capmask |= 1 << c
        # Same start, end and captured set: one move (keep: captured in order).
        key = (path[0], path[-1], caps if keep_duplicates else capmask)
        if key not in moves or (promotes and not moves[key].promotes):
            moves[key] = Move(rules, path, caps, capmask, promotes)
    return list(moves.values())


# --- quiet moves ------------------------------------------------------------------------


def quiet_moves(t: Tables, own: int, opp: int, kings: int, turn: int) -> list[Move]:
    occ = own | opp
    empty = t.mask & ~occ
    moves: list[Move] = []
    append = moves.append
    men = own & ~kings
    for d, by_target in zip(t.step_dirs[turn], t.man_step_moves[turn], strict=True):
        targets = ((men << d) if d > 0 else (men >> -d)) & empty
        while targets:
            b = targets & -targets
            targets ^= b
            append(by_target[b.bit_length() - 1])
    own_kings = own & kings
    if own_kings:
        flying = t.flying
        extend = moves.extend
        ray_moves = t.king_ray_moves
        while own_kings:
            b = own_kings & -own_kings
            own_kings ^= b
            for ray, along in ray_moves[b.bit_length() - 1]:
                if not flying:
                    if not (occ >> ray[0]) & 1:
                        append(along[0])
                    continue
                i = 0
                n = len(ray)
                while i < n and not (occ >> ray[i]) & 1:
                    i += 1
                if i:
                    extend(along[:i])
    return moves


def count_quiet_moves(t: Tables, own: int, opp: int, kings: int, turn: int) -> int:
    """How many quiet moves there are, without building them (perft's last ply)."""
    empty = t.mask & ~(own | opp)
    men = own & ~kings
    n = 0
    for d in t.step_dirs[turn]:
        n += (((men << d) if d > 0 else (men >> -d)) & empty).bit_count()
    own_kings = own & kings
    if own_kings:
        for d in t.king_dirs:
            front = _shift(own_kings, d) & empty
            if t.flying:
                # Kings on one line in one direction never share a square at one distance.
                while front:
                    n += front.bit_count()
                    front = _shift(front, d) & empty
            else:
                n += front.bit_count()
    return n


def legal_moves(
    t: Tables, own: int, opp: int, kings: int, turn: int, keep_duplicates: bool = False
) -> list[Move]:
    if has_capture(t, own, opp, kings, turn):
        return capture_moves(t, own, opp, kings, turn, keep_duplicates)
    return quiet_moves(t, own, opp, kings, turn)


def count_legal_moves(
    t: Tables, own: int, opp: int, kings: int, turn: int, keep_duplicates: bool = False
) -> int:
    if has_capture(t, own, opp, kings, turn):
        return len(capture_moves(t, own, opp, kings, turn, keep_duplicates))
    return count_quiet_moves(t, own, opp, kings, turn)
