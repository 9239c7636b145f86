/*
 * abyss_rules._sha256_blocks: the blocks of many SHA-256 word streams in one call (spec rule 9.2).
 *
 * Block i of a game's stream is SHA-256(seed || u64be(i)): a 40-byte message, so exactly one
 * 64-byte SHA-256 block after padding. The batch engine needs tens of thousands of such blocks per
 * step; hashing each through Python's hashlib costs a Python call, an object and a copy per
 * block (~400 ns here), several times the hash itself. This module hashes them all in C:
 *
 *   many_stream_blocks(requests) -> bytes
 *
 * takes an iterable of (seed, first, count) -- seed 32 bytes, blocks first .. first + count - 1 --
 * and returns the 32-byte digests of every block of every request, in order, concatenated: exactly
 * what randomness.many_stream_blocks returns (tests/test_randomness.py compares the two with
 * hashlib, on the spec's vectors and over random seeds and counters, including the counter edges).
 *
 * Two implementations, chosen once at import:
 *   - x86-64 with the SHA extensions (SHA-NI, with SSSE3 and SSE4.1): Intel's sha256rnds2 /
 *     sha256msg1 / sha256msg2 instructions, through the compiler's intrinsics, compiled for that
 *     target only and called only when CPUID says the CPU has them; two blocks at a time, and the
 *     rounds that read only the seed done once per request (about 31-36 ns a block here, against
 *     about 400 ns for a block through hashlib from Python);
 *   - everywhere else (other CPUs, MSVC, ARM): the portable FIPS 180-4 compression below (about
 *     270 ns a block here; what it saves is the Python call around each block).
 * `implementation()` names the one in use; `many_stream_blocks_portable` always takes the portable
 * one (the tests compare both with hashlib on CPUs that have the extensions).
 *
 * No OpenSSL: its EVP interface hashes one message per call too (the cost is the per-message
 * overhead, not the rounds), and linking it would tie the wheel to a library version.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* FIPS 180-4, 4.2.2: the round constants. */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* FIPS 180-4, 5.3.3: the initial hash value. */
static const uint32_t H0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/*
 * The 16 message words of block `index` of the stream of `seed` (big-endian words, FIPS 180-4
 * 5.1.1 padding): the seed (words 0-7), the counter (8-9), the 1 bit after the message (10), zeros,
 * and the message length, 40 bytes = 320 bits (15).
 */
static void message_words(uint32_t w[16], const uint32_t seed_words[8], uint64_t index)
{
    memcpy(w, seed_words, 8 * sizeof(uint32_t));
    w[8] = (uint32_t)(index >> 32);
    w[9] = (uint32_t)index;
    w[10] = 0x80000000u;
    w[11] = w[12] = w[13] = w[14] = 0;
    w[15] = 320;
}

static uint32_t load_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* ---------------------------------------------------------------------------------------------
 * Portable: FIPS 180-4, 6.2.2, one block from the initial hash value.
 * ------------------------------------------------------------------------------------------- */

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block_portable(unsigned char out[32], const uint32_t seed_words[8], uint64_t index)
{
    uint32_t w[64];
    message_words(w, seed_words, index);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = H0[0], b = H0[1], c = H0[2], d = H0[3], e = H0[4], f = H0[5], g = H0[6], h = H0[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    const uint32_t state[8] = {a + H0[0], b + H0[1], c + H0[2], d + H0[3],
                               e + H0[4], f + H0[5], g + H0[6], h + H0[7]};
    for (int i = 0; i < 8; i++)
        store_be32(out + 4 * i, state[i]);
}

/* All the blocks of one request, `count` blocks from `first`, one after the other. */
static void blocks_portable(unsigned char *out, const uint32_t seed_words[8], uint64_t first, uint64_t count)
{
    for (uint64_t b = 0; b < count; b++)
        block_portable(out + 32 * b, seed_words, first + b);
}

/* ---------------------------------------------------------------------------------------------
 * x86-64 SHA extensions. The state lives in two registers as the instructions want it: ABEF and
 * CDGH (A in the highest lane); each sha256rnds2 does two rounds, with the message words plus the
 * round constants in the low 64 bits of its third operand. The message schedule takes four words
 * at a time: W[i] = msg2(msg1(W[i-4], W[i-3]) + alignr(W[i-1], W[i-2]), W[i-1]).
 *
 * Two things make a request's blocks cheaper than separate hashes:
 *   - rounds 0-7 read only message words 0-7, the seed: their state is computed once per request;
 *   - two blocks go through the rounds side by side, so the processor overlaps their two chains of
 *     dependent sha256rnds2 instructions (one chain alone waits on each instruction's latency).
 * ------------------------------------------------------------------------------------------- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_SHA_NI_CODE 1
#include <cpuid.h>
#include <immintrin.h>

#define SHA_NI __attribute__((target("sha,ssse3,sse4.1")))

/* Message words 8-11 of block `index`: the counter (big-endian, as two words), then the 1 bit. */
SHA_NI static inline __m128i counter_words(uint64_t index)
{
    return _mm_set_epi32(0, (int)0x80000000u, (int)(uint32_t)index, (int)(uint32_t)(index >> 32));
}

/* W[i] from the four vectors before it. */
#define SCHEDULE(w, i) _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w[(i) - 4], w[(i) - 3]), \
                                            _mm_alignr_epi8(w[(i) - 1], w[(i) - 2], 4)), w[(i) - 1])

