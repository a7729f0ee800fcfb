/* engine/movegen.py in C: the same moves in the same order, from the same table data.
 *
 * Captures are found as in Python: every complete capture sequence by a depth-first
 * search per piece, then the capture-precedence rule over all of them, then sequences
 * with the same start, end and captured set merged into one move. Doing the three
 * steps apart (rather than filtering on the fly) keeps the Python's exact semantics,
 * including which path a merged move keeps.
 */
#include <string.h>

#include "accel.h"

/* Every capture sequence of one position is collected here before precedence and
 * merging. Thread-local so a search running in several threads stays correct; the
 * buffer is only used within one gen_moves call, never across a recursion. */
#define CMAX_SEQS 4096

typedef struct {
    uint8_t path[CMAX_PATH];
    uint8_t caps[CMAX_PATH];
    uint8_t ncaps;
    uint8_t promotes;
    uint8_t with_king;
} Seq;

static _Thread_local Seq seqs[CMAX_SEQS];

/* The state of one capture search: the sequence being walked and where it is stored. */
typedef struct {
    const Tab *t;
    bb kings;
    int nseqs;
    int overflow;
    int npath, ncaps;
    uint8_t path[CMAX_PATH];
    uint8_t caps[CMAX_PATH];
} Search;

/* --- captures --------------------------------------------------------------------- */

int has_capture(const Tab *t, bb own, bb opp, bb kings, int turn) {
    bb empty = t->mask & ~(own | opp);
    bb men = own & ~kings;
    if (men) {
        bb victims = t->men_capture_kings ? opp : opp & ~kings;
        for (int i = 0; i < t->ncapdir[turn]; i++) {
            int d = t->capture_dirs[turn][i];
            if (bb_shift(bb_shift(men, d) & victims, d) & empty)
                return 1;
        }
    }
    bb own_kings = own & kings;
    if (own_kings) {
        for (int i = 0; i < t->nkdir; i++) {
            int d = t->king_dirs[i];
            bb front = bb_shift(own_kings, d);
            if (!t->flying)
                front &= opp;
            /* A flying king slides over empty squares until it meets a piece. */
            while (front) {
                if (bb_shift(front & opp, d) & empty)
                    return 1;
                if (!t->flying)
                    break;
                front = bb_shift(front & empty, d);
            }
        }
    }
    return 0;
}

static void emit(Search *s, int promotes, int with_king) {
    if (s->nseqs >= CMAX_SEQS) {
        s->overflow = 1;
        return;
    }
    Seq *q = &seqs[s->nseqs++];
    memcpy(q->path, s->path, (size_t)s->npath);
    memcpy(q->caps, s->caps, (size_t)s->ncaps);
    q->ncaps = (uint8_t)s->ncaps;
    q->promotes = (uint8_t)promotes;
    q->with_king = (uint8_t)with_king;
}

/* A path longer than CMAX_PATH cannot happen on the boards we know (each jump takes a
 * distinct piece); if a table ever allowed one, the generation reports overflow. */
static int room(Search *s) {
    if (s->npath >= CMAX_PATH) {
        s->overflow = 1;
        return 0;
    }
    return 1;
}

static int short_king_search(Search *s, int sq, bb occ, bb alive, int last_d, int with_king,
                             int promoted);
static int flying_king_search(Search *s, int sq, bb occ, bb alive, int last_d, int with_king,
                              int promoted);

