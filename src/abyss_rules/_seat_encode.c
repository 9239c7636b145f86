/*
 * abyss_rules._seat_encode: one seat's observation vector written in C, the compiled tier of
 * abyss_rules.envs._seat_observation.
 *
 *   encode_into(out, seat, fields, consts, up, gone) -> None
 *
 * writes into `out` (a writable float32 buffer of the layout's size) exactly the vector that
 * `SeatObservation.encode(state, seat)` -- and so `Observation.encode(view(state, seat))` --
 * gives, from the state's public fields only:
 *
 *   fields  the tuple (phase, turn, cards, face_up_mask, swallowed_mask, draw_pile, discard_pile,
 *           drawn, closer, opening, turns, totals) of the state, read by name in Python (the two
 *           masks are not read here: `up` and `gone` are them as little-endian bytes);
 *   consts  the tuple (phases, table, scale, clip): the four `Phase` members in the one-hot
 *           order, an int32 table (players, cells, kinds, initial flips, stalling cap or -1, deck
 *           size, lowest card value, number of values, the rank of each value from the lowest
 *           or -1, then each kind's count in the deck), the totals' scale and their clip.
 *
 * Every division is the one Python does (a double, correctly rounded) and every entry is then
 * rounded to float32 as NumPy and `struct` round a Python float. A face-down card's value is
 * never read: a space's bits are tested first. tests/test_envs_seat_observation.py and
 * tests/property/test_envs_observation_secrets.py compare this tier with the view's encoding,
 * byte for byte, on the wheel (tests/test_compiled.py); bad arguments raise TypeError or
 * ValueError, never write out of bounds.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { T_PLAYERS, T_CELLS, T_KINDS, T_NEED, T_CAP, T_DECK_SIZE, T_LOW, T_VALUES, T_HEAD };

/* The value of small int `item` (a card, a seat, a count), or -1 with an error set. */
static long small(PyObject *item)
{
    if (!PyLong_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "encode_into: an int was expected");
        return -1;
    }
    return PyLong_AsLong(item);
}

/* The rank of card `value` (0 .. kinds - 1), or -1 with an error set. */
static int rank_of(const int32_t *table, long value)
{
    long at = value - table[T_LOW];
    if (at < 0 || at >= table[T_VALUES] || table[T_HEAD + at] < 0) {
        PyErr_SetString(PyExc_ValueError, "encode_into: a card value the deck does not have");
        return -1;
    }
    return table[T_HEAD + at];
}

static int bit(const unsigned char *bytes, Py_ssize_t size, long i)
{
    return i / 8 < size ? (bytes[i / 8] >> (i % 8)) & 1 : 0;
}

