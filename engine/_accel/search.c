/* The computer opponent's search in C: engine/search.py's Searcher, the same algorithm
 * over movegen.c's moves and eval.c's score.
 *
 * Iterative deepening, an aspiration window, negamax principal-variation search with a
 * transposition table, killer and history ordering, a one-reply extension, a capture
 * quiescence, late-move reductions and ProbCut (as the parameters say), repetitions of
 * the game's and the line's positions scored as draws, and the endgame tables probed
 * through a Python callable (rare and cheap next to porting the tables). search.py's
 * docstrings give the reasons for each piece; comments here say where C differs.
 *
 * What Python keeps: the root's shuffle and noise (its random generator, so a seed
 * means the same thing in both engines), the forced and lost roots, and matching the
 * move and line returned here to the position's legal Move objects.
 *
 * The search does not reproduce the Python search's node counts: its table replaces
 * entries where Python's stops taking them when full, and it keeps no cache of static
 * scores or move lists (Python's spare it the generator's and the evaluation's cost,
 * which are small here). Like Python's, it checks its budget every 512 nodes.
 * The GIL is released while it runs and taken back only to probe the endgame tables. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <time.h>

#include "accel.h"
#include "eval_py.h"

#define WIN EVAL_WIN
#define WIN_BOUND (WIN - 10000)
#define INF (WIN + 1)
#define MAX_PLY 120
#define ASPIRATION 30
#define PROBCUT_MARGIN 10
#define NO_TT_MOVE 0xFFFF /* a table entry without a move */
#define LMR_PV_FROM 3
#define LMR_TWO_FROM 6
#define PV_LENGTH 32
/* Moves of every node on the current line, in one stack: room for 128 a ply along a
 * whole line and one node of the generator's most; a node that would not fit is scored
 * statically (never seen: lines of captures are short). Only touched pages are resident. */
#define MOVE_STACK ((MAX_PLY + 2) * 128 + CMAX_MOVES)
/* The game's and the line's positions: a count per low bits of the key tells at once
 * that most keys were never seen, before the list is scanned. */
#define PATH_CAP 1024
#define PATH_FILTER 4096

enum { EXACT = 0, LOWER = 1, UPPER = 2 };

typedef struct {
    uint64_t key;
    int32_t score;
    int8_t depth;
    uint8_t flag; /* low 2 bits: EXACT, LOWER, UPPER; the rest: the search's generation */
    uint16_t move; /* index in gen_moves' order: the same position lists the same moves */
} TTEntry;

typedef struct {
    PyObject_HEAD
    PyObject *tables_obj; /* engine._accel.Tables: keeps ``t`` alive */
    PyObject *eval_obj;   /* engine._accel.Evaluation: keeps ``e`` alive */
    const Tab *t;
    const eval_tables *e;
    void *tt_block; /* as allocated (take_tt) */
    TTEntry *tt;    /* in it, from a cache line's start */
    uint64_t tt_mask;
    uint64_t salt; /* XORed into the keys this Search stores (see spare_tt) */
    uint8_t generation; /* bumped each search: entries of earlier moves are replaced first */
    int64_t *history; /* by from * size + to, as Python's */
    CMove *moves;     /* the move stack */
    int64_t *keys;    /* each stacked move's ordering key */
    int16_t *order;   /* each stacked move's place, sorted lazily */

    /* One search's state. */
    int killers[MAX_PLY + 2][2];
    uint64_t path[PATH_CAP];
    int npath;
    uint16_t path_count[PATH_FILTER];
    int top;
    int64_t nodes, node_limit;
    double deadline;
    int stopped;
    int reductions, probcut;
    PyObject *probe; /* EndgameTable.probe or NULL */
    int eg_pieces;
    PyThreadState *thread; /* saved while the GIL is released */
    int failed;            /* the probe raised: the search unwinds and reports it */
    int busy;              /* a search runs (with the GIL released: another thread
                              calling in would share its stack and table) */
    int improved_index, improved_score;
} SearchObject;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --- positions ------------------------------------------------------------------ */

static uint64_t position_key(const Tab *t, bb white, bb black, bb kings, int turn)
{
    uint64_t h = turn ? t->zobrist_black_to_move : 0;
    for (bb b = white; b; b &= b - 1) {
        int sq = bb_lsb(b);
        h ^= t->zobrist[0][(kings >> sq) & 1][sq];
    }
    for (bb b = black; b; b &= b - 1) {
        int sq = bb_lsb(b);
        h ^= t->zobrist[1][(kings >> sq) & 1][sq];
    }
    return h;
}

/* The key after ``m`` by ``turn``: the moving piece, each captured piece, the turn. */
static uint64_t key_after(const Tab *t, uint64_t h, const CMove *m, bb kings, int turn)
{
    int moved_king = (int)((kings & ~m->captured) >> m->from) & 1;
    h ^= t->zobrist[turn][moved_king][m->from];
    h ^= t->zobrist[turn][moved_king || m->promotes][m->to];
    for (bb c = m->captured; c; c &= c - 1) {
        int sq = bb_lsb(c);
        h ^= t->zobrist[turn ^ 1][(kings >> sq) & 1][sq];
    }
    return h ^ t->zobrist_black_to_move;
}