static int man_search(Search *s, int sq, int turn, bb occ, bb alive, int last_d) {
    const Tab *t = s->t;
    int extended = 0;
    bb promotion = t->promotion[turn];
    for (int i = 0; i < t->nman_jumps[turn][sq]; i++) {
        const CJump *j = &t->man_jumps[turn][sq][i];
        if (t->no_turning_back && j->d == -last_d)
            continue;
        bb vb = BIT(j->victim);
        if (!(alive & vb) || (occ & BIT(j->land)))
            continue;
        if (!t->men_capture_kings && (s->kings & vb))
            continue; /* a man may never capture a king (Italian) */
        if (!room(s))
            return 1;
        extended = 1;
        bb new_alive = alive & ~vb;
        bb new_occ = t->removed_at_once ? occ & ~vb : occ;
        s->path[s->npath++] = j->land;
        s->caps[s->ncaps++] = j->victim;
        if ((BIT(j->land) & promotion) && t->crowning != CROWN_PASSES) {
            if (t->crowning == CROWN_ENDS_MOVE) {
                emit(s, 1, 0);
            } else {
                /* Crowned at once, the capture goes on as a king (Russian). */
                int more = t->flying
                    ? flying_king_search(s, j->land, new_occ, new_alive, j->d, 0, 1)
                    : short_king_search(s, j->land, new_occ, new_alive, j->d, 0, 1);
                if (!more)
                    emit(s, 1, 0);
            }
        } else if (!man_search(s, j->land, turn, new_occ, new_alive, j->d)) {
            /* FMJD 5.3: a man passing the last row is crowned only if it ends there. */
            emit(s, (BIT(j->land) & promotion) != 0, 0);
        }
        s->npath--;
        s->ncaps--;
    }
    return extended;
}

static int short_king_search(Search *s, int sq, bb occ, bb alive, int last_d, int with_king,
                             int promoted) {
    const Tab *t = s->t;
    int extended = 0;
    for (int i = 0; i < t->nking_jumps[sq]; i++) {
        const CJump *j = &t->king_jumps[sq][i];
        if (t->no_turning_back && j->d == -last_d)
            continue;
        bb vb = BIT(j->victim);
        if (!(alive & vb) || (occ & BIT(j->land)))
            continue;
        if (!room(s))
            return 1;
        extended = 1;
        bb new_occ = t->removed_at_once ? occ & ~vb : occ;
        s->path[s->npath++] = j->land;
        s->caps[s->ncaps++] = j->victim;
        if (!short_king_search(s, j->land, new_occ, alive & ~vb, j->d, with_king, promoted))
            emit(s, promoted, with_king);
        s->npath--;
        s->ncaps--;
    }
    return extended;
}

static int flying_king_search(Search *s, int sq, bb occ, bb alive, int last_d, int with_king,
                              int promoted) {
    const Tab *t = s->t;
    int extended = 0;
    for (int i = 0; i < t->nking_rays[sq]; i++) {
        const CRay *r = &t->king_rays[sq][i];
        if (t->no_turning_back && r->d == -last_d)
            continue;
        int n = r->n;
        int k = 0;
        while (k < n && !(occ & BIT(r->sq[k])))
            k++;
        if (k >= n - 1)
            continue; /* nothing on this line, or the piece stands at the edge */
        int victim = r->sq[k];
        bb vb = BIT(victim);
        if (!(alive & vb) || (occ & BIT(r->sq[k + 1])))
            continue; /* own piece, a piece already taken, or no free square behind it */
        if (!room(s))
            return 1;
        extended = 1;
        bb new_alive = alive & ~vb;
        bb new_occ = t->removed_at_once ? occ & ~vb : occ;
        s->caps[s->ncaps++] = (uint8_t)victim;
        /* FMJD 4.10: the king must land where the capture goes on, if there is such a
         * square; otherwise every free square behind the victim ends a sequence. */
        int goes_on = 0;
        int ndead = 0;
        uint8_t dead_ends[CMAX_RAY];
        for (int j = k + 1; j < n && !(new_occ & BIT(r->sq[j])); j++) {
            int land = r->sq[j];
            s->path[s->npath++] = (uint8_t)land;
            if (flying_king_search(s, land, new_occ, new_alive, r->d, with_king, promoted))
                goes_on = 1;
            else if (!goes_on)
                dead_ends[ndead++] = (uint8_t)land;
            s->npath--;
        }
        if (!goes_on) {
            for (int e = 0; e < ndead; e++) {
                s->path[s->npath++] = dead_ends[e];
                emit(s, promoted, with_king);
                s->npath--;
            }
        }
        s->ncaps--;
    }
    return extended;
}

