/*
 * The BLAS of runtime-c/adjc_blas.h against naive reference loops (long double): the fallback,
 * or with -DADJC_BLAS=cblas the library behind adjc's gemm wrapper (few-rows scaling):
 * gemm for every transpose pair, both orders, sizes that are not multiples of the register
 * tile or the cache blocks (1, 7, 33, 65, 129, 257), leading dimensions wider than the matrices,
 * alpha/beta including beta == 0 over NaN (which must not leak into C) and alpha == 0;
 * gemv for both transposes with unit and strided vectors; ger; dot; in double and float.
 * Elements outside the operation (the padding of leading dimensions, the gaps of strided
 * vectors) must keep their sentinel. adjc/tests/blas.rs builds this file with and without
 * -fopenmp, with default and with tiny cache blocks; it prints "ok" and exits 0, or lists
 * the first failures and exits 1.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "adjc_blas.h"

static int failures = 0;
#define SENTINEL 12345.0

static void fail(const char *what, const char *detail) {
    if (failures < 20) {
        printf("FAIL %s: %s\n", what, detail);
    }
    failures++;
}

/* Deterministic values in [-1, 1). */
static double val(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* Element (i, j) of an op'd matrix stored in `order` with leading dimension ld. */
static long ix(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE t, long i, long j, long ld) {
    long r = t == CblasNoTrans ? i : j, c = t == CblasNoTrans ? j : i;
    return order == CblasRowMajor ? r * ld + c : c * ld + r;
}

#define CHECK_GEMM_(T, P, EPS, TRUE_MIN)                                                             \
    /* ascale multiplies A's values (tiny: subnormal elements, the few-rows path's scaling). */      \
    static void check_##P##gemm_scaled(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta,              \
                                       enum CBLAS_TRANSPOSE tb, long M, long N, long K, T alpha,     \
                                       T beta, T ascale) {                                           \
        /* Stored shapes: op(A) is M x K, so A is M x K or K x M; rows/cols per order. */            \
        long ar = ta == CblasNoTrans ? M : K, ac = ta == CblasNoTrans ? K : M;                       \
        long br = tb == CblasNoTrans ? K : N, bc = tb == CblasNoTrans ? N : K;                       \
        long lda = (order == CblasRowMajor ? ac : ar) + 3, ldb = (order == CblasRowMajor ? bc : br) + 2; \
        long ldc = (order == CblasRowMajor ? N : M) + 5;                                             \
        long na = lda * (order == CblasRowMajor ? ar : ac), nb = ldb * (order == CblasRowMajor ? br : bc); \
        long nc = ldc * (order == CblasRowMajor ? M : N);                                            \
        T *A = malloc(sizeof(T) * na), *B = malloc(sizeof(T) * nb), *C = malloc(sizeof(T) * nc);     \
        long double *R = malloc(sizeof(long double) * nc), *S = malloc(sizeof(long double) * nc);    \
        unsigned s = (unsigned)(M * 131 + N * 17 + K);                                               \
        for (long k = 0; k < na; k++) A[k] = (T)val(&s) * ascale;                                    \
        for (long k = 0; k < nb; k++) B[k] = (T)val(&s);                                             \
        for (long k = 0; k < nc; k++) C[k] = beta == (T)0 ? (T)NAN : (T)val(&s);                     \
        /* Padding columns/rows of C (beyond M x N) hold the sentinel. */                            \
        for (long i = 0; i < M; i++) {                                                               \
            for (long j = 0; j < N; j++) {                                                           \
                long c = ix(order, CblasNoTrans, i, j, ldc);                                         \
                long double sum = 0, mag = 0;                                                        \
                for (long p = 0; p < K; p++) {                                                       \
                    long double x = A[ix(order, ta, i, p, lda)], y = B[ix(order, tb, p, j, ldb)];    \
                    sum += x * y;                                                                    \
                    mag += fabsl(x * y);                                                             \
                }                                                                                    \
                R[c] = (long double)alpha * sum + (beta == (T)0 ? 0.0L : (long double)beta * C[c]);  \
                S[c] = fabsl((long double)alpha) * mag + (beta == (T)0 ? 0.0L : fabsl((long double)beta * C[c])); \
            }                                                                                        \
        }                                                                                            \
        char *inside = calloc(nc, 1);                                                                \
        for (long i = 0; i < M; i++)                                                                 \
            for (long j = 0; j < N; j++) inside[ix(order, CblasNoTrans, i, j, ldc)] = 1;             \
        for (long k = 0; k < nc; k++)                                                                \
            if (!inside[k]) C[k] = (T)SENTINEL;                                                      \
        cblas_##P##gemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                \
        /* Subnormal arithmetic may lose up to one smallest step per product. */                     \
        long double floor = ascale == (T)1 ? EPS * 1e-30L : 4.0L * K * TRUE_MIN;                     \
        char what[160];                                                                              \
        snprintf(what, sizeof what, #P "gemm %s %c%c M=%ld N=%ld K=%ld alpha=%g beta=%g A*%g",       \
                 order == CblasRowMajor ? "row" : "col", ta == CblasNoTrans ? 'N' : 'T',             \
                 tb == CblasNoTrans ? 'N' : 'T', M, N, K, (double)alpha, (double)beta, (double)ascale); \
        for (long k = 0; k < nc; k++) {                                                              \
            char d[96];                                                                              \
            if (!inside[k]) {                                                                        \
                if (C[k] != (T)SENTINEL) {                                                           \
                    snprintf(d, sizeof d, "element %ld outside C written", k);                       \
                    fail(what, d);                                                                   \
                    break;                                                                           \
                }                                                                                    \
            } else if (!(fabsl((long double)C[k] - R[k]) <= EPS * S[k] + floor)) {                   \
                snprintf(d, sizeof d, "element %ld: %g, expected %g", k, (double)C[k], (double)R[k]); \
                fail(what, d);                                                                       \
                break;                                                                               \
            }                                                                                        \
        }                                                                                            \
        free(A), free(B), free(C), free(R), free(S), free(inside);                                   \
    }                                                                                                \
    static void check_##P##gemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta,                     \
                                enum CBLAS_TRANSPOSE tb, long M, long N, long K, T alpha, T beta) {  \
        check_##P##gemm_scaled(order, ta, tb, M, N, K, alpha, beta, (T)1);                           \
    }                                                                                                \
                                                                                                     \
    static void check_##P##gemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, long M, long N,     \
                                long incx, long incy, T alpha, T beta) {                             \
        long lda = (order == CblasRowMajor ? N : M) + 3, na = lda * (order == CblasRowMajor ? M : N); \
        long nx = ta == CblasNoTrans ? N : M, ny = ta == CblasNoTrans ? M : N;                        \
        T *A = malloc(sizeof(T) * na), *x = malloc(sizeof(T) * (nx * incx + 1));                     \
        T *y = malloc(sizeof(T) * (ny * incy + 1));                                                  \
        long double *R = malloc(sizeof(long double) * (ny + 1)), *S = malloc(sizeof(long double) * (ny + 1)); \
        unsigned s = (unsigned)(M * 7 + N * 3 + incx + 5 * incy);                                    \
        for (long k = 0; k < na; k++) A[k] = (T)val(&s);                                             \
        for (long k = 0; k < nx * incx; k++) x[k] = (T)val(&s);                                      \
        for (long k = 0; k < ny * incy + 1; k++) y[k] = (T)SENTINEL;                                 \
        for (long i = 0; i < ny; i++) {                                                              \
            y[i * incy] = beta == (T)0 ? (T)NAN : (T)val(&s);                                        \
            long double sum = 0, mag = 0;                                                            \
            for (long p = 0; p < nx; p++) {                                                          \
                long double a = A[ix(order, ta, i, p, lda)], b = x[p * incx];                        \
                sum += a * b;                                                                        \
                mag += fabsl(a * b);                                                                 \
            }                                                                                        \
            R[i] = (long double)alpha * sum + (beta == (T)0 ? 0.0L : (long double)beta * y[i * incy]); \
            S[i] = fabsl((long double)alpha) * mag + (beta == (T)0 ? 0.0L : fabsl((long double)beta * y[i * incy])); \
        }                                                                                            \
        cblas_##P##gemv(order, ta, M, N, alpha, A, lda, x, incx, beta, y, incy);                     \
        char what[160], d[96];                                                                       \
        snprintf(what, sizeof what, #P "gemv %s %c M=%ld N=%ld incx=%ld incy=%ld alpha=%g beta=%g",  \
                 order == CblasRowMajor ? "row" : "col", ta == CblasNoTrans ? 'N' : 'T', M, N, incx, \
                 incy, (double)alpha, (double)beta);                                                 \
        for (long k = 0; k < ny * incy + 1; k++) {                                                   \
            if (k % incy != 0 || k == ny * incy) {                                                   \
                if (y[k] != (T)SENTINEL) {                                                           \
                    snprintf(d, sizeof d, "element %ld outside y written", k);                       \
                    fail(what, d);                                                                   \
                    break;                                                                           \
                }                                                                                    \
            } else if (!(fabsl((long double)y[k] - R[k / incy]) <= EPS * (S[k / incy] + 1e-30L))) {  \
                snprintf(d, sizeof d, "y[%ld]: %g, expected %g", k / incy, (double)y[k], (double)R[k / incy]); \
                fail(what, d);                                                                       \
                break;                                                                               \
            }                                                                                        \
        }                                                                                            \
        free(A), free(x), free(y), free(R), free(S);                                                 \
    }                                                                                                \
                                                                                                     \
    static void check_##P##ger_dot(enum CBLAS_ORDER order, long M, long N, long incx, long incy, T alpha) { \
        long lda = (order == CblasRowMajor ? N : M) + 2, na = lda * (order == CblasRowMajor ? M : N); \
        T *A = malloc(sizeof(T) * na), *x = malloc(sizeof(T) * (M * incx + 1));                      \
        T *y = malloc(sizeof(T) * (N * incy + 1));                                                   \
        long double *R = malloc(sizeof(long double) * na);                                           \
        unsigned s = (unsigned)(M * 11 + N + incx);                                                  \
        for (long k = 0; k < na; k++) R[k] = A[k] = (T)val(&s);                                      \
        for (long k = 0; k < M * incx; k++) x[k] = (T)val(&s);                                       \
        for (long k = 0; k < N * incy; k++) y[k] = (T)val(&s);                                       \
        for (long i = 0; i < M; i++)                                                                 \
            for (long j = 0; j < N; j++)                                                             \
                R[ix(order, CblasNoTrans, i, j, lda)] += (long double)alpha * x[i * incx] * y[j * incy]; \
        cblas_##P##ger(order, M, N, alpha, x, incx, y, incy, A, lda);                                \
        char what[160], d[96];                                                                       \
        snprintf(what, sizeof what, #P "ger %s M=%ld N=%ld incx=%ld incy=%ld",                       \
                 order == CblasRowMajor ? "row" : "col", M, N, incx, incy);                          \
        for (long k = 0; k < na; k++) {                                                              \
            if (!(fabsl((long double)A[k] - R[k]) <= EPS * (fabsl(R[k]) + 4))) {                     \
                snprintf(d, sizeof d, "element %ld: %g, expected %g", k, (double)A[k], (double)R[k]); \
                fail(what, d);                                                                       \
                break;                                                                               \
            }                                                                                        \
        }                                                                                            \
        /* dot of x and y over min(M, N) elements. */                                                \
        long n = M < N ? M : N;                                                                      \
        long double dot = 0, mag = 0;                                                                \
        for (long k = 0; k < n; k++) {                                                               \
            dot += (long double)x[k * incx] * y[k * incy];                                           \
            mag += fabsl((long double)x[k * incx] * y[k * incy]);                                    \
        }                                                                                            \
        T got = cblas_##P##dot(n, x, incx, y, incy);                                                 \
        if (!(fabsl((long double)got - dot) <= EPS * (mag + 1e-30L))) {                              \
            snprintf(d, sizeof d, "dot over %ld: %g, expected %g", n, (double)got, (double)dot);     \
            fail(what, d);                                                                           \
        }                                                                                            \
        free(A), free(x), free(y), free(R);                                                          \
    }