/* The child of a node, from the opponent's side: (own, opp) swap as the turn does. */
static void play(const CMove *m, bb own, bb opp, bb kings, bb *c_own, bb *c_opp, bb *c_kings)
{
    bb o = own, p = opp, k = kings;
    make_move(m, &o, &p, &k);
    *c_own = p;
    *c_opp = o;
    *c_kings = k;
}

static int static_score(const SearchObject *s, bb own, bb opp, bb kings, int turn)
{
    return (int)(turn == 0 ? eval_score(s->e, own, opp, kings, 0)
                           : eval_score(s->e, opp, own, kings, 1));
}

/* Whether the side to move has a quiet move (it has no capture here). */
static int can_step(const Tab *t, bb own, bb opp, bb kings, int turn)
{
    bb empty = t->mask & ~(own | opp);
    bb men = own & ~kings, own_kings = own & kings;
    for (int i = 0; i < t->nstep[turn]; i++)
        if (bb_shift(men, t->step_dirs[turn][i]) & empty)
            return 1;
    if (own_kings)
        for (int i = 0; i < t->nkdir; i++)
            if (bb_shift(own_kings, t->king_dirs[i]) & empty)
                return 1;
    return 0;
}

/* --- the line's and the game's positions ---------------------------------------- */

static int on_path(const SearchObject *s, uint64_t key)
{
    if (!s->path_count[key & (PATH_FILTER - 1)])
        return 0;
    for (int i = s->npath - 1; i >= 0; i--)
        if (s->path[i] == key)
            return 1;
    return 0;
}

/* Returns 0 when the list is full: the caller then leaves the key off (a repetition
 * that deep in a line is missed, never invented). */
static int path_push(SearchObject *s, uint64_t key)
{
    if (s->npath >= PATH_CAP)
        return 0;
    s->path[s->npath++] = key;
    s->path_count[key & (PATH_FILTER - 1)]++;
    return 1;
}

static void path_pop(SearchObject *s)
{
    uint64_t key = s->path[--s->npath];
    s->path_count[key & (PATH_FILTER - 1)]--;
}

/* --- budget and endgame tables -------------------------------------------------- */

static int count_node(SearchObject *s)
{
    s->nodes++;
    if (!(s->nodes & 511) && (s->nodes >= s->node_limit || now() >= s->deadline))
        s->stopped = 1;
    return s->stopped;
}

/* The endgame table's exact result: won or lost in d plies from here is a win or loss
 * at ply + d, like a win the search found itself (search.py's _probe). */
static int probe(SearchObject *s, bb own, bb opp, bb kings, int turn, int ply)
{
    if (!own)
        return -WIN + ply;
    PyEval_RestoreThread(s->thread);
    PyObject *w = bb_to_py(turn == 0 ? own : opp);
    PyObject *b = bb_to_py(turn == 0 ? opp : own);
    PyObject *k = bb_to_py(kings);
    PyObject *r = w && b && k ? PyObject_CallFunction(s->probe, "OOOi", w, b, k, turn) : NULL;
    long v = r ? PyLong_AsLong(r) : -1;
    if (!r || (v == -1 && PyErr_Occurred())) {
        s->failed = 1;
        s->stopped = 1;
        v = 0;
    }
    Py_XDECREF(w);
    Py_XDECREF(b);
    Py_XDECREF(k);
    Py_XDECREF(r);
    s->thread = PyEval_SaveThread();
    if (v > 0)
        return WIN - ply - (int)v;
    if (v < 0)
        return -WIN + ply - (int)v - 1;
    return 0;
}

/* --- move lists ----------------------------------------------------------------- */

/* Generate a node's moves onto the stack; -1 when the stack or the generator's limits
 * are exceeded (the node is then scored statically: never an illegal move). */
static int push_moves(SearchObject *s, bb own, bb opp, bb kings, int turn, int *base)
{
    if (s->top + CMAX_MOVES > MOVE_STACK)
        return -1;
    int n = gen_moves(s->t, own, opp, kings, turn, 0, s->moves + s->top);
    if (n < 0)
        return -1;
    *base = s->top;
    s->top += n;
    for (int i = 0; i < n; i++)
        s->order[*base + i] = (int16_t)i;
    return n;
}

/* The i-th move by descending key, ties in generation order: brings the first best of
 * the rest forward (a stable lazy selection sort; a cut usually comes early). */
