/* The static evaluation in C: engine/evaluation.py's Evaluator.score, term for term.
 *
 * The Python side packs per-square weights into chunk tables because a Python loop
 * over pieces is slow; here a loop over the set bits is cheap, so the same sums are
 * taken square by square from the unpacked tables the Evaluator keeps. Python's
 * floor division is kept where a term can be negative (C's division truncates). */
#include <stdlib.h>
#include <string.h>

#include "eval.h"

void eval_tables_free(eval_tables *e)
{
    free(e->patterns);
    e->patterns = NULL;
    free(e->read);
    e->read = NULL;
    e->n_regions = 0;
}

/* Runs the statements after it with sq set to each square of men, lowest first:
 * walked in one 64-bit word where the board fits (e->low64), which takes about half
 * the instructions of walking the two-word bitboard. */
#define FOR_EACH_SQUARE(e, men, sq, ...)                                  \
    do {                                                                  \
        if ((e)->low64) {                                                 \
            for (uint64_t walk_ = (uint64_t)(men); walk_; walk_ &= walk_ - 1) { \
                int sq = __builtin_ctzll(walk_);                          \
                __VA_ARGS__                                               \
            }                                                             \
        } else {                                                          \
            for (bb walk_ = (men); walk_; walk_ &= walk_ - 1) {           \
                int sq = bb_lsb(walk_);                                   \
                __VA_ARGS__                                               \
            }                                                             \
        }                                                                 \
    } while (0)

/* Both sides' men on set s's squares, each as a byte in square order: one shift a run
 * of consecutive squares, in one word where the board fits (e->low64). */
static inline void gather(const eval_tables *e, int s, bb wm, bb bm, uint8_t *w, uint8_t *b)
{
    unsigned wbyte = 0, bbyte = 0;
    if (e->low64) {
        uint64_t wl = (uint64_t)wm, bl = (uint64_t)bm;
        for (int i = 0; i < e->set_runs[s]; i++) {
            int shift = e->run_shift[s][i], dest = e->run_dest[s][i];
            unsigned mask = e->run_mask[s][i];
            wbyte |= (unsigned)(wl >> shift & mask) << dest;
            bbyte |= (unsigned)(bl >> shift & mask) << dest;
        }
    } else {
        for (int i = 0; i < e->set_runs[s]; i++) {
            int shift = e->run_shift[s][i], dest = e->run_dest[s][i];
            unsigned mask = e->run_mask[s][i];
            wbyte |= (unsigned)(wm >> shift & mask) << dest;
            bbyte |= (unsigned)(bm >> shift & mask) << dest;
        }
    }
    *w = (uint8_t)wbyte;
    *b = (uint8_t)bbyte;
}

/* Every region's entry read from White's side minus its entry read from Black's,
 * given each set's bytes of White's men (w) and Black's (b). */
static inline int64_t sum_regions(const eval_tables *e, const uint8_t *w, const uint8_t *b)
{
    int n = e->n_regions;
    int64_t score = 0;
    const int16_t *table = e->patterns;
    for (int r = 0; r < n; r++, table += e->region_size) {
        const uint16_t *white = e->read + e->view_read[r];
        const uint16_t *black = e->read + e->view_read[n + r];
        int ws = e->view_set[r], bs = e->view_set[n + r];
        score += table[white[w[ws]] + 2 * white[b[ws]]] - table[black[b[bs]] + 2 * black[w[bs]]];
    }
    return score;
}

/* The pattern score from White's side, each set's bytes gathered by shifts. Reading
 * each index off the gathered bytes replaced adding every man's share to the indexes
 * of the regions it lies in (up to eight a man on 10x10); keeping the indexes in step
 * with every move instead was measured before and lost (on 8x8 about two moves are
 * played for every position scored). */
static int64_t pattern_score(const eval_tables *e, bb wm, bb bm)
{
    uint8_t w[EVAL_MAX_SETS], b[EVAL_MAX_SETS];
    for (int s = 0; s < e->n_sets; s++)
        gather(e, s, wm, bm, &w[s], &b[s]);
    return sum_regions(e, w, b);
}

#ifdef EVAL_PEXT
/* The same, each byte gathered by one instruction (BMI2's pext: the bits of a word
 * under a mask, packed in order), where the processor does that fast (e->pext).
 * Against the per-man sums it replaced, level 8's search on bench/engine.py's 8
 * positions (Zen 4, best CPU time of 5): International 11% faster, the other rule sets
 * 3-7%; the shifts took between 4% less and 4% more time than those sums. */
