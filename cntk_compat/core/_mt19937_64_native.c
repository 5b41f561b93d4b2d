/* The 64-bit Mersenne Twister (C++'s std::mt19937_64) advanced block by block, GIL released.
 *
 * twist_blocks(state, out) advances the 312-word state (a writable buffer of 312 uint64) by as many whole
 * blocks as out (a writable buffer of a multiple of 312 uint64) holds, writing each block's tempered
 * outputs to out. cntk_rng.MT19937_64 does the same in numpy when this module is not built.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define NN 312
#define MM 156
#define MATRIX_A 0xB5026F5AA96619E9ULL
#define UPPER 0xFFFFFFFF80000000ULL
#define LOWER 0x7FFFFFFFULL

static void twist(uint64_t *mt)
{
    for (int i = 0; i < NN; i++) {
        uint64_t y = (mt[i] & UPPER) | (mt[(i + 1) % NN] & LOWER);
        mt[i] = mt[(i + MM) % NN] ^ (y >> 1) ^ ((y & 1ULL) ? MATRIX_A : 0ULL);
    }
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

static PyMethodDef methods[] = {
    {"twist_blocks", twist_blocks, METH_VARARGS, "Advance an mt19937_64 state by whole blocks, writing the outputs."},
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