/* Every complete capture sequence into seqs[]; returns how many, -1 on overflow. */
static int capture_sequences(const Tab *t, bb own, bb opp, bb kings, int turn) {
    Search s;
    s.t = t;
    s.kings = kings;
    s.nseqs = 0;
    s.overflow = 0;
    bb occ_all = own | opp;
    bb empty = t->mask & ~occ_all;
    /* Only men with a jump available right now can start a capture: found set-wise. */
    bb men = own & ~kings;
    bb victims = t->men_capture_kings ? opp : opp & ~kings;
    bb starters = 0;
    for (int i = 0; i < t->ncapdir[turn]; i++) {
        int d = t->capture_dirs[turn][i];
        starters |= bb_shift(bb_shift(empty, -d) & victims, -d) & men;
    }
    bb bits = starters | (own & kings);
    while (bits) {
        int sq = bb_lsb(bits);
        bb b = BIT(sq);
        bits ^= b;
        /* The moving piece has left its square: it may pass over it again. */
        bb occ = occ_all & ~b;
        s.npath = 1;
        s.ncaps = 0;
        s.path[0] = (uint8_t)sq;
        if (men & b)
            man_search(&s, sq, turn, occ, opp, 0);
        else if (t->flying)
            flying_king_search(&s, sq, occ, opp, 0, 1, 0);
        else
            short_king_search(&s, sq, occ, opp, 0, 1, 0);
        if (s.overflow)
            return -1;
    }
    return s.nseqs;
}

/* Compare two sequences under the precedence criteria from index `from` on, as the
 * Python compares its key tuples: <0, 0 or >0. */
static int compare_seqs(const Tab *t, int from, const Seq *a, const Seq *b, bb kings) {
    for (int c = from; c < t->nprec; c++) {
        int x = 0, y = 0;
        switch (t->prec[c]) {
        case PREC_PIECES:
            x = a->ncaps;
            y = b->ncaps;
            break;
        case PREC_WITH_KING:
            x = a->with_king;
            y = b->with_king;
            break;
        case PREC_KINGS:
            for (int i = 0; i < a->ncaps; i++)
                x += (int)((kings >> a->caps[i]) & 1);
            for (int i = 0; i < b->ncaps; i++)
                y += (int)((kings >> b->caps[i]) & 1);
            break;
        case PREC_EARLIEST_KING: {
            /* Tuples of king flags in capture order, compared element-wise, then by
             * length: Python's tuple order. */
            int n = a->ncaps < b->ncaps ? a->ncaps : b->ncaps;
            for (int i = 0; i < n && x == y; i++) {
                x = (int)((kings >> a->caps[i]) & 1);
                y = (int)((kings >> b->caps[i]) & 1);
            }
            if (x == y) {
                x = a->ncaps;
                y = b->ncaps;
            }
            break;
        }
        }
        if (x != y)
            return x - y;
    }
    return 0;
}

/* Which sequences the capture-choice rule keeps: keep[i] set for those. */
static void apply_precedence(const Tab *t, int n, bb kings, uint8_t *keep) {
    memset(keep, 1, (size_t)n);
    int from = 0;
    if (t->nprec == 0 || n < 2)
        return;
    if (t->prec[0] == PREC_PIECES) {
        int most = 0;
        for (int i = 0; i < n; i++)
            if (seqs[i].ncaps > most)
                most = seqs[i].ncaps;
        int left = 0;
        for (int i = 0; i < n; i++) {
            keep[i] = seqs[i].ncaps == most;
            left += keep[i];
        }
        from = 1;
        if (from == t->nprec || left < 2)
            return;
    }
    /* The other criteria all look at kings: with no king capturing or captured they tie. */
    int kings_matter = 0;
    for (int i = 0; i < n && !kings_matter; i++) {
        if (!keep[i])
            continue;
        if (seqs[i].with_king)
            kings_matter = 1;
        for (int c = 0; c < seqs[i].ncaps; c++)
            if ((kings >> seqs[i].caps[c]) & 1)
                kings_matter = 1;
    }
    if (!kings_matter)
        return;
    int best = -1;
    for (int i = 0; i < n; i++)
        if (keep[i] && (best < 0 || compare_seqs(t, from, &seqs[i], &seqs[best], kings) > 0))
            best = i;
    for (int i = 0; i < n; i++)
        if (keep[i])
            keep[i] = compare_seqs(t, from, &seqs[i], &seqs[best], kings) == 0;
}

