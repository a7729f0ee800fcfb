/* Python's view of the compiled evaluation: engine._accel.Evaluation(evaluator) reads
 * a Python Evaluator's unpacked tables once; its score() is Evaluator.score. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "eval_py.h"

/* Attribute ``name`` of ``obj`` as a C integer; -1 with an exception when absent. */
static int get_int(PyObject *obj, const char *name, int64_t *out)
{
    PyObject *v = PyObject_GetAttrString(obj, name);
    if (!v)
        return -1;
    long long x = PyLong_AsLongLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *out = x;
    return 0;
}

static int get_bitboard(PyObject *obj, const char *name, bb *out)
{
    PyObject *v = PyObject_GetAttrString(obj, name);
    if (!v)
        return -1;
    int rc = bb_from_py(v, out);
    Py_DECREF(v);
    return rc;
}

/* A pair (White's, Black's) of sequences of ints, each at most ``cap`` long. */
static int get_pair(PyObject *obj, const char *name, int32_t (*out)[CMAX_SQ])
{
    PyObject *v = PyObject_GetAttrString(obj, name);
    if (!v)
        return -1;
    int rc = -1;
    PyObject *pair = PySequence_Fast(v, "a (White, Black) pair");
    if (!pair || PySequence_Fast_GET_SIZE(pair) != 2) {
        if (pair)
            PyErr_Format(PyExc_ValueError, "%s is not a (White, Black) pair", name);
        goto done;
    }
    for (int side = 0; side < 2; side++) {
        PyObject *seq = PySequence_Fast(PySequence_Fast_GET_ITEM(pair, side), "a sequence");
        if (!seq)
            goto done;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n > CMAX_SQ) {
            PyErr_Format(PyExc_ValueError, "%s has %zd squares, more than %d", name, n,
                         CMAX_SQ);
            Py_DECREF(seq);
            goto done;
        }
        memset(out[side], 0, sizeof(out[side]));
        for (Py_ssize_t i = 0; i < n; i++) {
            long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
            if (x == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                goto done;
            }
            out[side][i] = (int32_t)x;
        }
        Py_DECREF(seq);
    }
    rc = 0;
done:
    Py_XDECREF(pair);
    Py_DECREF(v);
    return rc;
}

/* Region k's squares (in its reading order) into e's gathering: its set of squares
 * (a new one, with its runs of consecutive squares, or one an earlier region covers)
 * and its reading table (a new one, or an equal one made before). */
static void add_view_region(eval_tables *e, int set_sq[][EVAL_REGION_SQUARES], int *n_reads,
                            int k, const int *sq)
{
    int sorted[EVAL_REGION_SQUARES];
    memcpy(sorted, sq, sizeof(sorted));
    for (int i = 1; i < EVAL_REGION_SQUARES; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            int t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    int s = 0;
    while (s < e->n_sets && memcmp(set_sq[s], sorted, sizeof(sorted)) != 0)
        s++;
    if (s == e->n_sets) {
        memcpy(set_sq[s], sorted, sizeof(sorted));
        int runs = 0;
        for (int i = 0; i < EVAL_REGION_SQUARES; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1] + 1) {
                e->run_shift[s][runs] = (uint8_t)sorted[i];
                e->run_dest[s][runs] = (uint8_t)i;
                e->run_mask[s][runs] = 0;
                runs++;
            }
            e->run_mask[s][runs - 1] = (uint8_t)(e->run_mask[s][runs - 1] << 1 | 1);
        }
        e->set_runs[s] = (uint8_t)runs;
        e->set_low[s] = e->set_high[s] = 0;
        for (int i = 0; i < EVAL_REGION_SQUARES; i++) {
            if (sorted[i] < 64) {
                e->set_low[s] |= (uint64_t)1 << sorted[i];
                e->set_low_count[s]++;
            } else {
                e->set_high[s] |= (uint64_t)1 << (sorted[i] - 64);
            }
        }
        e->n_sets++;
    }
    e->view_set[k] = (uint8_t)s;

    /* The i-th lowest square's place in the reading order gives it 3^place. */
    uint16_t power[EVAL_REGION_SQUARES];
    for (int i = 0; i < EVAL_REGION_SQUARES; i++) {
        int place = 0;
        while (sq[place] != sorted[i])
            place++;
        power[i] = 1;
        while (place--)
            power[i] *= 3;
    }
    uint16_t *read = e->read + 256 * *n_reads;
    for (int byte = 0; byte < 256; byte++) {
        read[byte] = 0;
        for (int i = 0; i < EVAL_REGION_SQUARES; i++)
            if (byte >> i & 1)
                read[byte] += power[i];
    }
    int t = 0;
    while (memcmp(e->read + 256 * t, read, 256 * sizeof(read[0])) != 0)
        t++;
    if (t == *n_reads)
        (*n_reads)++;
    e->view_read[k] = (uint16_t)(256 * t);
}