static const CMove *pick(SearchObject *s, int base, int n, int i, int *index)
{
    int16_t *order = s->order + base;
    const int64_t *keys = s->keys + base;
    int best = i;
    for (int j = i + 1; j < n; j++)
        if (keys[order[j]] > keys[order[best]])
            best = j;
    int16_t chosen = order[best];
    memmove(order + i + 1, order + i, (size_t)(best - i) * sizeof(int16_t));
    order[i] = chosen;
    *index = chosen;
    return s->moves + base + chosen;
}

/* --- the tree ------------------------------------------------------------------- */

static int quiesce(SearchObject *s, bb own, bb opp, bb kings, int turn, int alpha, int beta,
                   int ply, uint64_t key);

static int negamax(SearchObject *s, bb own, bb opp, bb kings, int turn, int depth, int alpha,
                   int beta, int ply, uint64_t key);

static int child_search(SearchObject *s, bb own, bb opp, bb kings, int turn, int depth,
                        int alpha, int beta, int ply, uint64_t key)
{
    if (depth <= 0)
        return quiesce(s, own, opp, kings, turn, alpha, beta, ply, key);
    return negamax(s, own, opp, kings, turn, depth, alpha, beta, ply, key);
}

/* Play out forced captures; score the first quiet position (search.py's _quiesce). */
static int quiesce(SearchObject *s, bb own, bb opp, bb kings, int turn, int alpha, int beta,
                   int ply, uint64_t key)
{
    if (count_node(s))
        return 0;
    if (s->eg_pieces && bb_popcount(own | opp) <= s->eg_pieces)
        return probe(s, own, opp, kings, turn, ply);
    if (!has_capture(s->t, own, opp, kings, turn)) {
        if (!own || !can_step(s->t, own, opp, kings, turn))
            return -WIN + ply; /* no piece or no move: lost */
        return static_score(s, own, opp, kings, turn);
    }
    if (ply >= MAX_PLY)
        return static_score(s, own, opp, kings, turn);
    int base;
    int n = push_moves(s, own, opp, kings, turn, &base);
    if (n < 0)
        return static_score(s, own, opp, kings, turn);
    /* Most pieces first, then crowning moves. */
    for (int i = 0; i < n; i++) {
        const CMove *m = s->moves + base + i;
        s->keys[base + i] = (m->npath - 1) * 2 + m->promotes;
    }
    int best = -INF;
    for (int i = 0; i < n; i++) {
        int index;
        const CMove *m = pick(s, base, n, i, &index);
        bb c_own, c_opp, c_kings;
        play(m, own, opp, kings, &c_own, &c_opp, &c_kings);
        int score = -quiesce(s, c_own, c_opp, c_kings, turn ^ 1, -beta, -alpha, ply + 1,
                             key_after(s->t, key, m, kings, turn));
        if (s->stopped)
            break;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                if (score >= beta)
                    break;
            }
        }
    }
    s->top = base;
    return best;
}

#define BUCKET 4 /* entries a key may sit in: one 64-byte cache line */
#define GEN_SHIFT 2
#define GEN_MASK 63

/* The entry of ``key`` in its bucket, or NULL. */
static TTEntry *tt_find(const SearchObject *s, uint64_t key)
{
    TTEntry *b = &s->tt[key & s->tt_mask & ~(uint64_t)(BUCKET - 1)];
    uint64_t stamp = key ^ s->salt;
    for (int i = 0; i < BUCKET; i++)
        if (b[i].key == stamp)
            return &b[i];
    return NULL;
}

static void tt_store(SearchObject *s, uint64_t key, int depth, int score, int flag, int move,
                     int ply)
{
    /* Won and lost scores are stored as distances from this node, not the root. */
    if (score > WIN_BOUND)
        score += ply;
    else if (score < -WIN_BOUND)
        score -= ply;
    uint64_t stamp = key ^ s->salt;
    TTEntry *e = tt_find(s, key);
    if (e) {
        /* Keep a deeper result of the same position, unless this one is exact. */
        if (e->depth > depth && flag != EXACT)
            return;
    } else {
        /* Replace the shallowest entry, counting an earlier search's as 8 plies
         * shallower a search ago (Stockfish's rule, with Scan 2.0's four a bucket). */
        TTEntry *b = &s->tt[key & s->tt_mask & ~(uint64_t)(BUCKET - 1)];
        int worst = 1 << 30;
        for (int i = 0; i < BUCKET; i++) {
            int age = (s->generation - (b[i].flag >> GEN_SHIFT)) & GEN_MASK;
            int worth = b[i].depth - 8 * age;
            if (worth < worst) {
                worst = worth;
                e = &b[i];
            }
        }
    }
    /* A node that failed low has no best move, only the least bad of a failed search:
     * keep the move an earlier search of it found, else none (as Scan 2.0 does; search.py). */
    if (flag == UPPER)
        move = e->key == stamp ? e->move : NO_TT_MOVE;
    e->key = stamp;
    e->score = score;
    e->depth = (int8_t)(depth > 127 ? 127 : depth);
    e->flag = (uint8_t)(flag | (s->generation & GEN_MASK) << GEN_SHIFT);
    e->move = (uint16_t)move;
}

