#define _POSIX_C_SOURCE 199309L
/* GFLOP/s of cblas_?gemm for the four transpose combinations (row-major, M x N x K), best
 * of `reps` calls. Build against the fallback or OpenBLAS (-DADJC_BLAS=cblas -lopenblas):
 *   cc -O3 -march=native [-fopenmp] -I runtime-c bench.c -o bench && ./bench 1000 1100 1200 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "adjc_blas.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    int M = argc > 1 ? atoi(argv[1]) : 1000, N = argc > 2 ? atoi(argv[2]) : 1100;
    int K = argc > 3 ? atoi(argv[3]) : 1200, reps = argc > 4 ? atoi(argv[4]) : 5;
    int single = argc > 5 && argv[5][0] == 's';
    size_t na = (size_t)M * K, nb = (size_t)K * N;
    double *A = malloc(sizeof(double) * na), *B = malloc(sizeof(double) * nb);
    double *C = malloc(sizeof(double) * M * N);
    float *Af = malloc(sizeof(float) * na), *Bf = malloc(sizeof(float) * nb);
    float *Cf = malloc(sizeof(float) * M * N);
    for (size_t i = 0; i < na; i++) A[i] = Af[i] = (float)((i % 17) * 0.01);
    for (size_t i = 0; i < nb; i++) B[i] = Bf[i] = (float)((i % 13) * 0.02);
    const char *names[4] = {"NN", "NT", "TN", "TT"};
    printf("%s %dx%dx%d %s", ADJC_BLAS_NAME, M, N, K, single ? "float" : "double");
    for (int t = 0; t < 4; t++) {
        enum CBLAS_TRANSPOSE ta = t & 2 ? CblasTrans : CblasNoTrans, tb = t & 1 ? CblasTrans : CblasNoTrans;
        int lda = ta == CblasNoTrans ? K : M, ldb = tb == CblasNoTrans ? N : K;
        double best = 1e30;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            if (single) {
                cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, Af, lda, Bf, ldb, 0.0f, Cf, N);
            } else {
                cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, A, lda, B, ldb, 0.0, C, N);
            }
            double dt = now() - t0;
            best = dt < best ? dt : best;
        }
        printf("  %s %.1f", names[t], 2.0 * M * N * K / best * 1e-9);
    }
    printf("  GFLOP/s (C[7] = %g)\n", single ? Cf[7] : C[7]);
    return 0;
}