/* The evaluator's pattern tables, where it has them: pattern_squares (regions'
 * squares from White's side and from Black's) and pattern_tables (one per region). */
static int get_patterns(PyObject *evaluator, eval_tables *e)
{
    PyObject *squares = PyObject_GetAttrString(evaluator, "pattern_squares");
    PyObject *tables = squares ? PyObject_GetAttrString(evaluator, "pattern_tables") : NULL;
    int rc = -1;
    if (!tables)
        goto done;
    if (squares == Py_None || tables == Py_None) {
        rc = 0;
        goto done;
    }
    Py_ssize_t n = PySequence_Size(tables);
    if (n < 0)
        goto done;
    if (n == 0 || n > EVAL_MAX_REGIONS) {
        PyErr_Format(PyExc_ValueError, "%zd pattern regions (1 to %d)", n, EVAL_MAX_REGIONS);
        goto done;
    }
    /* view 0: the regions read from White's side (a White man is 1, a Black man 2);
     * view 1: from Black's (a Black man is 1, a White man 2). */
    e->read = malloc(sizeof(e->read[0]) * 256 * (size_t)(2 * n));
    if (!e->read) {
        PyErr_NoMemory();
        goto done;
    }
    int set_sq[EVAL_MAX_SETS][EVAL_REGION_SQUARES]; /* each set's squares, lowest first */
    int n_reads = 0;
    for (int view = 0; view < 2; view++) {
        PyObject *regions = PySequence_GetItem(squares, view);
        if (!regions)
            goto done;
        int ok = PySequence_Size(regions) == n;
        for (Py_ssize_t r = 0; ok && r < n; r++) {
            PyObject *region = PySequence_GetItem(regions, r);
            ok = region && PySequence_Size(region) == EVAL_REGION_SQUARES;
            int sq[EVAL_REGION_SQUARES]; /* in the region's reading order */
            for (int i = 0; ok && i < EVAL_REGION_SQUARES; i++) {
                PyObject *item = PySequence_GetItem(region, i);
                long x = item ? PyLong_AsLong(item) : -1;
                Py_XDECREF(item);
                sq[i] = (int)x;
                ok = x >= 0 && x < CMAX_SQ;
                for (int j = 0; ok && j < i; j++)
                    ok = sq[j] != sq[i];
            }
            Py_XDECREF(region);
            if (ok)
                add_view_region(e, set_sq, &n_reads, view * (int)n + (int)r, sq);
        }
        Py_DECREF(regions);
        if (!ok) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "pattern regions of eight different squares each");
            goto done;
        }
    }
    Py_ssize_t size = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *item = PySequence_GetItem(tables, r);
        PyObject *table = item ? PySequence_Fast(item, "a pattern table") : NULL;
        Py_XDECREF(item);
        if (!table)
            goto done;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(table);
        if (r == 0) {
            size = len;
            e->patterns = malloc(sizeof(e->patterns[0]) * (size_t)(n * size));
            if (!e->patterns) {
                Py_DECREF(table);
                PyErr_NoMemory();
                goto done;
            }
        }
        int ok = len == size && size == 6561;
        for (Py_ssize_t i = 0; ok && i < len; i++) {
            long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(table, i));
            ok = !(x == -1 && PyErr_Occurred()) && x >= -INT16_MAX && x <= INT16_MAX;
            e->patterns[r * size + i] = (int16_t)x;
        }
        Py_DECREF(table);
        if (!ok) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError,
                                "pattern tables of 3^8 entries each, from -32767 to 32767");
            goto done;
        }
    }
    e->region_size = (int32_t)size;
    e->n_regions = (int)n;
    rc = 0;
