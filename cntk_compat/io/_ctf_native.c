/* The compiled tokenizer of CNTK Text Format blocks: one pass over the bytes, GIL released.
 *
 * parse_block(data, aliases, dims, sparse, itemsize) parses whole lines of CTF text for the configured
 * streams (alias bytes, sample dimension, whether sparse) and returns
 *     (num_lines, lines, has_id, ids, streams, unknown)
 * num_lines: how many lines the block has; lines: int64 numbers (0-based in the block) of the lines that hold at least one field; has_id: uint8 and
 * ids: uint64 per such line; streams: per stream (values, sample_lines) for dense ones, (values, indices,
 * indptr, sample_lines) for sparse ones (values in float32 or float64 by itemsize, indices and indptr int32,
 * scipy's own index type, so sparse dimensions must be below 2**31; sample_lines int64);
 * unknown: [(name, line)] for field names that are not configured streams, the first line of each.
 * All arrays come back as objects with the buffer protocol, for numpy.frombuffer.
 *
 * It returns None for anything it does not accept as plainly valid (malformed lines, numbers in a form
 * other than [sign]digits[.digits][e[sign]digits], sparse indices that are not plain integers below the
 * dimension, wrong value counts): the numpy parser then handles the block and reports errors precisely.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IS_BLANK(c) ((unsigned char)(c) <= 32)

typedef struct {
    char *data;
    size_t len, cap;   /* in bytes */
} Buffer;

static int buffer_reserve(Buffer *b, size_t extra)
{
    if (b->len + extra <= b->cap && extra <= SIZE_MAX - b->len)
        return 0;
    if (extra > SIZE_MAX / 2 - b->len)   /* the doubling below would overflow */
        return -1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra)
        cap *= 2;
    char *data = realloc(b->data, cap);
    if (!data)
        return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

#define PUSH(buf, type, value)                                                   \
    do {                                                                         \
        if (buffer_reserve(&(buf), sizeof(type)) < 0) return FAIL_MEMORY;        \
        memcpy((buf).data + (buf).len, &(type){value}, sizeof(type));            \
        (buf).len += sizeof(type);                                               \
    } while (0)

typedef struct {
    const char *alias;
    Py_ssize_t alias_len;
    int64_t dim;
    int sparse;
    Buffer values, indices, indptr, lines;
    int32_t nnz;
} Stream;

#define MAX_UNKNOWN 64
typedef struct {
    int itemsize;
    int strtod_ok;          /* the C locale's decimal point is '.', so strtod reads our numbers */
    Py_ssize_t n_streams;
    Stream *streams;
    Buffer lines, has_id, ids;
    int64_t num_lines;
    Py_ssize_t n_unknown;
    const char *unknown_name[MAX_UNKNOWN];
    Py_ssize_t unknown_len[MAX_UNKNOWN];
    int64_t unknown_line[MAX_UNKNOWN];
} Parse;

enum { OK = 0, FAIL_TEXT = 1, FAIL_MEMORY = 2 };

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A decimal number at *pp (before end), as CNTK 2.7 reads one: [sign]digits[.[digits[(e|E)[sign]digits]]] or
 * [sign]digits(e|E)[sign]digits; '.5' and '1.e3' are malformed (the numpy parser words the error). Exact: with up to 19 digits, a mantissa below 2**53 and a power of ten up to 22,
 * one double multiplication or division gives the correctly rounded result (both operands are exact);
 * anything else goes to strtod. */
static int parse_number(const char **pp, const char *end, int strtod_ok, double *out)
{
    const char *start = *pp, *p = start;
    int negative = 0;
    uint64_t mantissa = 0;
    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    const char *digits = p;
    for (; p < end && is_digit(*p); p++)
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    long count = p - digits, fraction = 0;
    if (count == 0)
        return FAIL_TEXT;
    if (p < end && *p == '.') {
        const char *first = ++p;
        for (; p < end && is_digit(*p); p++)
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        fraction = p - first;
        count += fraction;
        if (fraction == 0 && p < end && (*p == 'e' || *p == 'E'))
            return FAIL_TEXT;
    }
    long exponent = -fraction;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int exp_negative = 0;
        long value = 0;
        p++;
        if (p < end && (*p == '-' || *p == '+'))
            exp_negative = *p++ == '-';
        if (p >= end || !is_digit(*p))
            return FAIL_TEXT;
        for (; p < end && is_digit(*p); p++)
            if (value < 100000)
                value = value * 10 + (*p - '0');
        exponent += exp_negative ? -value : value;
    }
    *pp = p;
    double v;
    if (count <= 19 && mantissa == 0) {
        v = 0.0;
    } else if (count <= 19 && mantissa <= ((uint64_t)1 << 53) && exponent >= -22 && exponent <= 22) {
        v = exponent >= 0 ? (double)mantissa * POW10[exponent] : (double)mantissa / POW10[-exponent];
    } else {
        char text[128];
        size_t n = (size_t)(p - start);
        if (!strtod_ok || n >= sizeof(text))
            return FAIL_TEXT;
        memcpy(text, start, n);
        text[n] = 0;
        v = strtod(text, NULL);
        negative = 0;   /* strtod read the sign */
    }
    *out = negative ? -v : v;
    return OK;
}

