/* The static evaluation in C: exactly engine/evaluation.py's Evaluator.score.
 *
 * Every number comes from a Python Evaluator (its per-square tables and weights),
 * handed over once per rule set; nothing here knows a rule set by name. */
#ifndef KONDAVO_EVAL_H
#define KONDAVO_EVAL_H

#include <stdint.h>

#include "accel.h"

#define EVAL_MAX_REGIONS 32
#define EVAL_REGION_SQUARES 8
#define EVAL_MAX_HITS 16 /* regions a square lies in, from both sides */

typedef struct {
    /* Per side (0 White, 1 Black) and square: a man's middlegame and endgame worth
     * above MAN (lifted by men_offset), and a king's worth above king_value. */
    int32_t men_mid[2][CMAX_SQ];
    int32_t men_end[2][CMAX_SQ];
    int32_t king_sq[2][CMAX_SQ];
    bb mask;       /* the playing squares */
    bb left;       /* the left and right halves (balance) */
    bb right;
    bb promo[2];   /* each side's crowning squares */
    bb near[2];    /* squares within two steps of crowning */
    int step_dirs[2][CMAX_DIRS];
    int n_step_dirs[2];
    int64_t king_value, men_offset, start_total;
    int64_t mobility, balance, tempo, trade;
    int64_t crown_now, crown_next, crown_two, crown_two_next;
    int flying;
    /* Pattern tables (engine/patterns.py). Each man adds to the indexes of the
     * regions it lies in: the k-th of the pattern_hits[s][sq] hits of a man of side s
     * on square sq, h = pattern_hit[s][sq][k], adds h & 0xffff to index h >> 16
     * (fields 0..n-1: the regions read from White's side, n..2n-1: from Black's; one
     * word, as the search reads them at every move); region r's table is
     * patterns[r * region_size ...]. No regions: no pattern tables. */
    int n_regions;
    int32_t region_size;
    uint8_t pattern_hits[2][CMAX_SQ];
    uint32_t pattern_hit[2][CMAX_SQ][EVAL_MAX_HITS];
    int16_t *patterns; /* owned: eval_tables_free (int16: half the cache of int32) */
} eval_tables;

/* A position's pattern indexes, one a field (as pattern_hit numbers them). The
 * search keeps one a ply and moves it along with each move (eval_indexes_update):
 * a move changes two or three squares, where working the indexes out afresh at every
 * scored position goes over every man (a third of the search's time). */
typedef struct {
    uint16_t at[2 * EVAL_MAX_REGIONS];
} eval_indexes;

/* The indexes of a position's men (kings are outside patterns) worked out afresh. */
void eval_indexes_of(const eval_tables *e, bb white_men, bb black_men, eval_indexes *out);

/* The indexes after a move, from those before it: men gone from a square are taken
 * out, men new on a square put in. Only for tables with regions. */
static inline void eval_indexes_update(const eval_tables *e, eval_indexes *ix, bb white_before,
                                       bb black_before, bb white_after, bb black_after)
{
    const bb before[2] = {white_before, black_before}, after[2] = {white_after, black_after};
    for (int side = 0; side < 2; side++) {
        for (bb b = before[side] & ~after[side]; b; b &= b - 1) {
            int sq = bb_lsb(b);
            for (int k = 0; k < e->pattern_hits[side][sq]; k++) {
                uint32_t h = e->pattern_hit[side][sq][k];
                ix->at[h >> 16] -= (uint16_t)h;
            }
        }
        for (bb b = after[side] & ~before[side]; b; b &= b - 1) {
            int sq = bb_lsb(b);
            for (int k = 0; k < e->pattern_hits[side][sq]; k++) {
                uint32_t h = e->pattern_hit[side][sq][k];
                ix->at[h >> 16] += (uint16_t)h;
            }
        }
    }
}

/* Release what eval_tables_load allocated (the pattern tables). */
void eval_tables_free(eval_tables *e);

/* Score for the side to move (turn 0 = White), hundredths of a man. ix: the
 * position's pattern indexes where the caller keeps them, NULL to work them out. */
int64_t eval_score(const eval_tables *e, bb white, bb black, bb kings, int turn,
                   const eval_indexes *ix);

#define EVAL_MAN 100
#define EVAL_WIN 1000000

#endif