done:
    if (rc < 0)
        eval_tables_free(e);
    Py_XDECREF(squares);
    Py_XDECREF(tables);
    return rc;
}

/* A sequence of directions, the evaluator's attribute ``name`` (its item ``side``
 * unless side < 0), into out[] (at most max of them). */
static int get_dirs(PyObject *evaluator, const char *name, int side, int max, int *out, int *n)
{
    PyObject *attr = PyObject_GetAttrString(evaluator, name);
    PyObject *item = attr && side >= 0 ? PySequence_GetItem(attr, side) : NULL;
    PyObject *seq = attr ? PySequence_Fast(side >= 0 ? item : attr, "directions") : NULL;
    int rc = -1;
    if (seq) {
        Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
        if (count > max) {
            PyErr_Format(PyExc_ValueError, "more %s than the evaluation holds", name);
        } else {
            rc = 0;
            for (Py_ssize_t i = 0; i < count && rc == 0; i++) {
                long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
                if (x == -1 && PyErr_Occurred())
                    rc = -1;
                out[i] = (int)x;
            }
            *n = (int)count;
        }
    }
    Py_XDECREF(seq);
    Py_XDECREF(item);
    Py_XDECREF(attr);
    return rc;
}

int eval_tables_load(PyObject *evaluator, eval_tables *e)
{
    eval_tables_free(e);
    memset(e, 0, sizeof(*e));
    if (get_patterns(evaluator, e) < 0)
        return -1;
    if (get_pair(evaluator, "men_mid_by_square", e->men_mid) < 0 ||
        get_pair(evaluator, "men_end_by_square", e->men_end) < 0 ||
        get_pair(evaluator, "king_by_square", e->king_sq) < 0 ||
        get_bitboard(evaluator, "mask", &e->mask) < 0 ||
        get_bitboard(evaluator, "left_mask", &e->left) < 0 ||
        get_bitboard(evaluator, "right_mask", &e->right) < 0 ||
        get_int(evaluator, "king_value", &e->king_value) < 0 ||
        get_int(evaluator, "men_offset", &e->men_offset) < 0 ||
        get_int(evaluator, "start_total", &e->start_total) < 0)
        return -1;
    int64_t flying;
    if (get_int(evaluator, "flying", &flying) < 0)
        return -1;
    e->flying = (int)flying;
    e->low64 = (e->mask >> 64) == 0;
    /* KONDAVO_PEXT=0 gathers by shifts on any processor (the tests check both ways). */
    const char *pext = getenv("KONDAVO_PEXT");
    e->pext = !(pext && strcmp(pext, "0") == 0) && eval_fast_pext();
    if (e->start_total <= 0) {
        PyErr_SetString(PyExc_ValueError, "an evaluator with no men at the start");
        return -1;
    }

    PyObject *near = PyObject_GetAttrString(evaluator, "near_crowning");
    PyObject *tables = near ? PyObject_GetAttrString(evaluator, "tables") : NULL;
    PyObject *promo = tables ? PyObject_GetAttrString(tables, "promotion") : NULL;
    PyObject *dirs = promo ? PyObject_GetAttrString(evaluator, "step_dirs") : NULL;
    int rc = -1;
    if (!dirs)
        goto done;
    for (int side = 0; side < 2; side++) {
        PyObject *n = PySequence_GetItem(near, side);
        PyObject *p = n ? PySequence_GetItem(promo, side) : NULL;
        PyObject *d = p ? PySequence_Fast(PySequence_GetItem(dirs, side), "directions") : NULL;
        int ok = d && bb_from_py(n, &e->near[side]) == 0 &&
                 bb_from_py(p, &e->promo[side]) == 0;
        if (ok && PySequence_Fast_GET_SIZE(d) > CMAX_DIRS) {
            PyErr_SetString(PyExc_ValueError, "more step directions than the evaluation holds");
            ok = 0;
        }
        if (ok) {
            e->n_step_dirs[side] = (int)PySequence_Fast_GET_SIZE(d);
            for (int i = 0; i < e->n_step_dirs[side]; i++) {
                long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(d, i));
                if (x == -1 && PyErr_Occurred()) {
                    ok = 0;
                    break;
                }
                e->step_dirs[side][i] = (int)x;
            }
        }
        Py_XDECREF(n);
        Py_XDECREF(p);
        Py_XDECREF(d);
        if (!ok)
            goto done;
    }

    if (get_dirs(evaluator, "king_dirs", -1, CMAX_KDIRS, e->king_dirs, &e->n_king_dirs) < 0 ||
        get_dirs(evaluator, "man_capture_dirs", 0, CMAX_DIRS, e->capture_dirs[0],
                 &e->n_capture_dirs[0]) < 0 ||
        get_dirs(evaluator, "man_capture_dirs", 1, CMAX_DIRS, e->capture_dirs[1],
                 &e->n_capture_dirs[1]) < 0)
        goto done;

    PyObject *weights = PyObject_GetAttrString(evaluator, "weights");
    if (!weights)
        goto done;
    if (get_int(weights, "mobility", &e->mobility) == 0 &&
        get_int(weights, "balance", &e->balance) == 0 &&
        get_int(weights, "tempo", &e->tempo) == 0 &&
        get_int(weights, "trade_bonus", &e->trade) == 0 &&
        get_int(weights, "crown_now", &e->crown_now) == 0 &&
        get_int(weights, "crown_next", &e->crown_next) == 0 &&
        get_int(weights, "crown_two", &e->crown_two) == 0 &&
        get_int(weights, "crown_two_next", &e->crown_two_next) == 0 &&
        get_int(weights, "king_safe", &e->king_safe) == 0 &&
        get_int(weights, "king_denied", &e->king_denied) == 0 &&
        get_int(weights, "extra_king", &e->extra_king) == 0)
        rc = 0;
    Py_DECREF(weights);
