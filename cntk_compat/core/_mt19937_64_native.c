/* The 64-bit Mersenne Twister (C++'s std::mt19937_64) advanced block by block, GIL released.
 *
 * twist_blocks(state, out) advances the 312-word state (a writable buffer of 312 uint64) by as many whole
 * blocks as out (a writable buffer of a multiple of 312 uint64) holds, writing each block's tempered
 * outputs to out. cntk_rng.MT19937_64 does the same in numpy when this module is not built.
 *
 * uniform_fill and normal_fill fill a float32 or float64 buffer with the samples cntk_rng.uniform and
 * cntk_rng.normal draw from a fresh engine (the state, seeded), in one pass: the same double-precision
 * arithmetic in the same order (no contraction into fused multiply-adds: -ffp-contract=off and the pragma
 * below), the same libm log/exp as Python's math module, rounded once to the element type. The engine's
 * outputs after the last one used are dropped, as cntk_rng drops the rest of a fresh stream.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
#ifdef __clang__
#pragma clang fp contract(off)
#endif

#define NN 312
#define MM 156
#define MATRIX_A 0xB5026F5AA96619E9ULL
#define UPPER 0xFFFFFFFF80000000ULL
#define LOWER 0x7FFFFFFFULL

#define MIX(i, j, k) do { \
        uint64_t y = (mt[i] & UPPER) | (mt[j] & LOWER); \
        mt[i] = mt[k] ^ (y >> 1) ^ ((0ULL - (y & 1ULL)) & MATRIX_A); \
    } while (0)

/* element i, in order, from the old i and i+1 and element i+MM (mod NN), new once i+MM wraps around */
static void twist(uint64_t *mt)
{
    int i;
    for (i = 0; i < NN - MM; i++)
        MIX(i, i + 1, i + MM);
    for (; i < NN - 1; i++)
        MIX(i, i + 1, i + MM - NN);
    MIX(NN - 1, 0, MM - 1);
}

static uint64_t temper(uint64_t y)
{
    y ^= (y >> 29) & 0x5555555555555555ULL;
    y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
    y ^= (y << 37) & 0xFFF7EEE000000000ULL;
    y ^= y >> 43;
    return y;
}

