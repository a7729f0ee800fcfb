/* engine._accel: the Python side of the compiled move generator. engine/accel.py is its
 * only caller: it builds a Tables object from engine/tables.py's Tables and converts
 * what comes back into the Python engine's Moves.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "accel.h"

/* setup.py passes a digest of the C sources it compiled; engine/accel.py compares it with
 * the sources beside it and leaves a module built from older ones unused. */
#ifndef ACCEL_SOURCES
#define ACCEL_SOURCES ""
#endif

/* --- bitboards between Python ints and C -------------------------------------------- */

int bb_from_py(PyObject *obj, bb *out) {
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "a bitboard must be an int");
        return -1;
    }
    /* Most boards fit 64 bits; the public API reads the high word with one shift. */
    unsigned long long lo = PyLong_AsUnsignedLongLong(obj);
    if (!(lo == (unsigned long long)-1 && PyErr_Occurred())) {
        *out = lo;
        return 0;
    }
    if (!PyErr_ExceptionMatches(PyExc_OverflowError))
        return -1;
    PyErr_Clear();
    lo = PyLong_AsUnsignedLongLongMask(obj);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *high = sixty_four ? PyNumber_Rshift(obj, sixty_four) : NULL;
    Py_XDECREF(sixty_four);
    if (!high)
        return -1;
    /* Raises OverflowError for negatives and for values of 2**128 and more. */
    unsigned long long hi = PyLong_AsUnsignedLongLong(high);
    Py_DECREF(high);
    if (hi == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = ((bb)hi << 64) | lo;
    return 0;
}

PyObject *bb_to_py(bb x) {
    unsigned long long hi = (unsigned long long)(x >> 64);
    PyObject *low = PyLong_FromUnsignedLongLong((unsigned long long)x);
    if (!hi || !low)
        return low;
    PyObject *high = PyLong_FromUnsignedLongLong(hi);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *shifted = high && sixty_four ? PyNumber_Lshift(high, sixty_four) : NULL;
    PyObject *out = shifted ? PyNumber_Or(shifted, low) : NULL;
    Py_XDECREF(high);
    Py_XDECREF(sixty_four);
    Py_XDECREF(shifted);
    Py_DECREF(low);
    return out;
}

/* --- Tables ------------------------------------------------------------------------- */

/* A small int from a sequence's item, or -1 with an error set when out of [lo, hi]. */
static int item_int(PyObject *seq, Py_ssize_t i, long lo, long hi, long *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item)
        return -1;
    long v = PyLong_AsLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "table value %ld out of range [%ld, %ld]", v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* A sequence of small ints into `out` (at most `cap`): its length, or -1. */
static int int_list(PyObject *seq, int cap, long lo, long hi, int *out) {
    Py_ssize_t n = PySequence_Size(seq);
    if (n < 0)
        return -1;
    if (n > cap) {
        PyErr_Format(PyExc_ValueError, "table list of %zd items, at most %d fit", n, cap);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v;
        if (item_int(seq, i, lo, hi, &v) < 0)
            return -1;
        out[i] = (int)v;
    }
    return (int)n;
}

/* Per-colour direction lists: a pair of sequences. */
static int dir_pair(PyObject *pair, int n[2], int dirs[2][CMAX_DIRS]) {
    if (PySequence_Size(pair) != 2) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "directions come as a (white, black) pair");
        return -1;
    }
    for (int side = 0; side < 2; side++) {
        PyObject *one = PySequence_GetItem(pair, side);
        if (!one)
            return -1;
        n[side] = int_list(one, CMAX_DIRS, -CMAX_SQ, CMAX_SQ, dirs[side]);
        Py_DECREF(one);
        if (n[side] < 0)
            return -1;
    }
    return 0;
}

static int ray_index(const Tab *t, int d) {
    for (int i = 0; i < t->nkdir; i++)
        if (t->king_dirs[i] == d)
            return i;
    return -1;
}