/* A sparse index: at most 18 digits (longer ones are left to the numpy parser) */
static int parse_index(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    uint64_t value = 0;
    for (; p < end && is_digit(*p); p++)
        value = value * 10 + (uint64_t)(*p - '0');
    if (p == *pp || p - *pp > 18)
        return FAIL_TEXT;
    *pp = p;
    *out = value;
    return OK;
}

/* digits only, below 2**64 */
static int parse_uint64(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    uint64_t value = 0;
    if (p >= end || !is_digit(*p))
        return FAIL_TEXT;
    for (; p < end && is_digit(*p); p++) {
        uint64_t digit = (uint64_t)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return FAIL_TEXT;
        value = value * 10 + digit;
    }
    *pp = p;
    *out = value;
    return OK;
}

static int ends_token(const char *p, const char *end) { return p >= end || IS_BLANK(*p) || *p == '|'; }

/* values of one field, from p to the end of its region (the next '|' or the end of the line) */
static int parse_field(Parse *ps, Stream *s, const char *p, const char *end, int64_t line)
{
    /* room for every value: dim of them, or at most one 'index:value' pair per 4 bytes of text */
    size_t most = s->sparse ? (size_t)(end - p) / 4 + 1 : (size_t)s->dim;
    if (buffer_reserve(&s->values, most * (size_t)ps->itemsize) < 0
        || (s->sparse && buffer_reserve(&s->indices, most * sizeof(int32_t)) < 0))
        return FAIL_MEMORY;
    /* locals, not the buffers' fields: writes through char pointers would make the compiler reload those */
    char *values = s->values.data + s->values.len;
    char *indices = s->sparse ? s->indices.data + s->indices.len : NULL;
    const int single = ps->itemsize == 4, strtod_ok = ps->strtod_ok;
    const uint64_t dim = (uint64_t)s->dim;
    uint64_t count = 0;
    while (1) {
        while (p < end && IS_BLANK(*p))
            p++;
        if (p >= end)
            break;
        if (indices) {
            uint64_t index;
            if (parse_index(&p, end, &index) != OK || p >= end || *p != ':' || index >= dim)
                return FAIL_TEXT;
            p++;
            int32_t narrow_index = (int32_t)index;
            memcpy(indices + count * sizeof(int32_t), &narrow_index, sizeof(int32_t));
        } else if (count == dim) {
            return FAIL_TEXT;
        }
        double v;
        if (parse_number(&p, end, strtod_ok, &v) != OK || !ends_token(p, end))
            return FAIL_TEXT;
        if (single) {
            float f = (float)v;
            memcpy(values + count * sizeof(float), &f, sizeof(float));
        } else {
            memcpy(values + count * sizeof(double), &v, sizeof(double));
        }
        count++;
    }
    s->values.len += count * (size_t)ps->itemsize;
    if (indices) {
        if (count > (uint64_t)(INT32_MAX - s->nnz))
            return FAIL_TEXT;                       /* more values than int32 offsets reach: the numpy parser */
        s->indices.len += count * sizeof(int32_t);
        s->nnz += (int32_t)count;
        PUSH(s->indptr, int32_t, s->nnz);
    } else if (count != dim) {
        return FAIL_TEXT;
    }
    PUSH(s->lines, int64_t, line);
    return OK;
}

static void note_unknown(Parse *ps, const char *name, Py_ssize_t len, int64_t line)
{
    for (Py_ssize_t k = 0; k < ps->n_unknown; k++)
        if (ps->unknown_len[k] == len && memcmp(ps->unknown_name[k], name, (size_t)len) == 0)
            return;
    if (ps->n_unknown < MAX_UNKNOWN) {
        ps->unknown_name[ps->n_unknown] = name;
        ps->unknown_len[ps->n_unknown] = len;
        ps->unknown_line[ps->n_unknown++] = line;
    }
}