done:
    Py_XDECREF(near);
    Py_XDECREF(tables);
    Py_XDECREF(promo);
    Py_XDECREF(dirs);
    return rc;
}

/* --- the Evaluation type ------------------------------------------------------ */

static int evaluation_init(EvaluationObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"evaluator", NULL};
    PyObject *evaluator;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Evaluation", kwlist, &evaluator))
        return -1;
    return eval_tables_load(evaluator, &self->tables);
}

static PyObject *evaluation_score(EvaluationObject *self, PyObject *const *args,
                                  Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "score(white, black, kings, turn) takes 4 arguments");
        return NULL;
    }
    bb white, black, kings;
    if (bb_from_py(args[0], &white) < 0 || bb_from_py(args[1], &black) < 0 ||
        bb_from_py(args[2], &kings) < 0)
        return NULL;
    long turn = PyLong_AsLong(args[3]);
    if (turn == -1 && PyErr_Occurred())
        return NULL;
    if (turn != 0 && turn != 1) {
        PyErr_SetString(PyExc_ValueError, "turn is 0 (White) or 1 (Black)");
        return NULL;
    }
    return PyLong_FromLongLong(eval_score(&self->tables, white, black, kings, (int)turn));
}

static void evaluation_dealloc(EvaluationObject *self)
{
    eval_tables_free(&self->tables);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *evaluation_gather(EvaluationObject *self, void *closure)
{
    (void)closure;
    if (!self->tables.n_regions)
        Py_RETURN_NONE;
    return PyUnicode_FromString(self->tables.pext ? "pext" : "shifts");
}

static PyGetSetDef evaluation_getset[] = {
    {"gather", (getter)evaluation_gather, NULL,
     "How the pattern regions' men are gathered: \"pext\", \"shifts\", or None (no "
     "pattern tables).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef evaluation_methods[] = {
    {"score", (PyCFunction)(void (*)(void))evaluation_score, METH_FASTCALL,
     "score(white, black, kings, turn): the side to move's score, as Evaluator.score."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject EvaluationType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine._accel.Evaluation",
    .tp_doc = PyDoc_STR("Evaluation(evaluator): a Python Evaluator's score, compiled."),
    .tp_basicsize = sizeof(EvaluationObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)evaluation_init,
    .tp_dealloc = (destructor)evaluation_dealloc,
    .tp_methods = evaluation_methods,
    .tp_getset = evaluation_getset,
};

int eval_add_to_module(PyObject *module)
{
    if (PyType_Ready(&EvaluationType) < 0)
        return -1;
    Py_INCREF(&EvaluationType);
    if (PyModule_AddObject(module, "Evaluation", (PyObject *)&EvaluationType) < 0) {
        Py_DECREF(&EvaluationType);
        return -1;
    }
    return 0;
}