/* splitmix64: fixed Zobrist keys, the same in every process. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Tables(mask, promotion, flags, precedence, step_dirs, capture_dirs, king_dirs, rays)
 *   flags: (flying, removed_at_once, no_turning_back, men_capture_kings, crowning)
 *   rays[sq]: for each of king_dirs in order, the squares along it, nearest first
 *   (empty for a ghost square). The jump tables are derived here in Python's order. */
static int Tables_init(TablesObject *self, PyObject *args, PyObject *kwds) {
    PyObject *mask, *promotion, *flags, *precedence, *step_dirs, *capture_dirs, *king_dirs,
        *rays;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Tables takes positional arguments only");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &mask, &promotion, &flags, &precedence, &step_dirs,
                          &capture_dirs, &king_dirs, &rays))
        return -1;
    Tab *t = &self->tab;
    memset(t, 0, sizeof(*t));
    if (bb_from_py(mask, &t->mask) < 0)
        return -1;
    for (int side = 0; side < 2; side++) {
        PyObject *p = PySequence_GetItem(promotion, side);
        if (!p)
            return -1;
        int bad = bb_from_py(p, &t->promotion[side]);
        Py_DECREF(p);
        if (bad)
            return -1;
    }
    int f[5];
    if (int_list(flags, 5, 0, 2, f) != 5) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "flags: five values");
        return -1;
    }
    t->flying = f[0];
    t->removed_at_once = f[1];
    t->no_turning_back = f[2];
    t->men_capture_kings = f[3];
    t->crowning = f[4];
    t->nprec = int_list(precedence, CMAX_PREC, 0, PREC_EARLIEST_KING, t->prec);
    if (t->nprec < 0 || dir_pair(step_dirs, t->nstep, t->step_dirs) < 0 ||
        dir_pair(capture_dirs, t->ncapdir, t->capture_dirs) < 0)
        return -1;
    t->nkdir = int_list(king_dirs, CMAX_KDIRS, -CMAX_SQ, CMAX_SQ, t->king_dirs);
    if (t->nkdir < 0)
        return -1;
    Py_ssize_t size = PySequence_Size(rays);
    if (size < 0)
        return -1;
    if (size > CMAX_SQ) {
        PyErr_Format(PyExc_ValueError, "%zd squares, at most %d fit", size, CMAX_SQ);
        return -1;
    }
    t->size = (int)size;
    /* ray[sq][i]: the ray along king_dirs[i]; kept here while the tables are derived. */
    static _Thread_local CRay ray[CMAX_SQ][CMAX_KDIRS];
    memset(ray, 0, sizeof(ray));
    for (Py_ssize_t sq = 0; sq < size; sq++) {
        PyObject *per_dir = PySequence_GetItem(rays, sq);
        if (!per_dir)
            return -1;
        Py_ssize_t nd = PySequence_Size(per_dir);
        if (nd != 0 && nd != t->nkdir) {
            Py_DECREF(per_dir);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "rays: one per king direction, or none");
            return -1;
        }
        for (Py_ssize_t i = 0; i < nd; i++) {
            PyObject *one = PySequence_GetItem(per_dir, i);
            int squares[CMAX_RAY];
            int n = one ? int_list(one, CMAX_RAY, 0, size - 1, squares) : -1;
            Py_XDECREF(one);
            if (n < 0) {
                Py_DECREF(per_dir);
                return -1;
            }
            ray[sq][i].d = (int8_t)t->king_dirs[i];
            ray[sq][i].n = (uint8_t)n;
            for (int k = 0; k < n; k++)
                ray[sq][i].sq[k] = (uint8_t)squares[k];
        }
        Py_DECREF(per_dir);
    }
    /* As engine/tables.py: a man's jumps in its capture directions' order, a short
     * king's in king_dirs order, each where the ray has a victim and a landing square;
     * a flying king's rays in king_dirs order where not empty. */
    for (int sq = 0; sq < t->size; sq++) {
        for (int side = 0; side < 2; side++) {
            for (int i = 0; i < t->ncapdir[side]; i++) {
                int r = ray_index(t, t->capture_dirs[side][i]);
                if (r < 0) {
                    PyErr_SetString(PyExc_ValueError, "a man's direction is not a king's");
                    return -1;
                }
                if (ray[sq][r].n >= 2) {
                    CJump *j = &t->man_jumps[side][sq][t->nman_jumps[side][sq]++];
                    j->d = (int8_t)t->capture_dirs[side][i];
                    j->victim = ray[sq][r].sq[0];
                    j->land = ray[sq][r].sq[1];
                }
            }
        }
        for (int i = 0; i < t->nkdir; i++) {
            const CRay *r = &ray[sq][i];
            if (r->n >= 2) {
                CJump *j = &t->king_jumps[sq][t->nking_jumps[sq]++];
                j->d = r->d;
                j->victim = r->sq[0];
                j->land = r->sq[1];
            }
            if (r->n >= 1)
                t->king_rays[sq][t->nking_rays[sq]++] = *r;
        }
    }
    uint64_t state = 20260433;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++)
            for (int sq = 0; sq < CMAX_SQ; sq++)
                t->zobrist[c][k][sq] = splitmix64(&state);
    t->zobrist_black_to_move = splitmix64(&state);
    return 0;
}

PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine._accel.Tables",
    .tp_doc = PyDoc_STR("One rule set's move-generation tables, built by engine/accel.py."),
    .tp_basicsize = sizeof(TablesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Tables_init,
};

const Tab *tab_from_object(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, &TablesType)) {
        PyErr_SetString(PyExc_TypeError, "expected engine._accel.Tables");
        return NULL;
    }
    return &((TablesObject *)obj)->tab;
}

/* --- functions ---------------------------------------------------------------------- */

/* The arguments every generator function takes: (tables, own, opp, kings, turn). */
typedef struct {
    const Tab *t;
    bb own, opp, kings;
    int turn;
} Args;

static int position_args(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, Args *a) {
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "expected %zd arguments, got %zd", want, nargs);
        return -1;
    }
    a->t = tab_from_object(args[0]);
    if (!a->t || bb_from_py(args[1], &a->own) < 0 || bb_from_py(args[2], &a->opp) < 0 ||
        bb_from_py(args[3], &a->kings) < 0)
        return -1;
    long turn = PyLong_AsLong(args[4]);
    if (turn == -1 && PyErr_Occurred())
        return -1;
    if (turn != 0 && turn != 1) {
        PyErr_SetString(PyExc_ValueError, "turn is 0 (White) or 1 (Black)");
        return -1;
    }
    a->turn = (int)turn;
    return 0;
}

static PyObject *limit_error(void) {
    PyErr_SetString(PyExc_OverflowError,
                    "position beyond the accelerator's limits (moves or capture sequences)");
    return NULL;
}

/* legal_moves(tables, own, opp, kings, turn, keep_duplicates) ->
 *   [(path, captured, capmask, promotes)], in Position.legal_moves()'s order. */
static PyObject *py_legal_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Args a;
    if (position_args(args, nargs, 6, &a) < 0)
        return NULL;
    int keep = PyObject_IsTrue(args[5]);
    if (keep < 0)
        return NULL;
    static _Thread_local CMove moves[CMAX_MOVES];
    int n = gen_moves(a.t, a.own, a.opp, a.kings, a.turn, keep, moves);
    if (n < 0)
        return limit_error();
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++) {
        const CMove *m = &moves[i];
        PyObject *path = PyTuple_New(m->npath);
        int ncaps = m->captured ? m->npath - 1 : 0;
        PyObject *caps = PyTuple_New(ncaps);
        PyObject *capmask = bb_to_py(m->captured);
        if (!path || !caps || !capmask) {
            Py_XDECREF(path);
            Py_XDECREF(caps);
            Py_XDECREF(capmask);
            Py_DECREF(list);
            return NULL;
        }
        for (int k = 0; k < m->npath; k++)
            PyTuple_SET_ITEM(path, k, PyLong_FromLong(m->path[k]));
        for (int k = 0; k < ncaps; k++)
                PyTuple_SET_ITEM(caps, k, PyLong_FromLong(m->caps[k]));
        PyObject *item =
            Py_BuildValue("(NNNO)", path, caps, capmask, m->promotes ? Py_True : Py_False);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *py_count_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Args a;
    if (position_args(args, nargs, 6, &a) < 0)
        return NULL;
    int keep = PyObject_IsTrue(args[5]);
    if (keep < 0)
        return NULL;
    int n = count_moves(a.t, a.own, a.opp, a.kings, a.turn, keep);
    return n < 0 ? limit_error() : PyLong_FromLong(n);
}

