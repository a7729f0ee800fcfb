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
#define EVAL_MAX_SETS (2 * EVAL_MAX_REGIONS) /* distinct square sets of the regions */

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
    /* Kings' reach: the kings' directions, and each side's men's capture directions
     * (none where men may not take a king). */
    int king_dirs[CMAX_KDIRS];
    int n_king_dirs;
    int capture_dirs[2][CMAX_DIRS];
    int n_capture_dirs[2];
    int64_t king_safe, king_denied, extra_king;
    int64_t king_value, men_offset, start_total;
    int64_t mobility, balance, tempo, trade;
    int64_t crown_now, crown_next, crown_two, crown_two_next;
    int flying;
    /* Pattern tables (engine/patterns.py). Region r read from White's side is view
     * region r, read from Black's side view region n + r; region r's table is
     * patterns[r * region_size ...], 16-bit numbers (half the cache of 32-bit ones).
     * A view region's index is read off two bytes: each side's men on its squares,
     * gathered in square order (bit i: the set's i-th lowest square) by a few shifts,
     * one per run of consecutive squares (four on 10x10 and 8x8, two on Turkish's
     * board). The regions read from Black's side cover the same square sets as those
     * read from White's (the board turned half round), so each set's bytes are
     * gathered once for both. read[view_read[k] + byte] is what those men add to view
     * region k's index as its own side's (3^i for the i-th square in the region's
     * reading order); the other side's add twice as much. No regions: no patterns. */
    int n_regions;
    int32_t region_size;
    int n_sets;
    uint8_t set_runs[EVAL_MAX_SETS];                         /* runs of a set */
    uint8_t run_shift[EVAL_MAX_SETS][EVAL_REGION_SQUARES];   /* first square of a run */
    uint8_t run_mask[EVAL_MAX_SETS][EVAL_REGION_SQUARES];    /* its length, as a mask */
    uint8_t run_dest[EVAL_MAX_SETS][EVAL_REGION_SQUARES];    /* its place in the byte */
    uint8_t view_set[EVAL_MAX_SETS];                         /* view region -> set */
    uint16_t view_read[EVAL_MAX_SETS];                       /* view region -> table */
    uint64_t set_low[EVAL_MAX_SETS];   /* a set's squares below bit 64, as a mask */
    uint64_t set_high[EVAL_MAX_SETS];  /* and from bit 64 on, shifted down by 64 */
    uint8_t set_low_count[EVAL_MAX_SETS];
    int pext;          /* gather with pext (eval_fast_pext) instead of the runs */
    uint16_t *read;    /* owned: reading tables, 256 entries each, one per distinct order */
    int16_t *patterns; /* owned: eval_tables_free */
    int low64; /* every square below bit 64: the men are walked in one word */
} eval_tables;

/* pext (x86-64's BMI2) can gather the sets' bytes, on a processor that does it fast. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EVAL_PEXT 1
#endif
int eval_fast_pext(void);

/* Release what eval_tables_load allocated: the pattern tables and the reading tables. */
void eval_tables_free(eval_tables *e);

/* Score for the side to move (turn 0 = White), hundredths of a man. */
int64_t eval_score(const eval_tables *e, bb white, bb black, bb kings,
                   int turn);

#define EVAL_MAN 100
#define EVAL_WIN 1000000

#endif
