/*
 * abyss_rules._sha256_blocks: the word streams of spec section 9 in C -- the blocks of many streams
 * in one call (rule 9.2), and the shuffles that read them (rules 9.3, 9.4; see "The shuffle" below).
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
 * The Python functions: the blocks of many requests.
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

/* ---------------------------------------------------------------------------------------------
 * The shuffle of rule 9.4, its draws by rule 9.3 from the stream of rule 9.2.
 *
 *   shuffled(seed, position, items) -> (tuple, position)
 *   shuffle_rows(seeds, positions, rows, lengths) -> None
 *
 * are randomness.shuffled (every deal and reshuffle of the reference engine) and the batch
 * engine's shuffle of many decks at once, in place in a 2-D buffer (randomness.compiled_row_shuffle).
 * Each gives exactly what the pure randomness.shuffled gives: tests/test_randomness.py and
 * tests/test_batch_shuffle.py compare them on the spec's vectors, on every deck size a variant
 * allows (and on rows of 200,000 items, whose draws reject words), on the wheel
 * (tests/test_compiled.py). One Python call does the hashing, the draws and the swaps of all its
 * decks, each deck's in one pass over its own row (NumPy's lockstep makes a gather and a scatter
 * over every deck per position instead).
 *
 * A reader hands out the words of one stream from a position on, hashing the blocks it needs
 * with `hash_blocks`, up to READ_BLOCKS at a time: as many as the draws still to come need
 * when no word is rejected (a rejected word costs one more block, hashed when it is needed).
 * below(m) is rule 9.3: a word at or above 2^32 - (2^32 mod m) is rejected, and the remainder
 * of an accepted word x by m is taken by a multiplication where the compiler has 128-bit
 * integers (Lemire, Kaser and Kurz's direct remainder: with c = ceil(2^64 / m), x mod m is the
 * high half of the 128-bit product of (c * x mod 2^64) and m, exact for every 32-bit x and
 * 2 <= m <= 2^32), by `x % m` elsewhere. The limits and the c of the moduli up to FAST_MODULI
 * (every deck a variant allows, rule 10.4) are computed once, at import.
 * ------------------------------------------------------------------------------------------- */

#define READ_BLOCKS 32
#define FAST_MODULI 4096
#define POSITION_BOUND (UINT64_C(1) << 62)  /* positions are taken below it, and end below 2^63 */

typedef struct {
    const uint32_t *seed_words;
    uint64_t position;  /* the index of the next word in the stream */
    unsigned at, end;   /* words[at] is word `position`; words[end] is past the last one hashed */
    uint32_t words[8 * READ_BLOCKS];
} reader;

static void reader_start(reader *r, const uint32_t *seed_words, uint64_t position)
{
    r->seed_words = seed_words;
    r->position = position;
    r->at = r->end = 0;
}

/* Hashes the blocks from the one holding word `position` on: enough for `want` more words
   (at least one block, at most READ_BLOCKS). */
static void refill(reader *r, uint64_t want)
{
    unsigned skip = (unsigned)(r->position % 8);
    uint64_t count = (skip + want + 7) / 8;
    if (count > READ_BLOCKS)
        count = READ_BLOCKS;
    if (count == 0)
        count = 1;
    unsigned char *bytes = (unsigned char *)r->words;
    hash_blocks(bytes, r->seed_words, r->position / 8, count);
    for (unsigned i = 0; i < 8 * count; i++)  /* big-endian words, in place */
        r->words[i] = load_be32(bytes + 4 * i);
    r->at = skip;
    r->end = (unsigned)(8 * count);
}

typedef struct {
    uint64_t limit;  /* 2^32 - (2^32 mod m): the first rejected word */
    uint64_t c;      /* ceil(2^64 / m) */
} modulus;

static modulus moduli[FAST_MODULI + 1];  /* by m, from 2 on */

static modulus modulus_of(uint64_t m)
{
    modulus d = {(UINT64_C(1) << 32) - (UINT64_C(1) << 32) % m, UINT64_MAX / m + 1};
    return d;
}

static inline uint32_t remainder_of(uint32_t x, uint64_t m, uint64_t c)
{
#if defined(__SIZEOF_INT128__)
    return (uint32_t)(((unsigned __int128)(c * x) * m) >> 64);
#else
    (void)c;
    return (uint32_t)(x % m);
#endif
}

/* Rule 9.4 on the `n` items of `a` (n >= 2), one function per item size: for i from n - 1 down
   to 1, j = below(i + 1) (rule 9.3: the words from `r` on, each rejected one skipped), then swap
   a[i] and a[j]. The reader's place is kept in locals (an item store could alias the reader's
   fields: a char type aliases anything) and written back when the block runs out and at the end. */