static int negamax(SearchObject *s, bb own, bb opp, bb kings, int turn, int depth, int alpha,
                   int beta, int ply, uint64_t key)
{
    if (depth <= 0)
        return quiesce(s, own, opp, kings, turn, alpha, beta, ply, key);
    if (count_node(s))
        return 0;
    if (on_path(s, key))
        return 0; /* a repetition: a draw */
    if (ply >= MAX_PLY)
        return static_score(s, own, opp, kings, turn);
    if (s->eg_pieces && bb_popcount(own | opp) <= s->eg_pieces)
        return probe(s, own, opp, kings, turn, ply);

    int tt_move = -1;
    const TTEntry *entry = tt_find(s, key);
    if (entry) {
        tt_move = entry->move;
        if (entry->depth >= depth) {
            int e_score = entry->score;
            if (e_score > WIN_BOUND)
                e_score -= ply;
            else if (e_score < -WIN_BOUND)
                e_score += ply;
            int e_flag = entry->flag & 3;
            if (e_flag == EXACT) {
                if (beta - alpha == 1) /* no cut at PV nodes keeps the PV whole */
                    return e_score;
            } else if (e_flag == LOWER) {
                if (e_score >= beta)
                    return e_score;
            } else if (e_score <= alpha) {
                return e_score;
            }
        }
    }

    int base;
    int n = push_moves(s, own, opp, kings, turn, &base);
    if (n < 0)
        return static_score(s, own, opp, kings, turn);
    if (!n)
        return -WIN + ply; /* no piece or no move: the side to move has lost */

    int capture = s->moves[base].captured != 0;
    if (s->probcut && depth >= 3 && beta - alpha == 1 && -WIN_BOUND < beta &&
        beta < WIN_BOUND) {
        /* ProbCut: a shallow search clearing beta by a margin stands for the node. */
        int bar = beta + PROBCUT_MARGIN * depth;
        int shallow = negamax(s, own, opp, kings, turn, depth * 2 / 5, bar - 1, bar, ply, key);
        if (s->stopped) {
            s->top = base;
            return 0;
        }
        if (shallow >= bar) {
            s->top = base;
            return shallow - PROBCUT_MARGIN * depth;
        }
    }

    int size = s->t->size;
    int new_depth = depth;
    if (n > 1) {
        const int *killers = s->killers[ply];
        for (int i = 0; i < n; i++) {
            const CMove *m = s->moves + base + i;
            int64_t k;
            if (capture) {
                k = (int64_t)(m->npath - 1) * 1000 + m->promotes * 500;
            } else {
                int q = m->from * size + m->to;
                if (m->promotes)
                    k = (int64_t)1 << 40;
                else if (q == killers[0])
                    k = (int64_t)1 << 39;
                else if (q == killers[1])
                    k = (int64_t)1 << 38;
                else
                    k = s->history[q];
            }
            if (i == tt_move)
                k = (int64_t)1 << 50;
            s->keys[base + i] = k;
        }
        new_depth = depth - 1;
    }
    /* else: one reply only (usually a forced capture): searched a ply deeper. */

    int alpha0 = alpha;
    int pv_node = beta - alpha > 1;
    int best = -INF, best_index = 0;
    int reduce_ok = s->reductions && !capture && depth >= 3;
    int pushed = path_push(s, key);
    for (int i = 0; i < n; i++) {
        int index;
        const CMove *m = pick(s, base, n, i, &index);
        bb c_own, c_opp, c_kings;
        play(m, own, opp, kings, &c_own, &c_opp, &c_kings);
        uint64_t c_key = key_after(s->t, key, m, kings, turn);
        int score;
        if (i == 0) {
            score = -child_search(s, c_own, c_opp, c_kings, turn ^ 1, new_depth, -beta, -alpha,
                                  ply + 1, c_key);
        } else {
            int d = new_depth;
            if (reduce_ok && !m->promotes && i >= (pv_node ? LMR_PV_FROM : 1))
                d -= 1 + (!pv_node && i >= LMR_TWO_FROM); /* search.py's _negamax */
            score = -child_search(s, c_own, c_opp, c_kings, turn ^ 1, d, -alpha - 1, -alpha,
                                  ply + 1, c_key);
            if (!s->stopped && score > alpha && (d < new_depth || score < beta))
                score = -child_search(s, c_own, c_opp, c_kings, turn ^ 1, new_depth, -beta,
                                      -alpha, ply + 1, c_key);
        }
        if (s->stopped)
            break;
        if (score > best) {
            best = score;
            best_index = index;
            if (score > alpha) {
                alpha = score;
                if (score >= beta) {
                    if (!capture) {
                        int q = m->from * size + m->to;
                        int *killers = s->killers[ply];
                        if (killers[0] != q) {
                            killers[1] = killers[0];
                            killers[0] = q;
                        }
                        s->history[q] += (int64_t)depth * depth;
                    }
                    break;
                }
            }
        }
    }
    if (pushed)
        path_pop(s);
    s->top = base;
    if (s->stopped)
        return 0;
    int flag = best >= beta ? LOWER : (best > alpha0 ? EXACT : UPPER);
    tt_store(s, key, depth, best, flag, best_index, ply);
    return best;
}