static PyObject *py_has_capture(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Args a;
    if (position_args(args, nargs, 5, &a) < 0)
        return NULL;
    return PyBool_FromLong(has_capture(a.t, a.own, a.opp, a.kings, a.turn));
}

/* perft(tables, own, opp, kings, turn, depth, keep_duplicates, table_bits): table_bits 0
 * counts every node; n > 0 uses a transposition table of 2**n entries (64 bytes each).
 * The GIL is released while it counts, so a long perft does not stop the interpreter's
 * other threads. */
static PyObject *py_perft(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Args a;
    if (position_args(args, nargs, 8, &a) < 0)
        return NULL;
    long depth = PyLong_AsLong(args[5]);
    if (depth == -1 && PyErr_Occurred())
        return NULL;
    int keep = PyObject_IsTrue(args[6]);
    if (keep < 0)
        return NULL;
    long bits = PyLong_AsLong(args[7]);
    if (bits == -1 && PyErr_Occurred())
        return NULL;
    if (bits < 0 || bits > 30) {
        PyErr_SetString(PyExc_ValueError, "table_bits is 0 (no table) to 30");
        return NULL;
    }
    PerftEntry *table = NULL;
    uint64_t size = (uint64_t)1 << bits;
    if (bits) {
        table = PyMem_RawCalloc(size, sizeof(PerftEntry));
        if (!table)
            return PyErr_NoMemory();
    }
    int64_t n;
    Py_BEGIN_ALLOW_THREADS
    if (table)
        n = perft_hashed(a.t, a.own, a.opp, a.kings, a.turn, (int)depth, keep, table, size);
    else
        n = perft(a.t, a.own, a.opp, a.kings, a.turn, (int)depth, keep);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(table);
    return n < 0 ? limit_error() : PyLong_FromLongLong(n);
}

static PyMethodDef methods[] = {
    {"legal_moves", (PyCFunction)(void (*)(void))py_legal_moves, METH_FASTCALL,
     "legal_moves(tables, own, opp, kings, turn, keep_duplicates) -> "
     "[(path, captured, capmask, promotes)]"},
    {"count_moves", (PyCFunction)(void (*)(void))py_count_moves, METH_FASTCALL,
     "count_moves(tables, own, opp, kings, turn, keep_duplicates) -> int"},
    {"has_capture", (PyCFunction)(void (*)(void))py_has_capture, METH_FASTCALL,
     "has_capture(tables, own, opp, kings, turn) -> bool"},
    {"perft", (PyCFunction)(void (*)(void))py_perft, METH_FASTCALL,
     "perft(tables, own, opp, kings, turn, depth, keep_duplicates, table_bits) -> int"},
    {NULL, NULL, 0, NULL},
};

/* search.c replaces this when it is built in (a weak symbol: GCC and Clang). */
__attribute__((weak)) int accel_init_search(PyObject *module) {
    (void)module;
    return 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "engine._accel",
    .m_doc = "Kondavo's optional compiled move generator (see engine/accel.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__accel(void) {
    if (PyType_Ready(&TablesType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    Py_INCREF(&TablesType);
    if (PyModule_AddObject(m, "Tables", (PyObject *)&TablesType) < 0) {
        Py_DECREF(&TablesType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_SQUARES", CMAX_SQ) < 0 ||
        PyModule_AddStringConstant(m, "SOURCES", ACCEL_SOURCES) < 0 || accel_init_search(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