#define DEFINE_SHUFFLE(NAME, T)                                                      \
    static void NAME(T *a, uint64_t n, reader *r)                                    \
    {                                                                                \
        const uint32_t *words = r->words;                                            \
        unsigned at = r->at, end = r->end;                                           \
        uint64_t used = 0;  /* the words read since r->position */                   \
        for (uint64_t i = n - 1; i > 0; i--) {                                       \
            uint64_t m = i + 1;                                                      \
            modulus d = m <= FAST_MODULI ? moduli[m] : modulus_of(m);                \
            uint32_t x;                                                              \
            do {                                                                     \
                if (at == end) {                                                     \
                    r->position += used;                                             \
                    used = 0;                                                        \
                    refill(r, i);                                                    \
                    at = r->at;                                                      \
                    end = r->end;                                                    \
                }                                                                    \
                x = words[at++];                                                     \
                used++;                                                              \
            } while (x >= d.limit);                                                  \
            uint32_t j = remainder_of(x, m, d.c);                                    \
            T t = a[i];                                                              \
            a[i] = a[j];                                                             \
            a[j] = t;                                                                \
        }                                                                            \
        r->position += used;                                                         \
        r->at = at;                                                                  \
    }

DEFINE_SHUFFLE(shuffle_8, uint8_t)
DEFINE_SHUFFLE(shuffle_16, uint16_t)
DEFINE_SHUFFLE(shuffle_32, uint32_t)
DEFINE_SHUFFLE(shuffle_64, uint64_t)
DEFINE_SHUFFLE(shuffle_objects, PyObject *)

/* A 32-byte seed's words, or -1 with ValueError set. */
static int seed_words_of(PyObject *seed, uint32_t words[8])
{
    if (!PyBytes_Check(seed) || PyBytes_GET_SIZE(seed) != 32) {
        PyErr_SetString(PyExc_ValueError, "a seed must be 32 bytes (rule 9.1)");
        return -1;
    }
    const unsigned char *bytes = (const unsigned char *)PyBytes_AS_STRING(seed);
    for (int i = 0; i < 8; i++)
        words[i] = load_be32(bytes + 4 * i);
    return 0;
}

/* shuffled(seed, position, items) -> (tuple, position): randomness.shuffled. */
static PyObject *shuffled(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "shuffled takes 3 arguments (seed, position, items)");
        return NULL;
    }
    uint32_t seed_words[8];
    if (seed_words_of(args[0], seed_words) < 0)
        return NULL;
    PyObject *index = PyNumber_Index(args[1]);  /* (an int, or what stands for one) */
    if (index == NULL)
        return NULL;
    uint64_t position = PyLong_AsUnsignedLongLong(index);  /* (OverflowError below 0) */
    Py_DECREF(index);
    if (position == (uint64_t)-1 && PyErr_Occurred())
        return NULL;
    if (position >= POSITION_BOUND) {
        PyErr_SetString(PyExc_OverflowError, "shuffled: the position must be below 2**62");
        return NULL;
    }
    PyObject *items = PySequence_Fast(args[2], "shuffled: items must be iterable");
    if (items == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    if ((uint64_t)n > (UINT64_C(1) << 32)) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "shuffled: at most 2**32 items (rule 9.3)");
        return NULL;
    }
    PyObject *out = PyTuple_New(n);
    if (out == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    PyObject **from = PySequence_Fast_ITEMS(items), **to = PySequence_Fast_ITEMS(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(from[i]);
        to[i] = from[i];
    }
    Py_DECREF(items);
    if (n >= 2) {  /* (the new tuple is ours alone until it is returned) */
        reader r;
        reader_start(&r, seed_words, position);
        shuffle_objects(to, (uint64_t)n, &r);
        position = r.position;
    }
    return Py_BuildValue("(NK)", out, (unsigned long long)position);
}

/* A buffer of `k` native int64s (C-contiguous), or -1 with an error set; released by the caller
   when 0 is returned. */