/* --- the root ------------------------------------------------------------------- */

typedef struct {
    CMove moves[CMAX_MOVES];
    int order[CMAX_MOVES]; /* indexes into moves, best first after each iteration */
    int n;
    int noise[CMAX_MOVES]; /* by index, or all 0 */
    int noisy;
    bb own, opp, kings;
    int turn;
    uint64_t key;
} Root;

typedef struct {
    int score, index;
} Scored;

/* Sort by descending score, ties in the order searched (Python's stable sort). */
static void sort_scored(Scored *v, int n)
{
    for (int i = 1; i < n; i++) {
        Scored x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j].score < x.score) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

static int root_child(SearchObject *s, const Root *r, int index, int depth, int alpha, int beta)
{
    const CMove *m = &r->moves[index];
    bb c_own, c_opp, c_kings;
    play(m, r->own, r->opp, r->kings, &c_own, &c_opp, &c_kings);
    uint64_t c_key = key_after(s->t, r->key, m, r->kings, r->turn);
    return -negamax(s, c_own, c_opp, c_kings, r->turn ^ 1, depth - 1, -beta, -alpha, 1, c_key);
}

/* The moves best first: the best, then the rest searched by score, then those a cut
 * left unsearched, in their old order. */
static void build_order(const int *old, int n, Scored *scored, int nscored, int best_index,
                        int *out)
{
    sort_scored(scored, nscored);
    int k = 0;
    out[k++] = best_index;
    for (int i = 0; i < nscored; i++)
        if (scored[i].index != best_index)
            out[k++] = scored[i].index;
    for (int i = nscored; i < n; i++)
        out[k++] = old[i];
}

/* One iteration in a window (search.py's _root): the score, and in ``out`` the moves
 * best first. A score at or below ``alpha`` means every move failed low; at or above
 * ``beta``, the first move in the order failed high. Meaningless once stopped. */
static int root_search(SearchObject *s, const Root *r, int depth, int alpha, int beta, int *out)
{
    int alpha0 = alpha;
    Scored scored[CMAX_MOVES];
    int nscored = 0, best_index = r->order[0], best = -INF;
    for (int i = 0; i < r->n; i++) {
        int index = r->order[i];
        int score;
        if (i == 0) {
            score = root_child(s, r, index, depth, alpha, beta);
        } else {
            score = root_child(s, r, index, depth, alpha, alpha + 1);
            if (!s->stopped && alpha < score && score < beta)
                score = root_child(s, r, index, depth, alpha, beta);
        }
        if (s->stopped)
            return 0;
        scored[nscored].score = score > alpha || i == 0 ? score : alpha - 1;
        scored[nscored++].index = index;
        if (score > best) {
            best = score;
            best_index = index;
        }
        if (score > alpha) {
            alpha = score;
            if (i && alpha0 < score) {
                /* Searched in full and better than the last iteration's best: worth
                 * playing if the clock stops this iteration. */
                s->improved_index = index;
                s->improved_score = score;
            }
            if (score >= beta)
                break;
        }
    }
    build_order(r->order, r->n, scored, nscored, best_index, out);
    if (alpha0 < best && best < beta)
        tt_store(s, r->key, depth, best, EXACT, out[0], 0);
    return best;
}

/* One iteration in a narrow window around the last score, widened and searched again
 * when the score falls outside it (search.py's _aspirate). */
static int aspirate(SearchObject *s, Root *r, int depth, int have_guess, int guess, int *out)
{
    if (!have_guess || guess > WIN_BOUND || guess < -WIN_BOUND)
        return root_search(s, r, depth, -INF, INF, out);
    int delta = ASPIRATION;
    int alpha = guess - delta, beta = guess + delta;
    for (;;) {
        int score = root_search(s, r, depth, alpha, beta, out);
        if (s->stopped)
            return 0;
        if (score <= alpha) {
            alpha = delta >= 4 * ASPIRATION ? -INF : score - 2 * delta;
        } else if (score >= beta) {
            beta = delta >= 4 * ASPIRATION ? INF : score + 2 * delta;
            memcpy(r->order, out, sizeof(int) * r->n); /* the move that failed high first */
        } else {
            return score;
        }
        delta *= 2;
    }
}

/* The weak levels' root (search.py's _root_noisy): the move with the best score plus
 * its noise; each move after the first searched with a null window at the bar it
 * must clear, and in full only when it clears it. The noise goes with the place in
 * the order, as in Python. */
