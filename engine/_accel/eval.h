/* The static evaluation in C: exactly engine/evaluation.py's Evaluator.score.
 *
 * Every number comes from a Python Evaluator (its per-square tables and weights),
 * handed over once per rule set; nothing here knows a rule set by name. */
#ifndef KONDAVO_EVAL_H
#define KONDAVO_EVAL_H

#include <stdint.h>

#include "accel.h"

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
} eval_tables;

/* Score for the side to move (turn 0 = White), hundredths of a man. */
int64_t eval_score(const eval_tables *e, bb white, bb black, bb kings,
                   int turn);

#define EVAL_MAN 100
#define EVAL_WIN 1000000

#endif