static int int64_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t k, int flags, const char *name)
{
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = view->format;
    if (*f == '@' || *f == '=' || (*f == '<' && PY_LITTLE_ENDIAN) || (*f == '>' && !PY_LITTLE_ENDIAN))
        f++;
    if (view->itemsize != 8 || (strcmp(f, "q") != 0 && strcmp(f, "l") != 0) || view->len != 8 * k) {
        PyErr_Format(PyExc_TypeError, "shuffle_rows: %s must hold one native int64 per seed", name);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* shuffle_rows(seeds, positions, rows, lengths) -> None: rule 9.4 on the first lengths[g] items
   of row g of `rows` from the stream of seeds[g] at word positions[g], in place, for every g;
   positions[g] becomes the position after. */
static PyObject *shuffle_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "shuffle_rows takes 4 arguments (seeds, positions, rows, lengths)");
        return NULL;
    }
    PyObject *seeds = PySequence_Fast(args[0], "shuffle_rows: seeds must be a sequence of 32-byte seeds");
    if (seeds == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seeds);
    PyObject *result = NULL;
    Py_buffer positions = {0}, rows = {0}, lengths = {0};
    uint32_t *seed_words = NULL;
    uint64_t *start = NULL, *count = NULL;
    if (int64_buffer(args[1], &positions, k, PyBUF_WRITABLE, "positions") < 0)
        goto fail_seeds;
    if (int64_buffer(args[3], &lengths, k, 0, "lengths") < 0)
        goto fail_positions;
    if (PyObject_GetBuffer(args[2], &rows, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        goto fail_lengths;
    Py_ssize_t size = rows.itemsize;
    if (rows.ndim != 2 || rows.shape[0] != k || (size != 1 && size != 2 && size != 4 && size != 8)) {
        PyErr_SetString(PyExc_TypeError, "shuffle_rows: rows must be a C-contiguous writable "
                        "(seeds, width) array of items of 1, 2, 4 or 8 bytes");
        goto done;
    }
    uint64_t width = (uint64_t)rows.shape[1];
    /* Everything read and checked first, into memory of our own (the buffers may overlap). */
    seed_words = PyMem_New(uint32_t, 8 * (size_t)(k > 0 ? k : 1));
    start = PyMem_New(uint64_t, k > 0 ? k : 1);
    count = PyMem_New(uint64_t, k > 0 ? k : 1);
    if (seed_words == NULL || start == NULL || count == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject **seed = PySequence_Fast_ITEMS(seeds);
    const int64_t *position_in = (const int64_t *)positions.buf, *length_in = (const int64_t *)lengths.buf;
    for (Py_ssize_t g = 0; g < k; g++) {
        if (seed_words_of(seed[g], seed_words + 8 * g) < 0)
            goto done;
        if (position_in[g] < 0 || (uint64_t)position_in[g] >= POSITION_BOUND) {
            PyErr_SetString(PyExc_ValueError, "shuffle_rows: a position must be in [0, 2**62)");
            goto done;
        }
        if (length_in[g] < 0 || (uint64_t)length_in[g] > width) {
            PyErr_SetString(PyExc_ValueError, "shuffle_rows: a length must be in [0, width of rows]");
            goto done;
        }
        start[g] = (uint64_t)position_in[g];
        count[g] = (uint64_t)length_in[g];
    }
    unsigned char *base = (unsigned char *)rows.buf;
    Py_BEGIN_ALLOW_THREADS
    reader r;
    for (Py_ssize_t g = 0; g < k; g++) {
        uint64_t n = count[g];
        if (n < 2)
            continue;
        void *row = base + (size_t)g * (size_t)width * (size_t)size;
        reader_start(&r, seed_words + 8 * g, start[g]);
        switch (size) {
        case 1: shuffle_8((uint8_t *)row, n, &r); break;
        case 2: shuffle_16((uint16_t *)row, n, &r); break;
        case 4: shuffle_32((uint32_t *)row, n, &r); break;
        default: shuffle_64((uint64_t *)row, n, &r); break;
        }
        start[g] = r.position;
    }
    Py_END_ALLOW_THREADS
    int64_t *position_out = (int64_t *)positions.buf;
    for (Py_ssize_t g = 0; g < k; g++)
        position_out[g] = (int64_t)start[g];
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(seed_words);
    PyMem_Free(start);
    PyMem_Free(count);
    PyBuffer_Release(&rows);
fail_lengths:
    PyBuffer_Release(&lengths);
fail_positions:
    PyBuffer_Release(&positions);
fail_seeds:
    Py_DECREF(seeds);
    return result;
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
    {"shuffled", (PyCFunction)(void (*)(void))shuffled, METH_FASTCALL,
     "shuffled(seed, position, items) -> (tuple, position): the Fisher-Yates shuffle of rule 9.4 of "
     "the items, its draws (rule 9.3) from the stream of `seed` at word `position` (below 2**62): "
     "randomness.shuffled."},
    {"shuffle_rows", (PyCFunction)(void (*)(void))shuffle_rows, METH_FASTCALL,
     "shuffle_rows(seeds, positions, rows, lengths) -> None: for every g, the shuffle of rule 9.4 of "
     "the first lengths[g] items of row g of `rows` (a writable C-contiguous 2-D buffer of 1-, 2-, "
     "4- or 8-byte items), in place, from the stream of seeds[g] at word positions[g]; `positions` "
     "(writable) and `lengths` are buffers of native int64, and positions[g] becomes the position "
     "after the shuffle."},
    {"implementation", implementation, METH_NOARGS,
     "implementation() -> str: 'sha-ni' (the CPU's SHA extensions) or 'portable'."},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *module)
{
    (void)module;
    for (uint64_t m = 2; m <= FAST_MODULI; m++)
        moduli[m] = modulus_of(m);
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