static int root_noisy(SearchObject *s, const Root *r, int depth, int *out)
{
    Scored scored[CMAX_MOVES];
    int nscored = 0, best_index = r->order[0], best = -INF;
    for (int i = 0; i < r->n; i++) {
        int index = r->order[i];
        int noise = r->noise[i];
        int score;
        if (-WIN_BOUND < best && best < WIN_BOUND) {
            int bar = best - noise < WIN_BOUND - 1 ? best - noise : WIN_BOUND - 1;
            score = root_child(s, r, index, depth, bar, bar + 1);
            if (s->stopped)
                return 0;
            if (score <= bar) {
                scored[nscored].score = score + noise; /* an upper bound is enough */
                scored[nscored++].index = index;
                continue;
            }
        }
        score = root_child(s, r, index, depth, -INF, INF);
        if (s->stopped)
            return 0;
        /* Noise never hides a forced win or loss the search has seen. */
        int total = score < WIN_BOUND && score > -WIN_BOUND ? score + noise : score;
        scored[nscored].score = total;
        scored[nscored++].index = index;
        if (total > best) {
            best = total;
            best_index = index;
        }
    }
    build_order(r->order, r->n, scored, nscored, best_index, out);
    return best;
}

/* The principal variation after the root's best move: the table's best replies. */
static PyObject *principal_variation(SearchObject *s, const Root *r, int first)
{
    PyObject *pv = PyList_New(0);
    if (!pv)
        return NULL;
    uint64_t seen[PV_LENGTH];
    int nseen = 0;
    CMove *moves = s->moves; /* the search is over: the stack is free */
    CMove m = r->moves[first];
    bb own = r->own, opp = r->opp, kings = r->kings;
    int turn = r->turn;
    uint64_t key = r->key;
    for (;;) {
        PyObject *captured = bb_to_py(m.captured);
        PyObject *triple = captured ? Py_BuildValue("(iiN)", m.from, m.to, captured) : NULL;
        if (!triple || PyList_Append(pv, triple) < 0) {
            Py_XDECREF(triple);
            Py_DECREF(pv);
            return NULL;
        }
        Py_DECREF(triple);
        if (nseen >= PV_LENGTH - 1)
            break;
        key = key_after(s->t, key, &m, kings, turn);
        bb c_own, c_opp, c_kings;
        play(&m, own, opp, kings, &c_own, &c_opp, &c_kings);
        own = c_own, opp = c_opp, kings = c_kings, turn ^= 1;
        int repeated = 0;
        for (int i = 0; i < nseen; i++)
            repeated |= seen[i] == key;
        if (repeated)
            break;
        seen[nseen++] = key;
        const TTEntry *e = tt_find(s, key);
        if (!e)
            break;
        int n = gen_moves(s->t, own, opp, kings, turn, 0, moves);
        if (n <= 0 || e->move >= n)
            break;
        m = moves[e->move];
    }
    return pv;
}

/* --- the Python type ------------------------------------------------------------ */

/* A table freed by one Search is kept for the next of the process: the server's weak
 * levels and the analyst make a Search a move, and a fresh table's first touches (the
 * kernel zeroing each page) cost more than a short search. It is not cleared: each
 * Search XORs its own salt into the keys it stores, so another's entries never match
 * (but with odds 2^-64 each, and a matched entry's move is checked against the real
 * moves anyway). Only touched with the GIL held. */
static void *spare_tt; /* the allocated block; the table starts at its first cache line */
static uint64_t spare_entries;

