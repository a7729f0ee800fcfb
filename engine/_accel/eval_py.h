/* The compiled evaluation's Python side (eval_py.c). */
#ifndef KONDAVO_EVAL_PY_H
#define KONDAVO_EVAL_PY_H

#include <Python.h>

#include "eval.h"

typedef struct {
    PyObject_HEAD
    eval_tables tables;
} EvaluationObject;

extern PyTypeObject EvaluationType;

/* Fill ``e`` from a Python engine.evaluation.Evaluator; -1 with an exception. */
int eval_tables_load(PyObject *evaluator, eval_tables *e);

/* Add the Evaluation type to the module (called from its init). */
int eval_add_to_module(PyObject *module);

#endif
