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
    e->n_regions = 0;
}

void eval_indexes_of(const eval_tables *e, bb white_men, bb black_men, eval_indexes *out)
{
    memset(out, 0, sizeof(*out));
    eval_indexes_update(e, out, 0, 0, white_men, black_men);
}

/* The pattern score from White's side: each region's entry read from White's side,
 * less its entry read from Black's. */
static int64_t pattern_score(const eval_tables *e, const eval_indexes *ix)
{
    int n = e->n_regions;
    int64_t score = 0;
    const int16_t *table = e->patterns;
    for (int r = 0; r < n; r++, table += e->region_size)
        score += table[ix->at[r]] - table[ix->at[n + r]];
    return score;
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

int64_t eval_score(const eval_tables *e, bb white, bb black, bb kings, int turn,
                   const eval_indexes *ix)
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
        for (bb b = wm; b; b &= b - 1) {
            int sq = bb_lsb(b);
            mid += e->men_mid[0][sq];
            end += e->men_end[0][sq];
        }
        for (bb b = bm; b; b &= b - 1) {
            int sq = bb_lsb(b);
            mid -= e->men_mid[1][sq];
            end -= e->men_end[1][sq];
        }
        int64_t phase = men < start_total ? men : start_total;
        score += floor_div(mid * phase + end * (start_total - phase), start_total);
        if (e->n_regions) {
            eval_indexes own;
            if (!ix) {
                eval_indexes_of(e, wm, bm, &own);
                ix = &own;
            }
            score += pattern_score(e, ix);
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

    if (lead) {
        /* Trading down when ahead: the lead counts more the fewer pieces remain. */
        int64_t total = nwm + nbm + nwk + nbk;
        score += floor_div(lead * e->trade * (start_total - total), 32 * start_total);
        /* A lone flying king holds a draw against a few pieces: damp the score. */
        if (e->flying && ((lead > 0 && nbk == 1 && !nbm && nwm + nwk <= 3) ||
                          (lead < 0 && nwk == 1 && !nwm && nbm + nbk <= 3)))
            score = floor_div(score, 4);
    }
    return (turn == 0 ? score : -score) + e->tempo;
}