/* The table in a block from take_tt: aligned to a cache line, so a bucket is one read. */
static TTEntry *tt_in(void *block)
{
    return (TTEntry *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
}

static void *take_tt(uint64_t entries)
{
    if (spare_tt && spare_entries == entries) {
        void *block = spare_tt;
        spare_tt = NULL;
        return block;
    }
    /* calloc, not an aligned allocation and a memset: the kernel hands out a large
     * block's pages zeroed as they are first touched, so a short search pays only for
     * the pages it uses (a memset of the whole table made small searches 1.5 times
     * slower). One bucket more leaves room to align. */
    return PyMem_RawCalloc(entries + BUCKET, sizeof(TTEntry));
}

static void give_back_tt(void *block, uint64_t entries)
{
    if (!block)
        return;
    if (spare_tt) {
        PyMem_RawFree(block);
        return;
    }
    spare_tt = block;
    spare_entries = entries;
}

/* A new salt per Search: splitmix64 of a counter (any distinct odd-looking values do). */
static uint64_t new_salt(void)
{
    static uint64_t counter;
    uint64_t z = ++counter * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void search_dealloc(SearchObject *self)
{
    give_back_tt(self->tt_block, self->tt_mask + 1);
    PyMem_RawFree(self->history);
    PyMem_RawFree(self->moves);
    PyMem_RawFree(self->keys);
    PyMem_RawFree(self->order);
    Py_XDECREF(self->tables_obj);
    Py_XDECREF(self->eval_obj);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int search_init(SearchObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tables", "evaluation", "tt_size", NULL};
    PyObject *tables_obj, *eval_obj;
    Py_ssize_t tt_size;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!n:Search", kwlist, &tables_obj,
                                     &EvaluationType, &eval_obj, &tt_size))
        return -1;
    const Tab *t = tab_from_object(tables_obj);
    if (!t)
        return -1;
    if (tt_size < 1) {
        PyErr_SetString(PyExc_ValueError, "tt_size must be at least 1");
        return -1;
    }
    /* Four times Python's entries (a power of two, for the index mask): the C search
     * visits some fifteen times the nodes in a given time. */
    uint64_t entries = 1;
    while (entries < (uint64_t)tt_size * 4 || entries < BUCKET)
        entries <<= 1;
    give_back_tt(self->tt_block, self->tt_mask + 1);
    PyMem_RawFree(self->history);
    PyMem_RawFree(self->moves);
    PyMem_RawFree(self->keys);
    PyMem_RawFree(self->order);
    self->tt_block = take_tt(entries);
    self->tt = self->tt_block ? tt_in(self->tt_block) : NULL;
    self->tt_mask = entries - 1;
    self->history = PyMem_RawCalloc((size_t)t->size * t->size, sizeof(int64_t));
    self->moves = PyMem_RawMalloc(sizeof(CMove) * MOVE_STACK);
    self->keys = PyMem_RawMalloc(sizeof(int64_t) * MOVE_STACK);
    self->order = PyMem_RawMalloc(sizeof(int16_t) * MOVE_STACK);
    if (!self->tt || !self->history || !self->moves || !self->keys || !self->order) {
        PyErr_NoMemory();
        return -1;
    }
    self->salt = new_salt();
    Py_INCREF(tables_obj);
    Py_XSETREF(self->tables_obj, tables_obj);
    Py_INCREF(eval_obj);
    Py_XSETREF(self->eval_obj, eval_obj);
    self->t = t;
    self->e = &((EvaluationObject *)eval_obj)->tables;
    return 0;
}

/* Read the game's earlier positions, (white, black, kings, turn) each, as keys. */
static int load_history(SearchObject *s, PyObject *history, uint64_t root_key)
{
    PyObject *seq = PySequence_Fast(history, "history is a sequence of position keys");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w, *b, *k;
        int turn;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "OOOi", &w, &b, &k, &turn)) {
            Py_DECREF(seq);
            return -1;
        }
        bb white, black, kings;
        if (bb_from_py(w, &white) < 0 || bb_from_py(b, &black) < 0 ||
            bb_from_py(k, &kings) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        /* A history longer than the list is cut (callers pass the positions since the
         * last capture or man move, which are far fewer). */
        if (s->npath == PATH_CAP - MAX_PLY - 2)
            break;
        uint64_t key = position_key(s->t, white, black, kings, turn);
        /* The root itself is on the line, not among the game's earlier positions. */
        if (key != root_key)
            path_push(s, key);
    }
    Py_DECREF(seq);
    return 0;
}