__attribute__((target("bmi2"))) static int64_t pattern_score_pext(const eval_tables *e, bb wm,
                                                                  bb bm)
{
    uint8_t w[EVAL_MAX_SETS], b[EVAL_MAX_SETS];
    uint64_t wl = (uint64_t)wm, bl = (uint64_t)bm;
    if (e->low64) {
        for (int s = 0; s < e->n_sets; s++) {
            w[s] = (uint8_t)__builtin_ia32_pext_di(wl, e->set_low[s]);
            b[s] = (uint8_t)__builtin_ia32_pext_di(bl, e->set_low[s]);
        }
    } else {
        uint64_t wh = (uint64_t)(wm >> 64), bh = (uint64_t)(bm >> 64);
        for (int s = 0; s < e->n_sets; s++) {
            int k = e->set_low_count[s];
            w[s] = (uint8_t)(__builtin_ia32_pext_di(wl, e->set_low[s]) |
                             __builtin_ia32_pext_di(wh, e->set_high[s]) << k);
            b[s] = (uint8_t)(__builtin_ia32_pext_di(bl, e->set_low[s]) |
                             __builtin_ia32_pext_di(bh, e->set_high[s]) << k);
        }
    }
    return sum_regions(e, w, b);
}
#endif

int eval_fast_pext(void)
{
#ifdef EVAL_PEXT
    /* AMD's processors before Zen 3 work pext out in microcode, dozens of cycles. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("znver1") &&
           !__builtin_cpu_is("znver2");
#else
    return 0;
#endif
}

/* The men's middlegame and endgame worth on their squares. */
static inline void sum_men(const eval_tables *e, int side, bb men, int64_t *mid, int64_t *end)
{
    FOR_EACH_SQUARE(e, men, sq, {
        *mid += e->men_mid[side][sq];
        *end += e->men_end[side][sq];
    });
}

/* Python's a // b for b > 0. */
static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Squares from which one step in one of dirs lands on target (evaluation.py's
 * _steps_onto): the inverse shift. */
static bb steps_onto(bb target, const int *dirs, int n)
{
    bb out = 0;
    for (int i = 0; i < n; i++)
        out |= bb_shift(target, -dirs[i]);
    return out;
}

/* Men one step from a free crowning square, and men one free step from such a square
 * (not already one step from another): evaluation.py's _crowning. */
static void crowning(bb men, bb free_promo, bb empty, const int *dirs, int n,
                     int64_t *one_count, int64_t *two_count)
{
    bb one = steps_onto(free_promo, dirs, n);
    bb two = steps_onto(one & empty, dirs, n) & ~one;
    *one_count = bb_popcount(men & one);
    *two_count = bb_popcount(men & two);
}

/* Squares where a piece would be taken at once by one of men (a man behind it in one
 * of its capture directions, a free square beyond it). */
static bb taken_on(bb men, bb empty, const int *dirs, int n)
{
    bb out = 0;
    for (int i = 0; i < n; i++)
        out |= bb_shift(men, dirs[i]) & bb_shift(empty, -dirs[i]);
    return out;
}

/* Free squares the kings could move to outside taken (*safe) and inside it (*denied),
 * once per king. */
static void king_reach(const eval_tables *e, bb kings, bb empty, bb taken, int64_t *safe,
                       int64_t *denied)
{
    int64_t s = 0, d = 0;
    if (kings) {
        for (int i = 0; i < e->n_king_dirs; i++) {
            int dir = e->king_dirs[i];
            bb front = bb_shift(kings, dir) & empty;
            while (front) {
                s += bb_popcount(front & ~taken);
                d += bb_popcount(front & taken);
                if (!e->flying)
                    break;
                front = bb_shift(front, dir) & empty;
            }
        }
    }
    *safe = s;
    *denied = d;
}

int64_t eval_score(const eval_tables *e, bb white, bb black, bb kings,
                   int turn)
{
    if (!black)
        return turn == 0 ? EVAL_WIN : -EVAL_WIN;
    if (!white)
        return turn == 0 ? -EVAL_WIN : EVAL_WIN;
    bb wm = white & ~kings, bm = black & ~kings;
    bb wk = white & kings, bk = black & kings;
    int64_t nwm = bb_popcount(wm), nbm = bb_popcount(bm);
    int64_t nwk = bb_popcount(wk), nbk = bb_popcount(bk);
    int64_t lead = (nwm - nbm) * EVAL_MAN + (nwk - nbk) * e->king_value;
    int64_t score = lead - e->men_offset * (nwm - nbm);
    int64_t start_total = e->start_total;

    int64_t men = nwm + nbm;
    if (men) {
        /* Men: the middlegame and endgame tables blended by how many men are left. */
        int64_t mid = 0, end = 0;
        sum_men(e, 0, wm, &mid, &end);
        int64_t b_mid = 0, b_end = 0;
        sum_men(e, 1, bm, &b_mid, &b_end);
        mid -= b_mid;
        end -= b_end;
        int64_t phase = men < start_total ? men : start_total;
        score += floor_div(mid * phase + end * (start_total - phase), start_total);
        if (e->n_regions) {
#ifdef EVAL_PEXT
            if (e->pext)
                score += pattern_score_pext(e, wm, bm);
            else
#endif
                score += pattern_score(e, wm, bm);
        }

        /* Mobility: free steps of the men, set-wise. */
        bb empty = e->mask & ~(white | black);
        int64_t mob = 0;
        for (int i = 0; i < e->n_step_dirs[0]; i++)
            mob += bb_popcount(bb_shift(wm, e->step_dirs[0][i]) & empty);
        for (int i = 0; i < e->n_step_dirs[1]; i++)
            mob -= bb_popcount(bb_shift(bm, e->step_dirs[1][i]) & empty);
        score += mob * e->mobility;

        /* Balance: men spread evenly over both wings, while many are left. */
        if (phase * 2 > start_total) {
            int64_t w_bal = bb_popcount(wm & e->left) - bb_popcount(wm & e->right);
            int64_t b_bal = bb_popcount(bm & e->left) - bb_popcount(bm & e->right);
            int64_t bal = (w_bal < 0 ? -w_bal : w_bal) - (b_bal < 0 ? -b_bal : b_bal);
            score -= bal * e->balance;
        }

        /* Crowning threats: the side to move's count more, as it moves first. */
        if ((wm & e->near[0]) || (bm & e->near[1])) {
            int64_t w_one, w_two, b_one, b_two;
            crowning(wm, empty & e->promo[0], empty, e->step_dirs[0], e->n_step_dirs[0],
                     &w_one, &w_two);
            crowning(bm, empty & e->promo[1], empty, e->step_dirs[1], e->n_step_dirs[1],
                     &b_one, &b_two);
            if (turn == 0)
                score += e->crown_now * w_one + e->crown_two * w_two - e->crown_next * b_one -
                         e->crown_two_next * b_two;
            else
                score += e->crown_next * w_one + e->crown_two_next * w_two - e->crown_now * b_one -
                         e->crown_two * b_two;
        }
    }

    for (bb b = wk; b; b &= b - 1)
        score += e->king_sq[0][bb_lsb(b)];
    for (bb b = bk; b; b &= b - 1)
        score -= e->king_sq[1][bb_lsb(b)];
    if (nwk > 1 || nbk > 1)
        score += ((nwk > 1 ? nwk - 1 : 0) - (nbk > 1 ? nbk - 1 : 0)) * e->extra_king;
    if ((wk | bk) && (e->king_safe || e->king_denied)) {
        /* Kings' reach: evaluation.py's _king_reach and _taken_on. */
        bb empty = e->mask & ~(white | black);
        int64_t w_safe, w_denied, b_safe, b_denied;
        king_reach(e, wk, empty, taken_on(bm, empty, e->capture_dirs[1], e->n_capture_dirs[1]),
                   &w_safe, &w_denied);
        king_reach(e, bk, empty, taken_on(wm, empty, e->capture_dirs[0], e->n_capture_dirs[0]),
                   &b_safe, &b_denied);
        score += (w_safe - b_safe) * e->king_safe + (w_denied - b_denied) * e->king_denied;
    }

    if (lead) {
        /* Trading down when ahead: the lead counts more the fewer pieces remain. */
        int64_t total = nwm + nbm + nwk + nbk;
        score += floor_div(lead * e->trade * (start_total - total), 32 * start_total);
        /* Against a flying king a small lead rarely wins: evaluation.py's
           flying_king_damping, the rule's statement in Python. */
        if (e->flying) {
            int64_t ahead_pieces = lead > 0 ? nwm + nwk : nbm + nbk;
            int64_t ahead_kings = lead > 0 ? nwk : nbk, their_kings = lead > 0 ? nbk : nwk;
            int64_t men_diff = lead > 0 ? nwm - nbm : nbm - nwm;
            if (their_kings) {
                if (ahead_pieces <= 3)
                    score = floor_div(score, 8);
                else if (ahead_kings == their_kings && men_diff <= 1)
                    score = floor_div(score, 2);
            }
        }
    }
    return (turn == 0 ? score : -score) + e->tempo;
}