static PyObject *encode_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "encode_into takes 6 arguments");
        return NULL;
    }
    PyObject *fields = args[2], *consts = args[3], *up = args[4], *gone = args[5];
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != 12 || !PyTuple_Check(consts)
            || PyTuple_GET_SIZE(consts) != 4 || !PyBytes_Check(up) || !PyBytes_Check(gone)) {
        PyErr_SetString(PyExc_TypeError, "encode_into: bad fields, consts or masks");
        return NULL;
    }
    PyObject *phases = PyTuple_GET_ITEM(consts, 0), *table_bytes = PyTuple_GET_ITEM(consts, 1);
    double scale = PyFloat_AsDouble(PyTuple_GET_ITEM(consts, 2));
    double clip = PyFloat_AsDouble(PyTuple_GET_ITEM(consts, 3));
    if (PyErr_Occurred())
        return NULL;
    if (!PyTuple_Check(phases) || PyTuple_GET_SIZE(phases) != 4 || !PyBytes_Check(table_bytes)
            || PyBytes_GET_SIZE(table_bytes) < (Py_ssize_t)(T_HEAD * sizeof(int32_t))) {
        PyErr_SetString(PyExc_TypeError, "encode_into: bad consts");
        return NULL;
    }
    const int32_t *table = (const int32_t *)PyBytes_AS_STRING(table_bytes);
    long p = table[T_PLAYERS], cells = table[T_CELLS], kinds = table[T_KINDS];
    long need = table[T_NEED], cap = table[T_CAP], deck_size = table[T_DECK_SIZE];
    if (p < 1 || cells < 1 || kinds < 1 || table[T_VALUES] < 1 || deck_size < 1
            || PyBytes_GET_SIZE(table_bytes)
                   != (Py_ssize_t)((T_HEAD + table[T_VALUES] + kinds) * sizeof(int32_t))) {
        PyErr_SetString(PyExc_ValueError, "encode_into: bad table");
        return NULL;
    }
    const int32_t *deck = table + T_HEAD + table[T_VALUES];
    long seat = small(args[1]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (seat < 0 || seat >= p) {
        PyErr_SetString(PyExc_ValueError, "encode_into: no such seat");
        return NULL;
    }
    PyObject *phase = PyTuple_GET_ITEM(fields, 0), *turn_item = PyTuple_GET_ITEM(fields, 1);
    PyObject *cards = PyTuple_GET_ITEM(fields, 2), *draw = PyTuple_GET_ITEM(fields, 5);
    PyObject *pile = PyTuple_GET_ITEM(fields, 6), *drawn_item = PyTuple_GET_ITEM(fields, 7);
    PyObject *closer_item = PyTuple_GET_ITEM(fields, 8), *opening = PyTuple_GET_ITEM(fields, 9);
    PyObject *turns_item = PyTuple_GET_ITEM(fields, 10), *totals = PyTuple_GET_ITEM(fields, 11);
    if (!PyTuple_Check(cards) || PyTuple_GET_SIZE(cards) != p * cells || !PyTuple_Check(draw)
            || !PyTuple_Check(pile) || !PyTuple_Check(opening) || PyTuple_GET_SIZE(opening) != p
            || !PyTuple_Check(totals) || PyTuple_GET_SIZE(totals) != p) {
        PyErr_SetString(PyExc_TypeError, "encode_into: bad state fields");
        return NULL;
    }
    long code = -1;
    for (long k = 0; k < 4; k++)
        if (PyTuple_GET_ITEM(phases, k) == phase)
            code = k;
    if (code < 0) {
        PyErr_SetString(PyExc_ValueError, "encode_into: not a phase");
        return NULL;
    }
    long turn = -1, closer = -1, drawn = 0, turns;
    int has_drawn = drawn_item != Py_None;
    if (turn_item != Py_None && (turn = small(turn_item)) == -1 && PyErr_Occurred())
        return NULL;
    if (closer_item != Py_None && (closer = small(closer_item)) == -1 && PyErr_Occurred())
        return NULL;
    if (has_drawn && (drawn = small(drawn_item)) == -1 && PyErr_Occurred())
        return NULL;
    if ((turns = small(turns_item)) == -1 && PyErr_Occurred())
        return NULL;
    if ((turn_item != Py_None && (turn < 0 || turn >= p)) || (closer_item != Py_None && (closer < 0 || closer >= p))) {
        PyErr_SetString(PyExc_ValueError, "encode_into: no such seat");
        return NULL;
    }
    for (long s = 0; s < p; s++)
        if (!PyTuple_Check(PyTuple_GET_ITEM(opening, s))) {
            PyErr_SetString(PyExc_TypeError, "encode_into: bad opening flips");
            return NULL;
        }

    Py_ssize_t size = 4 + 1 + p + p + p + 3 * kinds + 2 + p + p * cells * (kinds + 2);
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (view.len != size * (Py_ssize_t)sizeof(float)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "encode_into: the vector has the wrong size");
        return NULL;
    }
    /* Everything is checked but the card values: a bad one raises below, and the vector is the
       caller's new one, never handed out then. */
    float *v = (float *)view.buf;
    memset(v, 0, view.len);
    /* phase, to_act, turn */
    v[code] = 1.0f;
    int acts = code == 0 ? PyTuple_GET_SIZE(PyTuple_GET_ITEM(opening, seat)) < need : turn == seat;
    v[4] = acts ? 1.0f : 0.0f;
    float *at = v + 5;
    if (turn >= 0)
        at[((turn - seat) % p + p) % p] = 1.0f;
    at += p;
    /* opening_flips, closer (the viewer first) */
    for (long k = 0; k < p; k++) {
        Py_ssize_t flips = PyTuple_GET_SIZE(PyTuple_GET_ITEM(opening, (seat + k) % p));
        at[k] = need ? (float)((double)flips / (double)need) : 0.0f;
    }
    at += p;
    if (closer >= 0)
        at[((closer - seat) % p + p) % p] = 1.0f;
    at += p;
    /* drawn, top_discard, discard_counts */
    int r;
    if (has_drawn) {
        if ((r = rank_of(table, drawn)) < 0)
            goto fail;
        at[r] = 1.0f;
    }
    at += kinds;
    Py_ssize_t piled = PyTuple_GET_SIZE(pile);
    if (piled) {
        long top = small(PyTuple_GET_ITEM(pile, 0));
        if ((top == -1 && PyErr_Occurred()) || (r = rank_of(table, top)) < 0)
            goto fail;
        at[r] = 1.0f;
    }
    at += kinds;
    for (Py_ssize_t i = 0; i < piled; i++) {  /* counts first, shares after */
        long card = small(PyTuple_GET_ITEM(pile, i));
        if ((card == -1 && PyErr_Occurred()) || (r = rank_of(table, card)) < 0)
            goto fail;
        at[r] += 1.0f;  /* exact: a pile holds far fewer than 2^24 cards */
    }
    for (long k = 0; k < kinds; k++)
        at[k] = (float)((double)at[k] / (double)deck[k]);
    at += kinds;
    /* draw_pile, turns */
    at[0] = (float)((double)PyTuple_GET_SIZE(draw) / (double)deck_size);
    at[1] = cap >= 0 ? (float)((double)(turns < cap ? turns : cap) / (double)cap) : 0.0f;
    at += 2;
    /* totals (the viewer first) */
    for (long k = 0; k < p; k++) {
        long total = small(PyTuple_GET_ITEM(totals, (seat + k) % p));
        if (total == -1 && PyErr_Occurred())
            goto fail;
        double x = (double)total / scale;
        at[k] = (float)(x < -clip ? -clip : x > clip ? clip : x);
    }
    at += p;
    /* grids, the viewer's first: per space, face down (entry 0), swallowed (1) or a face-up value */
    const unsigned char *up_bits = (const unsigned char *)PyBytes_AS_STRING(up);
    const unsigned char *gone_bits = (const unsigned char *)PyBytes_AS_STRING(gone);
    Py_ssize_t up_size = PyBytes_GET_SIZE(up), gone_size = PyBytes_GET_SIZE(gone);
    for (long k = 0; k < p; k++) {
        long base = ((seat + k) % p) * cells;
        for (long c = 0; c < cells; c++, at += kinds + 2) {
            long i = base + c;
            if (bit(gone_bits, gone_size, i)) {
                at[1] = 1.0f;
            } else if (bit(up_bits, up_size, i)) {
                long card = small(PyTuple_GET_ITEM(cards, i));
                if ((card == -1 && PyErr_Occurred()) || (r = rank_of(table, card)) < 0)
                    goto fail;
                at[2 + r] = 1.0f;
            } else {
                at[0] = 1.0f;
            }
        }
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
fail:
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef methods[] = {
    {"encode_into", (PyCFunction)(void (*)(void))encode_into, METH_FASTCALL,
     "encode_into(out, seat, fields, consts, up, gone) -> None: one seat's observation vector "
     "written into out (see abyss_rules.envs._seat_observation)."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {
#ifdef Py_GIL_DISABLED  /* free-threaded CPython: the module keeps no Python state of its own */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "abyss_rules._seat_encode",
    "One seat's observation vector written in C (the compiled tier of envs._seat_observation).", 0,
    methods, slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__seat_encode(void)
{
    return PyModuleDef_Init(&module_def);
}
