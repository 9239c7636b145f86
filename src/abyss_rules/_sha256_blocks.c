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
 * Two compression functions, chosen once at import:
 *   - x86-64 with the SHA extensions (SHA-NI, with SSSE3 and SSE4.1): Intel's sha256rnds2 /
 *     sha256msg1 / sha256msg2 instructions, through the compiler's intrinsics, compiled for that
 *     target only and called only when CPUID says the CPU has them;
 *   - everywhere else (other CPUs, MSVC, ARM): the portable FIPS 180-4 compression below.
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

/* ---------------------------------------------------------------------------------------------
 * x86-64 SHA extensions. The state lives in two registers as the instructions want it: ABEF and
 * CDGH (A in the highest lane); each sha256rnds2 does two rounds, with the message words plus the
 * round constants in the low 64 bits of its third operand. The message schedule takes four words
 * at a time: W[i] = msg2(msg1(W[i-4], W[i-3]) + alignr(W[i-1], W[i-2]), W[i-1]).
 * ------------------------------------------------------------------------------------------- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_SHA_NI_CODE 1
#include <cpuid.h>
#include <immintrin.h>

__attribute__((target("sha,ssse3,sse4.1")))
static void block_sha_ni(unsigned char out[32], const uint32_t seed_words[8], uint64_t index)
{
    uint32_t words[16];
    message_words(words, seed_words, index);
    __m128i w[16];
    for (int i = 0; i < 4; i++)  /* lanes 0-3: words 4i .. 4i + 3 */
        w[i] = _mm_loadu_si128((const __m128i *)&words[4 * i]);

    /* The initial hash value as ABEF (lanes F, E, B, A) and CDGH (lanes H, G, D, C). */
    __m128i abef = _mm_set_epi32((int)H0[0], (int)H0[1], (int)H0[4], (int)H0[5]);
    __m128i cdgh = _mm_set_epi32((int)H0[2], (int)H0[3], (int)H0[6], (int)H0[7]);
    const __m128i abef0 = abef, cdgh0 = cdgh;

    for (int i = 0; i < 16; i++) {
        if (i >= 4) {
            __m128i sum = _mm_add_epi32(_mm_sha256msg1_epu32(w[i - 4], w[i - 3]),
                                        _mm_alignr_epi8(w[i - 1], w[i - 2], 4));
            w[i] = _mm_sha256msg2_epu32(sum, w[i - 1]);
        }
        __m128i msg = _mm_add_epi32(w[i], _mm_loadu_si128((const __m128i *)&K[4 * i]));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);          /* rounds 4i, 4i + 1 */
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0E));  /* 4i + 2, 4i + 3 */
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);

    uint32_t lanes[8];  /* ABEF and CDGH, lowest lane first: F E B A H G D C */
    _mm_storeu_si128((__m128i *)&lanes[0], abef);
    _mm_storeu_si128((__m128i *)&lanes[4], cdgh);
    const uint32_t state[8] = {lanes[3], lanes[2], lanes[7], lanes[6],
                               lanes[1], lanes[0], lanes[5], lanes[4]};
    for (int i = 0; i < 8; i++)
        store_be32(out + 4 * i, state[i]);
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

typedef void (*block_function)(unsigned char out[32], const uint32_t seed_words[8], uint64_t index);

static block_function hash_block = block_portable;
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

static PyObject *blocks_of(PyObject *requests, block_function hash)
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
        for (uint64_t b = 0; b < parsed[i].count; b++, p += 32)
            hash(p, parsed[i].seed_words, parsed[i].first + b);
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
    return blocks_of(requests, hash_block);
}

static PyObject *many_stream_blocks_portable(PyObject *module, PyObject *requests)
{
    (void)module;
    return blocks_of(requests, block_portable);
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
        hash_block = block_sha_ni;
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