static int parse_line(Parse *ps, const char *p, const char *end, int64_t line)
{
    int has_id = 0, used = 0, status;
    uint64_t id = 0;
    while (p < end && IS_BLANK(*p))
        p++;
    if (p == end)
        return OK;                                  /* blank line */
    if (*p != '|') {                                /* the sequence id: one unsigned integer */
        if (parse_uint64(&p, end, &id) != OK)
            return FAIL_TEXT;
        while (p < end && IS_BLANK(*p))
            p++;
        if (p == end || *p != '|')
            return FAIL_TEXT;
        has_id = 1;
    }
    while (p < end) {                               /* at a '|' */
        const char *region_end = memchr(p + 1, '|', (size_t)(end - p - 1));
        if (!region_end)
            region_end = end;
        p++;
        if (p < region_end && *p == '#') {          /* a comment, up to the next '|' */
            p = region_end;
            continue;
        }
        const char *name = p;
        while (p < region_end && !IS_BLANK(*p))
            p++;
        Py_ssize_t name_len = p - name;
        used = 1;
        Stream *stream = NULL;
        for (Py_ssize_t k = 0; k < ps->n_streams; k++)
            if (ps->streams[k].alias_len == name_len && memcmp(ps->streams[k].alias, name, (size_t)name_len) == 0) {
                stream = &ps->streams[k];
                break;
            }
        if (stream) {
            if ((status = parse_field(ps, stream, p, region_end, line)) != OK)
                return status;
        } else {
            note_unknown(ps, name, name_len, line);
        }
        p = region_end;
    }
    if (used) {
        PUSH(ps->lines, int64_t, line);
        PUSH(ps->has_id, uint8_t, (uint8_t)has_id);
        PUSH(ps->ids, uint64_t, id);
    }
    return OK;
}

static int parse_text(Parse *ps, const char *p, const char *end)
{
    int64_t line = 0;
    int status;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        if (!line_end)
            line_end = end;
        if ((status = parse_line(ps, p, line_end, line)) != OK)
            return status;
        p = line_end + 1;
        line++;
    }
    ps->num_lines = line;
    return OK;
}

/* The arrays go back without a copy: an Array object takes over a Buffer's memory and lends it through the
 * buffer protocol (numpy.frombuffer keeps the object alive while any view of it exists). */
typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t len;
} Array;

static char empty_array[8];

static int array_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    Array *a = (Array *)self;
    return PyBuffer_FillInfo(view, self, a->data ? a->data : empty_array, a->len, 0, flags);
}

static void array_dealloc(PyObject *self)
{
    free(((Array *)self)->data);
    Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs array_as_buffer = {.bf_getbuffer = array_getbuffer};

static PyTypeObject ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cntk_compat.io._ctf_native.Array",
    .tp_basicsize = sizeof(Array),
    .tp_dealloc = array_dealloc,
    .tp_as_buffer = &array_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes parsed by parse_block, for numpy.frombuffer.",
};

/* an Array owning b's memory (b is left empty) */
static PyObject *take_array(Buffer *b)
{
    Array *a = PyObject_New(Array, &ArrayType);
    if (!a)
        return NULL;
    a->data = b->data;
    a->len = (Py_ssize_t)b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return (PyObject *)a;
}

static PyObject *stream_result(Stream *s)
{
    if (s->sparse)
        return Py_BuildValue("(NNNN)", take_array(&s->values), take_array(&s->indices), take_array(&s->indptr),
                             take_array(&s->lines));
    return Py_BuildValue("(NN)", take_array(&s->values), take_array(&s->lines));
}

static PyObject *build_result(Parse *ps)
{
    PyObject *streams = PyList_New(ps->n_streams), *unknown = PyList_New(ps->n_unknown);
    if (!streams || !unknown)
        goto error;
    for (Py_ssize_t k = 0; k < ps->n_streams; k++) {
        PyObject *item = stream_result(&ps->streams[k]);
        if (!item)
            goto error;
        PyList_SET_ITEM(streams, k, item);
    }
    for (Py_ssize_t k = 0; k < ps->n_unknown; k++) {
        PyObject *item = Py_BuildValue("(y#L)", ps->unknown_name[k], ps->unknown_len[k],
                                       (long long)ps->unknown_line[k]);
        if (!item)
            goto error;
        PyList_SET_ITEM(unknown, k, item);
    }
    return Py_BuildValue("(LNNNNN)", (long long)ps->num_lines, take_array(&ps->lines), take_array(&ps->has_id), take_array(&ps->ids),
                         streams, unknown);
error:
    Py_XDECREF(streams);
    Py_XDECREF(unknown);
    return NULL;
}

