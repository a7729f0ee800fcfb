/* engine._accel: the optional compiled move generator (and, in eval.c / search.c,
 * the evaluation and search built on it). The pure-Python engine stays the reference:
 * everything here must give exactly what engine/movegen.py gives, in the same order.
 *
 * Bitboards: unsigned __int128, with the Python engine's own bit indexes
 * (engine/geometry.py's padded "ghost square" layout). Turkish's orthogonal board
 * needs 72 bits (a ghost column per row), so 64 bits are not enough for one shared
 * layout; keeping Python's indexes means every mask, square and direction shift that
 * engine/tables.py computes passes to C unchanged, a C move names the same squares as
 * a Python Move, and no layout translation can go wrong. The price is two-word shifts
 * and popcounts; GCC and Clang have the type (MSVC does not: there the build, being
 * optional, fails and the pure-Python engine is used).
 *
 * Nothing in C knows a rule set's name: a Tab is filled from engine/tables.py's Tables
 * by engine/accel.py (rules as data).
 */
#ifndef KONDAVO_ACCEL_H
#define KONDAVO_ACCEL_H

#include <stdint.h>

typedef unsigned __int128 bb;

#define BB1 ((bb)1)
#define BIT(sq) (BB1 << (sq))

/* Limits. Squares: Turkish's highest bit is 70, International's 54. */
#define CMAX_SQ 80
#define CMAX_DIRS 4    /* a man's step or capture directions for one colour */
#define CMAX_KDIRS 8   /* a king's directions */
#define CMAX_RAY 12    /* squares along one ray (9 on 10x10) */
#define CMAX_PATH 24   /* start + landings: 20 captures at most on 10x10, 16 on 8x8 */
#define CMAX_MOVES 512 /* legal moves of one position; gen_moves returns -1 beyond */
#define CMAX_PREC 4

/* Rules.crowning_in_capture */
enum { CROWN_ENDS_MOVE = 0, CROWN_CONTINUES_AS_KING = 1, CROWN_PASSES = 2 };
/* Rules.capture_precedence criteria, maximised in order */
enum { PREC_PIECES = 0, PREC_WITH_KING = 1, PREC_KINGS = 2, PREC_EARLIEST_KING = 3 };

/* One jump over a neighbour: direction (a bit shift), victim square, landing square. */
typedef struct {
    int8_t d;
    uint8_t victim, land;
} CJump;

/* One ray from a square: its direction and its squares, nearest first. */
typedef struct {
    int8_t d;
    uint8_t n;
    uint8_t sq[CMAX_RAY];
} CRay;

/* The per-rule-set tables: engine/tables.py's Tables, as C data. Index 0 is White,
 * 1 is Black, as in Python. Directions are bit shifts (negative: towards bit 0). */
typedef struct {
    bb mask;           /* every playing square */
    bb promotion[2];   /* the row where each side's men are crowned */
    int flying;        /* kings move and capture along whole lines */
    int removed_at_once;
    int no_turning_back;
    int men_capture_kings;
    int crowning;      /* CROWN_* */
    int nprec;
    int prec[CMAX_PREC];  /* PREC_* in order */
    int nstep[2], step_dirs[2][CMAX_DIRS];
    int ncapdir[2], capture_dirs[2][CMAX_DIRS];
    int nkdir, king_dirs[CMAX_KDIRS];
    int size;          /* highest square + 1 */
    uint8_t nman_jumps[2][CMAX_SQ];
    CJump man_jumps[2][CMAX_SQ][CMAX_DIRS];
    uint8_t nking_jumps[CMAX_SQ];
    CJump king_jumps[CMAX_SQ][CMAX_KDIRS];
    uint8_t nking_rays[CMAX_SQ];
    CRay king_rays[CMAX_SQ][CMAX_KDIRS];
    /* Zobrist keys for ceval's transposition table: [colour][is_king][square], and the
     * side to move. Filled from a fixed seed at table build, the same for every run. */
    uint64_t zobrist[2][2][CMAX_SQ];
    uint64_t zobrist_black_to_move;
} Tab;

/* One legal move, as engine/movegen.py makes it. */
typedef struct {
    bb captured;                /* the captured squares (Move.capmask) */
    uint8_t from, to;           /* path[0], path[npath - 1] */
    uint8_t promotes;           /* the piece is a king when the move ends */
    uint8_t npath;              /* 2 for a step; 1 + captures for a capture */
    uint8_t path[CMAX_PATH];    /* every square the piece stands on, start first */
    uint8_t caps[CMAX_PATH];    /* captured squares in capture order (npath - 1 of them) */
} CMove;