/* Rounds 4i .. 4i + 3 on one state, with the message vector w_i. */
#define FOUR_ROUNDS(abef, cdgh, w_i, i) do { \
        __m128i msg_ = _mm_add_epi32((w_i), _mm_loadu_si128((const __m128i *)&K[4 * (i)])); \
        (cdgh) = _mm_sha256rnds2_epu32((cdgh), (abef), msg_); \
        (abef) = _mm_sha256rnds2_epu32((abef), (cdgh), _mm_shuffle_epi32(msg_, 0x0E)); \
    } while (0)

/* The digest: the state plus the initial value, as 32 big-endian bytes A B C D E F G H. */
SHA_NI static inline void store_digest(unsigned char *out, __m128i abef, __m128i cdgh,
                                       __m128i abef0, __m128i cdgh0)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    abef = _mm_add_epi32(abef, abef0);                          /* lanes F E B A */
    cdgh = _mm_add_epi32(cdgh, cdgh0);                          /* lanes H G D C */
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);               /* lanes A B E F */
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);               /* lanes G H C D */
    __m128i abcd = _mm_blend_epi16(feba, dchg, 0xF0);           /* lanes A B C D */
    __m128i efgh = _mm_alignr_epi8(dchg, feba, 8);              /* lanes E F G H */
    _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(abcd, bswap));
    _mm_storeu_si128((__m128i *)(out + 16), _mm_shuffle_epi8(efgh, bswap));
}

SHA_NI static void blocks_sha_ni(unsigned char *out, const uint32_t seed_words[8], uint64_t first,
                                 uint64_t count)
{
    /* The initial hash value as ABEF (lanes F, E, B, A) and CDGH (lanes H, G, D, C). */
    const __m128i abef0 = _mm_set_epi32((int)H0[0], (int)H0[1], (int)H0[4], (int)H0[5]);
    const __m128i cdgh0 = _mm_set_epi32((int)H0[2], (int)H0[3], (int)H0[6], (int)H0[7]);
    const __m128i seed0 = _mm_loadu_si128((const __m128i *)&seed_words[0]);  /* words 0-3 */
    const __m128i seed1 = _mm_loadu_si128((const __m128i *)&seed_words[4]);  /* words 4-7 */
    const __m128i tail = _mm_set_epi32(320, 0, 0, 0);  /* words 12-15: zeros, the length in bits */

    /* Rounds 0-7, the seed's: the same for every block of the request. */
    __m128i abef8 = abef0, cdgh8 = cdgh0;
    FOUR_ROUNDS(abef8, cdgh8, seed0, 0);
    FOUR_ROUNDS(abef8, cdgh8, seed1, 1);

    uint64_t b = 0;
    for (; b + 2 <= count; b += 2) {  /* two blocks side by side */
        __m128i x[16], y[16];
        x[0] = y[0] = seed0;
        x[1] = y[1] = seed1;
        x[2] = counter_words(first + b);
        y[2] = counter_words(first + b + 1);
        x[3] = y[3] = tail;
        __m128i ax = abef8, cx = cdgh8, ay = abef8, cy = cdgh8;
        FOUR_ROUNDS(ax, cx, x[2], 2);
        FOUR_ROUNDS(ay, cy, y[2], 2);
        FOUR_ROUNDS(ax, cx, x[3], 3);
        FOUR_ROUNDS(ay, cy, y[3], 3);
#pragma GCC unroll 12
        for (int i = 4; i < 16; i++) {
            x[i] = SCHEDULE(x, i);
            y[i] = SCHEDULE(y, i);
            FOUR_ROUNDS(ax, cx, x[i], i);
            FOUR_ROUNDS(ay, cy, y[i], i);
        }
        store_digest(out + 32 * b, ax, cx, abef0, cdgh0);
        store_digest(out + 32 * (b + 1), ay, cy, abef0, cdgh0);
    }
    if (b < count) {  /* the last one alone */
        __m128i x[16];
        x[0] = seed0;
        x[1] = seed1;
        x[2] = counter_words(first + b);
        x[3] = tail;
        __m128i ax = abef8, cx = cdgh8;
        FOUR_ROUNDS(ax, cx, x[2], 2);
        FOUR_ROUNDS(ax, cx, x[3], 3);
#pragma GCC unroll 12
        for (int i = 4; i < 16; i++) {
            x[i] = SCHEDULE(x, i);
            FOUR_ROUNDS(ax, cx, x[i], i);
        }
        store_digest(out + 32 * b, ax, cx, abef0, cdgh0);
    }
}