static void free_parse(Parse *ps)
{
    for (Py_ssize_t k = 0; ps->streams && k < ps->n_streams; k++) {
        free(ps->streams[k].values.data);
        free(ps->streams[k].indices.data);
        free(ps->streams[k].indptr.data);
        free(ps->streams[k].lines.data);
    }
    free(ps->streams);
    free(ps->lines.data);
    free(ps->has_id.data);
    free(ps->ids.data);
}

static int read_streams(Parse *ps, PyObject *aliases, PyObject *dims, PyObject *sparse)
{
    if (!PyTuple_Check(aliases) || !PyTuple_Check(dims) || !PyTuple_Check(sparse)
        || PyTuple_GET_SIZE(dims) != PyTuple_GET_SIZE(aliases) || PyTuple_GET_SIZE(sparse) != PyTuple_GET_SIZE(aliases)) {
        PyErr_SetString(PyExc_TypeError, "aliases, dims and sparse must be tuples of the same length");
        return -1;
    }
    ps->n_streams = PyTuple_GET_SIZE(aliases);
    ps->streams = calloc((size_t)(ps->n_streams ? ps->n_streams : 1), sizeof(Stream));
    if (!ps->streams) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < ps->n_streams; k++) {
        Stream *s = &ps->streams[k];
        char *alias;
        if (PyBytes_AsStringAndSize(PyTuple_GET_ITEM(aliases, k), &alias, &s->alias_len) < 0)
            return -1;
        s->alias = alias;
        s->dim = PyLong_AsLongLong(PyTuple_GET_ITEM(dims, k));
        s->sparse = PyObject_IsTrue(PyTuple_GET_ITEM(sparse, k));
        if ((s->dim < 0 && PyErr_Occurred()) || s->sparse < 0)
            return -1;
        if (s->dim < 1 || s->dim > INT32_MAX) {   /* checked before anything is allocated for it */
            PyErr_Format(PyExc_ValueError, "stream '%s' has dimension %lld; it must be in [1, %d]", alias,
                         (long long)s->dim, INT32_MAX);
            return -1;
        }
        if (s->sparse && buffer_reserve(&s->indptr, sizeof(int32_t)) == 0) {
            memset(s->indptr.data, 0, sizeof(int32_t));
            s->indptr.len = sizeof(int32_t);
        }
    }
    return 0;
}

static PyObject *parse_block(PyObject *self, PyObject *args)
{
    Py_buffer data;
    PyObject *aliases, *dims, *sparse, *result = NULL;
    int itemsize;
    if (!PyArg_ParseTuple(args, "y*OOOi", &data, &aliases, &dims, &sparse, &itemsize))
        return NULL;
    Parse ps;
    memset(&ps, 0, sizeof(ps));
    ps.itemsize = itemsize;
    ps.strtod_ok = localeconv()->decimal_point[0] == '.' && localeconv()->decimal_point[1] == 0;
    if (itemsize != 4 && itemsize != 8) {
        PyErr_Format(PyExc_ValueError, "itemsize must be 4 or 8, got %d", itemsize);
        goto done;
    }
    if (read_streams(&ps, aliases, dims, sparse) < 0)
        goto done;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = parse_text(&ps, (const char *)data.buf, (const char *)data.buf + data.len);
    Py_END_ALLOW_THREADS
    if (status == FAIL_MEMORY)
        PyErr_NoMemory();
    else if (status == FAIL_TEXT)
        result = Py_NewRef(Py_None);
    else
        result = build_result(&ps);
done:
    free_parse(&ps);
    PyBuffer_Release(&data);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_block", parse_block, METH_VARARGS,
     "parse_block(data, aliases, dims, sparse, itemsize): CTF lines parsed for the configured streams, or None "
     "where the text is not plainly valid (see the module source)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_ctf_native", .m_doc = "The compiled CTF tokenizer.", .m_size = -1,
    .m_methods = methods};

PyMODINIT_FUNC PyInit__ctf_native(void)
{
    if (PyType_Ready(&ArrayType) < 0)
        return NULL;
    return PyModule_Create(&module);
}