static PyObject *twist_blocks(PyObject *self, PyObject *args)
{
    Py_buffer state, out;
    (void)self;
    if (!PyArg_ParseTuple(args, "w*w*", &state, &out))
        return NULL;
    if (state.len != NN * (Py_ssize_t)sizeof(uint64_t) || out.len % (NN * (Py_ssize_t)sizeof(uint64_t)) != 0) {
        PyBuffer_Release(&state);
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "twist_blocks: the state must hold 312 uint64 and out a multiple of 312");
        return NULL;
    }
    uint64_t *mt = (uint64_t *)state.buf, *o = (uint64_t *)out.buf;
    Py_ssize_t blocks = out.len / (NN * (Py_ssize_t)sizeof(uint64_t));
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t b = 0; b < blocks; b++) {
        twist(mt);
        for (int i = 0; i < NN; i++)
            o[b * NN + i] = temper(mt[i]);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* The engine read one output at a time: a block of tempered outputs, refilled by a twist when used up. */
typedef struct {
    uint64_t *mt;
    uint64_t block[NN];
    int next;
} stream_t;

static inline uint64_t draw(stream_t *s)
{
    if (s->next == NN) {
        twist(s->mt);
        for (int i = 0; i < NN; i++)
            s->block[i] = temper(s->mt[i]);
        s->next = 0;
    }
    return s->block[s->next++];
}

/* (double)u without a branch on u's top bit (which a plain unsigned conversion takes, mispredicted half of the
 * time for random draws): both halves convert exactly and their sum is rounded once, to the nearest, ties to
 * even -- the double that (double)u and numpy's astype(float64) give */
static inline double to_double(uint64_t u)
{
    return (double)(int64_t)(u >> 32) * 4294967296.0 + (double)(int64_t)(u & 0xFFFFFFFFULL);
}

/* Boost's uniform_01<double>: the draw divided by 2**64, redrawn while it is 1 (cntk_rng._u01) */
static inline double uniform01(stream_t *s)
{
    for (;;) {
        double v = to_double(draw(s)) * 0x1p-64;
        if (v < 1.0)
            return v;
    }
}

/* One draw of Boost's normal_distribution<double>(0, 1), ziggurat of 128 layers (cntk_rng.unit_normals) */
static double unit_normal(stream_t *s, const double *tx, const double *ty)
{
    for (;;) {
        uint64_t u = draw(s);
        int bucket = (int)(u & 0xFF);
        double sign = (bucket & 1) ? 1.0 : -1.0;
        int i = bucket >> 1;
        double x = (double)((u & ~(1ULL << 11)) >> 8) * 0x1p-56 * tx[i];
        if (x < tx[i + 1])
            return x * sign;
        if (i == 0) {  /* the tail beyond x[1] */
            double start = tx[1];
            for (;;) {
                double a = uniform01(s);
                double b = uniform01(s);
                double t = -log(1.0 - a) / start, e = -log(1.0 - b);
                if (2 * e > t * t)
                    return (t + start) * sign;
            }
        }
        double y01 = uniform01(s);
        double y = ty[i] + y01 * (ty[i + 1] - ty[i]);
        if (y < exp(-(x * x / 2)))
            return x * sign;
    }
}

/* parses (state, out, ...) shared by the fills: out must hold float32 (itemsize 4) or float64 (8) */
static int fill_buffers(Py_buffer *state, Py_buffer *out, int *is_double, Py_ssize_t *count)
{
    if (state->len != NN * (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "the state must hold 312 uint64");
        return -1;
    }
    if (out->itemsize != 4 && out->itemsize != 8) {
        PyErr_SetString(PyExc_ValueError, "out must be a float32 or float64 buffer");
        return -1;
    }
    *is_double = out->itemsize == 8;
    *count = out->len / out->itemsize;
    return 0;
}

static PyObject *uniform_fill(PyObject *self, PyObject *args)
{
    Py_buffer state, out;
    double low, high;
    int is_double;
    Py_ssize_t count;
    (void)self;
    if (!PyArg_ParseTuple(args, "w*w*dd", &state, &out, &low, &high))
        return NULL;
    if (fill_buffers(&state, &out, &is_double, &count) < 0) {
        PyBuffer_Release(&state);
        PyBuffer_Release(&out);
        return NULL;
    }
    uint64_t *mt = (uint64_t *)state.buf;
    Py_BEGIN_ALLOW_THREADS
    double span = high - low;
    /* block by block from a fresh engine (a twist, then its 312 outputs tempered in turn), one element type per
     * loop: the same draws in the same order as draw() reads them, without its per-draw bookkeeping */
#define UNIFORM_LOOP(T) do { \
        T *o = (T *)out.buf; \
        Py_ssize_t n = 0; \
        while (n < count) { \
            twist(mt); \
            for (int i = 0; i < NN && n < count; i++) { \
                double r = to_double(temper(mt[i])) / 18446744073709551616.0 * span + low; \
                if (r < high) \
                    o[n++] = (T)r; \
            } \
        } \
    } while (0)
    if (is_double)
        UNIFORM_LOOP(double);
    else
        UNIFORM_LOOP(float);
#undef UNIFORM_LOOP
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *normal_fill(PyObject *self, PyObject *args)
{
    Py_buffer state, out, xs, ys;
    double std;
    int truncate, is_double;
    Py_ssize_t count;
    (void)self;
    if (!PyArg_ParseTuple(args, "w*w*dpy*y*", &state, &out, &std, &truncate, &xs, &ys))
        return NULL;
    int bad = fill_buffers(&state, &out, &is_double, &count) < 0;
    if (!bad && (xs.len != 129 * (Py_ssize_t)sizeof(double) || ys.len != 129 * (Py_ssize_t)sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "the ziggurat tables must hold 129 doubles each");
        bad = 1;
    }
    if (bad) {
        PyBuffer_Release(&state);
        PyBuffer_Release(&out);
        PyBuffer_Release(&xs);
        PyBuffer_Release(&ys);
        return NULL;
    }
    stream_t s;
    s.mt = (uint64_t *)state.buf;
    s.next = NN;
    const double *tx = (const double *)xs.buf, *ty = (const double *)ys.buf;
    Py_BEGIN_ALLOW_THREADS
    double lo = -2 * std, hi = 2 * std;
    float *of = (float *)out.buf;
    double *od = (double *)out.buf;
    for (Py_ssize_t n = 0; n < count;) {
        double v = unit_normal(&s, tx, ty) * std;
        if (truncate && !(v >= lo && v <= hi))
            continue;
        if (is_double)
            od[n++] = v;
        else
            of[n++] = (float)v;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    PyBuffer_Release(&xs);
    PyBuffer_Release(&ys);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"twist_blocks", twist_blocks, METH_VARARGS, "Advance an mt19937_64 state by whole blocks, writing the outputs."},
    {"uniform_fill", uniform_fill, METH_VARARGS,
     "uniform_fill(state, out, low, high): CNTK's uniform samples in [low, high) from the seeded state."},
    {"normal_fill", normal_fill, METH_VARARGS,
     "normal_fill(state, out, std, truncate, table_x, table_y): CNTK's N(0, std) samples (truncated: redrawn "
     "outside two deviations) from the seeded state."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_mt19937_64_native", .m_doc = "The compiled mt19937_64 engine.",
    .m_size = -1, .m_methods = methods,
};

PyMODINIT_FUNC PyInit__mt19937_64_native(void)
{
    return PyModule_Create(&module);
}