/* CPUID: leaf 1 ECX bit 9 (SSSE3) and bit 19 (SSE4.1); leaf 7 EBX bit 29 (SHA). */
static int cpu_has_sha_ni(void)
{
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 9)) || !(ecx & (1u << 19)))
        return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return 0;
    return (ebx >> 29) & 1;
}
#endif

/* Hashes the `count` blocks of one request from block `first` into `out` (32 bytes each). */
typedef void (*blocks_function)(unsigned char *out, const uint32_t seed_words[8], uint64_t first,
                                uint64_t count);

static blocks_function hash_blocks = blocks_portable;
static const char *implementation_name = "portable";

/* ---------------------------------------------------------------------------------------------
 * The Python function.
 * ------------------------------------------------------------------------------------------- */

typedef struct {
    uint32_t seed_words[8];
    uint64_t first;
    uint64_t count;
} request;

/* Reads one (seed, first, count) request; 0 on success, -1 with an exception set. */
static int read_request(PyObject *item, request *r)
{
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
        PyErr_Format(PyExc_TypeError, "each request must be a (seed, first, count) tuple, got %.100s",
                     Py_TYPE(item)->tp_name);
        return -1;
    }
    PyObject *seed = PyTuple_GET_ITEM(item, 0);
    if (!PyBytes_Check(seed) || PyBytes_GET_SIZE(seed) != 32) {
        PyErr_SetString(PyExc_ValueError, "a seed must be 32 bytes (rule 9.1)");
        return -1;
    }
    const unsigned char *bytes = (const unsigned char *)PyBytes_AS_STRING(seed);
    for (int i = 0; i < 8; i++)
        r->seed_words[i] = load_be32(bytes + 4 * i);
    /* (PyLong_AsUnsignedLongLong: OverflowError for a negative or too large int, TypeError for
       anything but an int) */
    r->first = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 1));
    if (r->first == (uint64_t)-1 && PyErr_Occurred())
        return -1;
    r->count = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 2));
    if (r->count == (uint64_t)-1 && PyErr_Occurred())
        return -1;
    /* The counter is a u64 (rule 9.2): the last block, first + count - 1, must fit. */
    if (r->count > 0 && r->count - 1 > UINT64_MAX - r->first) {
        PyErr_SetString(PyExc_OverflowError, "a block counter must be below 2**64 (rule 9.2)");
        return -1;
    }
    return 0;
}

static PyObject *blocks_of(PyObject *requests, blocks_function hash)
{
    PyObject *items = PySequence_Fast(requests, "requests must be an iterable of (seed, first, count)");
    if (items == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject **item = PySequence_Fast_ITEMS(items);
    request *parsed = PyMem_New(request, n > 0 ? n : 1);
    if (parsed == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    /* First pass: read and check every request, and count the blocks (the output's size). */
    uint64_t total = 0;
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_request(item[i], &parsed[i]) < 0)
            goto done;
        if (parsed[i].count > (uint64_t)(PY_SSIZE_T_MAX / 32) - total) {
            PyErr_SetString(PyExc_OverflowError, "too many blocks for one bytes object");
            goto done;
        }
        total += parsed[i].count;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * 32));
    if (out == NULL)
        goto done;
    /* Second pass: hash, without the GIL (the requests are plain C data now). */
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        hash(p, parsed[i].seed_words, parsed[i].first, parsed[i].count);
        p += 32 * parsed[i].count;
    }
    Py_END_ALLOW_THREADS
done:
    PyMem_Free(parsed);
    Py_DECREF(items);
    return out;
}

static PyObject *many_stream_blocks(PyObject *module, PyObject *requests)
{
    (void)module;
    return blocks_of(requests, hash_blocks);
}

static PyObject *many_stream_blocks_portable(PyObject *module, PyObject *requests)
{
    (void)module;
    return blocks_of(requests, blocks_portable);
}

static PyObject *implementation(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(implementation_name);
}

static PyMethodDef methods[] = {
    {"many_stream_blocks", many_stream_blocks, METH_O,
     "many_stream_blocks(requests) -> bytes: SHA-256(seed || u64be(b)) for the blocks b = first .. "
     "first + count - 1 of every (seed, first, count) request, concatenated in order (rule 9.2)."},
    {"many_stream_blocks_portable", many_stream_blocks_portable, METH_O,
     "many_stream_blocks_portable(requests) -> bytes: many_stream_blocks with the portable "
     "compression whatever the CPU (for the tests)."},
    {"implementation", implementation, METH_NOARGS,
     "implementation() -> str: 'sha-ni' (the CPU's SHA extensions) or 'portable'."},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *module)
{
    (void)module;
#ifdef HAVE_SHA_NI_CODE
    if (cpu_has_sha_ni()) {
        hash_blocks = blocks_sha_ni;
        implementation_name = "sha-ni";
    }
#endif
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
#ifdef Py_GIL_DISABLED  /* free-threaded CPython: the module keeps no Python state of its own */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "abyss_rules._sha256_blocks",
    "The blocks of many SHA-256 word streams (spec rule 9.2) in one call, in C.", 0, methods, slots,
    NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__sha256_blocks(void)
{
    return PyModuleDef_Init(&module_def);
}