static void seq_to_move(const Seq *q, bb captured, CMove *m) {
    m->captured = captured;
    m->from = q->path[0];
    m->to = q->path[q->ncaps];
    m->promotes = q->promotes;
    m->npath = (uint8_t)(q->ncaps + 1);
    memcpy(m->path, q->path, (size_t)q->ncaps + 1);
    memcpy(m->caps, q->caps, (size_t)q->ncaps);
}

static int capture_moves(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates,
                         CMove *out) {
    int n = capture_sequences(t, own, opp, kings, turn);
    if (n < 0)
        return -1;
    uint8_t keep[CMAX_SEQS];
    apply_precedence(t, n, kings, keep);
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        const Seq *q = &seqs[i];
        bb capmask = 0;
        for (int c = 0; c < q->ncaps; c++)
            capmask |= BIT(q->caps[c]);
        /* Same start, end and captured set: one move (keep: captured in order). A
         * merged move keeps its first path unless a later one crowns. */
        int found = -1;
        for (int m = 0; m < count && found < 0; m++) {
            const CMove *o = &out[m];
            if (o->from != q->path[0] || o->to != q->path[q->ncaps] || o->captured != capmask)
                continue;
            if (keep_duplicates && memcmp(o->caps, q->caps, q->ncaps) != 0)
                continue;
            found = m;
        }
        if (found < 0) {
            if (count >= CMAX_MOVES)
                return -1;
            seq_to_move(q, capmask, &out[count++]);
        } else if (q->promotes && !out[found].promotes) {
            seq_to_move(q, capmask, &out[found]);
        }
    }
    return count;
}

/* --- quiet moves ------------------------------------------------------------------ */

static int quiet_moves(const Tab *t, bb own, bb opp, bb kings, int turn, CMove *out) {
    bb occ = own | opp;
    bb empty = t->mask & ~occ;
    bb men = own & ~kings;
    int count = 0;
    for (int i = 0; i < t->nstep[turn]; i++) {
        int d = t->step_dirs[turn][i];
        bb targets = bb_shift(men, d) & empty;
        while (targets) {
            int to = bb_lsb(targets);
            targets &= targets - 1;
            if (count >= CMAX_MOVES)
                return -1;
            CMove *m = &out[count++];
            m->captured = 0;
            m->from = (uint8_t)(to - d);
            m->to = (uint8_t)to;
            m->promotes = (t->promotion[turn] & BIT(to)) != 0;
            m->npath = 2;
            m->path[0] = m->from;
            m->path[1] = m->to;
        }
    }
    bb own_kings = own & kings;
    while (own_kings) {
        int sq = bb_lsb(own_kings);
        own_kings &= own_kings - 1;
        for (int i = 0; i < t->nking_rays[sq]; i++) {
            const CRay *r = &t->king_rays[sq][i];
            int reach = t->flying ? r->n : 1;
            for (int k = 0; k < reach && !(occ & BIT(r->sq[k])); k++) {
                if (count >= CMAX_MOVES)
                    return -1;
                CMove *m = &out[count++];
                m->captured = 0;
                m->from = (uint8_t)sq;
                m->to = r->sq[k];
                m->promotes = 0;
                m->npath = 2;
                m->path[0] = m->from;
                m->path[1] = m->to;
            }
        }
    }
    return count;
}