static int int_list(PyObject *obj, const char *what, int n, int *out)
{
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s has %zd entries for %d root moves", what,
                     PySequence_Fast_GET_SIZE(seq), n);
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *search_search(SearchObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"white",      "black",      "kings",      "turn",
                             "history",    "order",      "noise",      "max_depth",
                             "time_limit", "floor_time", "node_limit", "min_depth",
                             "reductions", "probcut",    "probe",      "eg_pieces",
                             NULL};
    PyObject *w_obj, *b_obj, *k_obj, *history, *order_obj, *noise_obj, *probe_obj;
    int turn, max_depth, min_depth, reductions, probcut, eg_pieces;
    double time_limit, floor_time;
    long long node_limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOiOOOiddLippOi:search", kwlist, &w_obj,
                                     &b_obj, &k_obj, &turn, &history, &order_obj, &noise_obj,
                                     &max_depth, &time_limit, &floor_time, &node_limit,
                                     &min_depth, &reductions, &probcut, &probe_obj, &eg_pieces))
        return NULL;
    if (turn != 0 && turn != 1) {
        PyErr_SetString(PyExc_ValueError, "turn is 0 (White) or 1 (Black)");
        return NULL;
    }
    if (probe_obj != Py_None && !PyCallable_Check(probe_obj)) {
        PyErr_SetString(PyExc_TypeError, "probe is a callable or None");
        return NULL;
    }
    bb white, black, kings;
    if (bb_from_py(w_obj, &white) < 0 || bb_from_py(b_obj, &black) < 0 ||
        bb_from_py(k_obj, &kings) < 0)
        return NULL;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Search is searching in another thread");
        return NULL;
    }

    Root *r = PyMem_RawMalloc(sizeof(Root));
    int *next = PyMem_RawMalloc(sizeof(int) * CMAX_MOVES);
    if (!r || !next) {
        PyMem_RawFree(r);
        PyMem_RawFree(next);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    r->turn = turn;
    r->own = turn == 0 ? white : black;
    r->opp = turn == 0 ? black : white;
    r->kings = kings;
    r->key = position_key(self->t, white, black, kings, turn);
    r->n = gen_moves(self->t, r->own, r->opp, kings, turn, 0, r->moves);
    if (r->n < 0) {
        /* Beyond the generator's limits (never seen in play): the caller's Python
         * search answers instead. */
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (r->n < 2) {
        PyErr_SetString(PyExc_ValueError, "the root has no choice to search");
        goto done;
    }
    if (int_list(order_obj, "order", r->n, r->order) < 0)
        goto done;
    r->noisy = noise_obj != Py_None;
    memset(r->noise, 0, sizeof(r->noise));
    if (r->noisy && int_list(noise_obj, "noise", r->n, r->noise) < 0)
        goto done;
    for (int i = 0; i < r->n; i++)
        if (r->order[i] < 0 || r->order[i] >= r->n) {
            PyErr_SetString(PyExc_ValueError, "order is not a permutation of the root moves");
            goto done;
        }

    self->npath = 0;
    memset(self->path_count, 0, sizeof(self->path_count));
    if (load_history(self, history, r->key) < 0)
        goto done;
    path_push(self, r->key);

    /* Age the history so an old game's statistics fade; killers are per search. */
    for (int i = 0; i < self->t->size * self->t->size; i++)
        self->history[i] >>= 2;
    for (int i = 0; i < MAX_PLY + 2; i++)
        self->killers[i][0] = self->killers[i][1] = -1;
    self->generation = (uint8_t)((self->generation + 1) & GEN_MASK);
    self->nodes = 0;
    self->node_limit = node_limit > 0 ? node_limit : (int64_t)1 << 62;
    self->stopped = self->failed = 0;
    self->reductions = reductions;
    self->probcut = probcut;
    self->probe = probe_obj == Py_None ? NULL : probe_obj;
    self->eg_pieces = self->probe ? eg_pieces : 0;
    self->top = 0;

    int best_index = r->order[0], best_score = -INF, done_depth = 0;
    self->busy = 1;
    self->thread = PyEval_SaveThread();
    double start = now();
    double deadline = time_limit >= 0 ? start + time_limit : 1e300;
    double floor_deadline = time_limit >= 0 ? start + floor_time : deadline;
    for (int depth = 1; depth <= (max_depth > 1 ? max_depth : 1); depth++) {
        /* Within the floor the search may overrun; past it the clock rules. */
        self->deadline = depth <= min_depth ? floor_deadline : deadline;
        self->improved_index = -1;
        int score = r->noisy ? root_noisy(self, r, depth, next)
                             : aspirate(self, r, depth, done_depth >= 3, best_score, next);
        if (self->stopped) {
            if (self->improved_index >= 0 && !self->failed) {
                best_index = self->improved_index;
                best_score = self->improved_score;
            }
            break;
        }
        memcpy(r->order, next, sizeof(int) * r->n);
        best_index = r->order[0];
        best_score = score;
        done_depth = depth;
        if (score > WIN_BOUND || score < -WIN_BOUND)
            break; /* a forced win or loss found: deeper search changes nothing */
    }
    PyEval_RestoreThread(self->thread);
    self->thread = NULL;
    self->busy = 0;
    if (self->failed)
        goto done; /* the probe's exception is set */
    PyObject *pv = principal_variation(self, r, best_index);
    if (pv)
        result = Py_BuildValue("(iiiLN)", best_index, best_score, done_depth,
                               (long long)self->nodes, pv);
done:
    self->probe = NULL;
    PyMem_RawFree(r);
    PyMem_RawFree(next);
    return result;
}

static PyMethodDef search_methods[] = {
    {"search", (PyCFunction)(void (*)(void))search_search, METH_VARARGS | METH_KEYWORDS,
     "search(white, black, kings, turn, history, order, noise, max_depth, time_limit,\n"
     "floor_time, node_limit, min_depth, reductions, probcut, probe, eg_pieces)\n"
     "-> (index of the best root move in generation order, score, depth, nodes, pv),\n"
     "or None when the root has more moves than the generator holds\n\n"
     "order: the root moves' indexes in the order to try them; noise: per place in\n"
     "that order, or None; time_limit < 0 and node_limit 0: none; floor_time: seconds\n"
     "the first min_depth plies may take; probe: the endgame\n"
     "table's probe(white, black, kings, turn) or None; pv: (from, to, captured)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine._accel.Search",
    .tp_doc = PyDoc_STR("Search(tables, evaluation, tt_size): search.py's Searcher in C; "
                        "keep one over a game to keep its transposition table."),
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)search_init,
    .tp_dealloc = (destructor)search_dealloc,
    .tp_methods = search_methods,
};

int accel_init_search(PyObject *module)
{
    if (eval_add_to_module(module) < 0 || PyType_Ready(&SearchType) < 0)
        return -1;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(module, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        return -1;
    }
    return 0;
}