/* Bit helpers for the two-word bitboard. */
static inline int popcount64(uint64_t x) {
#if defined(__x86_64__) && !defined(__POPCNT__)
    /* Built for any x86-64 (no -mpopcnt), GCC makes __builtin_popcountll a call to
     * libgcc's __popcountdi2, a tenth of the search's time; this count inlines. */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#else
    return __builtin_popcountll(x);
#endif
}
static inline int bb_popcount(bb x) {
    uint64_t hi = (uint64_t)(x >> 64);
    /* Only Turkish's board has squares above bit 63: elsewhere the branch is free. */
    return popcount64((uint64_t)x) + (hi ? popcount64(hi) : 0);
}
/* Index of the lowest set bit; x must not be 0. */
static inline int bb_lsb(bb x) {
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}
static inline bb bb_shift(bb x, int d) { return d > 0 ? x << d : x >> -d; }

/* --- movegen.c: engine/movegen.py in C -------------------------------------------- */

/* Whether the side to move (own, turn) has any capture. */
int has_capture(const Tab *t, bb own, bb opp, bb kings, int turn);

/* The legal moves of the side to move, as Position.legal_moves() lists them (same
 * order); keep_duplicates: one move per captured order (perft "keep"). Returns the
 * count, or -1 when a limit above is exceeded (the caller falls back to Python). */
int gen_moves(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates,
              CMove *out);

/* gen_moves' two halves, for a caller that has already asked has_capture (a search's
 * quiescence): the capture moves when the side has a capture, the quiet moves when it
 * has none. Each is only right in its own case, as gen_moves chooses them. */
int gen_captures(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates,
                 CMove *out);
int gen_quiet(const Tab *t, bb own, bb opp, bb kings, int turn, CMove *out);

/* How many legal moves, without building quiet ones (perft's last ply). -1: as above. */
int count_moves(const Tab *t, bb own, bb opp, bb kings, int turn, int keep_duplicates);

/* Play a move for the side to move: own/opp/kings updated in place (the caller swaps
 * own and opp and flips turn for the next ply), as Position.play does. */
static inline void make_move(const CMove *m, bb *own, bb *opp, bb *kings) {
    bb fb = BIT(m->from), tb = BIT(m->to);
    bb k = *kings & ~m->captured;
    if (k & fb)
        k = (k & ~fb) | tb;
    else if (m->promotes)
        k |= tb;
    *kings = k;
    *opp &= ~m->captured;
    *own = (*own & ~fb) | tb;
}

/* Leaf count of the legal-move tree, bulk-counted at the last ply. -1: as above. */
int64_t perft(const Tab *t, bb own, bb opp, bb kings, int turn, int depth,
              int keep_duplicates);

/* The same count with a transposition table (draughts trees are full of transpositions):
 * `table` holds `size` entries, a power of two, zeroed by the caller; each entry keeps
 * the whole position, so a count is never taken from another position. -1: as above. */
typedef struct {
    bb own, opp, kings;
    int64_t count;
    int32_t depth; /* 0: empty (only depths of 2 and more are stored) */
    int32_t turn;
} PerftEntry;

int64_t perft_hashed(const Tab *t, bb own, bb opp, bb kings, int turn, int depth,
                     int keep_duplicates, PerftEntry *table, uint64_t size);

/* --- module.c: the Python side ----------------------------------------------------- */
#ifdef Py_PYTHON_H
/* engine._accel.Tables: a Python object holding one Tab. */
typedef struct {
    PyObject_HEAD
    Tab tab;
} TablesObject;

extern PyTypeObject TablesType;

/* The Tab of an engine._accel.Tables object, or NULL with TypeError set. */
const Tab *tab_from_object(PyObject *obj);
/* A Python int (>= 0, < 2**128) as a bitboard: 0 on success, -1 with an error set. */
int bb_from_py(PyObject *obj, bb *out);
PyObject *bb_to_py(bb x);

/* search.c (the ceval part) defines this to add its functions to the module; until it
 * exists, module.c's weak default adds nothing. Returns 0, or -1 with an error set. */
int accel_init_search(PyObject *module);
#endif

#endif