static int count_quiet_moves(const Tab *t, bb own, bb opp, bb kings, int turn) {
    bb empty = t->mask & ~(own | opp);
    bb men = own & ~kings;
    int n = 0;
    for (int i = 0; i < t->nstep[turn]; i++)
        n += bb_popcount(bb_shift(men, t->step_dirs[turn][i]) & empty);
    bb own_kings = own & kings;
    if (own_kings) {
        for (int i = 0; i < t->nkdir; i++) {
            int d = t->king_dirs[i];
            bb front = bb_shift(own_kings, d) & empty;
            /* Kings on one line in one direction never share a square at one distance. */
            while (front) {
                n += bb_popcount(front);
                if (!t->flying)
                    break;
                front = bb_shift(front, d) & empty;
            }
        }
    }
    return n;
}

/* --- the API ---------------------------------------------------------------------- */

int gen_captures(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates,
                 CMove *out) {
    return capture_moves(t, own, opp, kings, turn, keep_duplicates, out);
}

int gen_quiet(const Tab *t, bb own, bb opp, bb kings, int turn, CMove *out) {
    return quiet_moves(t, own, opp, kings, turn, out);
}

int gen_moves(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates,
              CMove *out) {
    if (has_capture(t, own, opp, kings, turn))
        return capture_moves(t, own, opp, kings, turn, keep_duplicates, out);
    return quiet_moves(t, own, opp, kings, turn, out);
}

/* Capture moves of a leaf are built here, so count_moves needs no buffer from its caller. */
static _Thread_local CMove leaf_moves[CMAX_MOVES];

int count_moves(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates) {
    if (has_capture(t, own, opp, kings, turn))
        return capture_moves(t, own, opp, kings, turn, keep_duplicates, leaf_moves);
    return count_quiet_moves(t, own, opp, kings, turn);
}

int64_t perft(const Tab *t, bb own, bb opp, bb kings, int turn, int depth,
              int keep_duplicates) {
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return count_moves(t, own, opp, kings, turn, keep_duplicates);
    CMove moves[CMAX_MOVES];
    int n = gen_moves(t, own, opp, kings, turn, keep_duplicates, moves);
    if (n < 0)
        return -1;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        bb o = own, p = opp, k = kings;
        make_move(&moves[i], &o, &p, &k);
        int64_t sub = perft(t, p, o, k, 1 - turn, depth - 1, keep_duplicates);
        if (sub < 0)
            return -1;
        total += sub;
    }
    return total;
}

/* A 64-bit mix of the position (splitmix64's finaliser over its words): where its entry
 * lives in the perft table. The entry itself holds the whole key. */
static uint64_t position_hash(bb own, bb opp, bb kings, int turn) {
    uint64_t h = (uint64_t)turn + 0x9E3779B97F4A7C15ULL;
    const bb words[3] = {own, opp, kings};
    for (int i = 0; i < 3; i++) {
        for (int half = 0; half < 2; half++) {
            h ^= (uint64_t)(words[i] >> (64 * half));
            h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
            h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
            h ^= h >> 31;
        }
    }
    return h;
}

int64_t perft_hashed(const Tab *t, bb own, bb opp, bb kings, int turn, int depth,
                     int keep_duplicates, PerftEntry *table, uint64_t size) {
    if (depth <= 1)
        return depth <= 0 ? 1 : count_moves(t, own, opp, kings, turn, keep_duplicates);
    PerftEntry *e = &table[position_hash(own, opp, kings, turn) & (size - 1)];
    if (e->depth == depth && e->turn == turn && e->own == own && e->opp == opp &&
        e->kings == kings)
        return e->count;
    CMove moves[CMAX_MOVES];
    int n = gen_moves(t, own, opp, kings, turn, keep_duplicates, moves);
    if (n < 0)
        return -1;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        bb o = own, p = opp, k = kings;
        make_move(&moves[i], &o, &p, &k);
        int64_t sub =
            perft_hashed(t, p, o, k, 1 - turn, depth - 1, keep_duplicates, table, size);
        if (sub < 0)
            return -1;
        total += sub;
    }
    /* Always replace: the newest subtree is the likeliest to come again. */
    e->own = own;
    e->opp = opp;
    e->kings = kings;
    e->turn = turn;
    e->depth = depth;
    e->count = total;
    return total;
}