CHECK_GEMM_(double, d, 1e-13L, DBL_TRUE_MIN)
CHECK_GEMM_(float, s, 1e-5L, FLT_TRUE_MIN)

int main(void) {
    static const long sizes[][3] = {{1, 1, 1},    {7, 33, 129}, {129, 7, 33}, {33, 129, 7}, {129, 129, 129},
                                    {1, 129, 33}, {129, 1, 7},  {33, 7, 1},   {7, 7, 129},  {1, 1, 129},
                                    {8, 17, 300}, {130, 131, 257}, {65, 65, 65}, {257, 65, 7},
                                    /* few rows (M <= 8): each tile height, column strips */
                                    /* and panels with remainders, a JB block boundary */
                                    {2, 61, 35},  {3, 50, 17},  {5, 100, 40}, {8, 4200, 9}};
    static const double ab[][2] = {{1.0, 0.0}, {0.5, -1.5}, {-2.0, 1.0}, {0.0, 2.0}};
    enum CBLAS_ORDER orders[2] = {CblasRowMajor, CblasColMajor};
    enum CBLAS_TRANSPOSE ts[2] = {CblasNoTrans, CblasTrans};
    long n = sizeof sizes / sizeof sizes[0];
    for (int o = 0; o < 2; o++) {
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 2; b++) {
                for (long k = 0; k < n; k++) {
                    /* Each size with one alpha/beta pair (all pairs across the list), and */
                    /* beta == 0 over NaN for every size. */
                    const double *p = ab[(k + a + 2 * b) % 4];
                    check_dgemm(orders[o], ts[a], ts[b], sizes[k][0], sizes[k][1], sizes[k][2], p[0], p[1]);
                    check_sgemm(orders[o], ts[a], ts[b], sizes[k][0], sizes[k][1], sizes[k][2], (float)p[0],
                                (float)p[1]);
                    check_dgemm(orders[o], ts[a], ts[b], sizes[k][0], sizes[k][1], sizes[k][2], -0.75, 0.0);
                    check_sgemm(orders[o], ts[a], ts[b], sizes[k][0], sizes[k][1], sizes[k][2], 1.25f, 0.0f);
                }
                /* Few rows whose op(A) holds subnormal numbers (some, or all of them): the */
                /* few-rows path scales op(A) by a power of two, or not when alpha / scale */
                /* would be subnormal (alpha 0.5 with every element subnormal). */
                static const long fr[][3] = {{8, 70, 50}, {3, 41, 20}};
                for (long k = 0; k < 2; k++) {
                    for (int q = 0; q < 2; q++) {
                        double alpha = q ? 0.5 : 1.0, beta = q ? 0.0 : 1.0;
                        check_dgemm_scaled(orders[o], ts[a], ts[b], fr[k][0], fr[k][1], fr[k][2], alpha, beta,
                                           1e-305);
                        check_dgemm_scaled(orders[o], ts[a], ts[b], fr[k][0], fr[k][1], fr[k][2], alpha, beta,
                                           1e-310);
                        check_sgemm_scaled(orders[o], ts[a], ts[b], fr[k][0], fr[k][1], fr[k][2], (float)alpha,
                                           (float)beta, 1e-36f);
                        check_sgemm_scaled(orders[o], ts[a], ts[b], fr[k][0], fr[k][1], fr[k][2], (float)alpha,
                                           (float)beta, 1e-42f);
                    }
                }
            }
            static const long mv[][2] = {{1, 1}, {7, 33}, {33, 7}, {129, 130}, {300, 1}, {1, 300}};
            for (int k = 0; k < 6; k++) {
                for (long incx = 1; incx <= 2; incx++) {
                    for (long incy = 1; incy <= 3; incy += 2) {
                        const double *p = ab[(k + incx + incy) % 4];
                        check_dgemv(orders[o], ts[a], mv[k][0], mv[k][1], incx, incy, p[0], p[1]);
                        check_sgemv(orders[o], ts[a], mv[k][0], mv[k][1], incx, incy, (float)p[0], (float)p[1]);
                        check_dgemv(orders[o], ts[a], mv[k][0], mv[k][1], incx, incy, 1.5, 0.0);
                        check_sgemv(orders[o], ts[a], mv[k][0], mv[k][1], incx, incy, -1.0f, 0.0f);
                        if (a == 0) {
                            check_dger_dot(orders[o], mv[k][0], mv[k][1], incx, incy, 0.75);
                            check_sger_dot(orders[o], mv[k][0], mv[k][1], incx, incy, -1.5f);
                        }
                    }
                }
            }
        }
    }
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
