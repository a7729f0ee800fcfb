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
     * word, read once); region r's table is patterns[r * region_size ...], 16-bit
     * numbers (half the cache of 32-bit ones). No regions: no pattern tables. */
    int n_regions;
    int32_t region_size;
    uint8_t pattern_hits[2][CMAX_SQ];
    uint32_t pattern_hit[2][CMAX_SQ][EVAL_MAX_HITS];
    int16_t *patterns; /* owned: eval_tables_free */
    int low64; /* every square below bit 64: the men are walked in one word */
} eval_tables;

/* Release what eval_tables_load allocated (the pattern tables). */
void eval_tables_free(eval_tables *e);

/* Score for the side to move (turn 0 = White), hundredths of a man. */
int64_t eval_score(const eval_tables *e, bb white, bb black, bb kings,
                   int turn);

#define EVAL_MAN 100
#define EVAL_WIN 1000000

#endif
