/* The C driver of the make example: the gradients of two NumPy kernels (smooth, softplus)
 * through their adjoints, each compared in one entry with a central finite difference.
 * Loss: L = sum_i w_i y_i, so the seed y_b is w (Tapenade's convention, see README). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "smooth.h"
#include "softplus.h"

enum { N = 16 };

static double loss_smooth(const double *x, const double *w) {
    double y[N] = {0}, l = 0.0;
    if (smooth(N, x, y) != 0) return NAN;
    for (int i = 0; i < N; i++) l += w[i] * y[i];
    return l;
}

static double loss_softplus(double a, const double *x, const double *w) {
    double y[N] = {0}, l = 0.0;
    if (softplus(N, a, x, y) != 0) return NAN;
    for (int i = 0; i < N; i++) l += w[i] * y[i];
    return l;
}

/* 0 when the adjoint and the finite difference agree to 1e-6 (relative). */
static int compare(const char *what, double adjoint, double fd) {
    double err = fabs(adjoint - fd) / fmax(1e-12, fmax(fabs(adjoint), fabs(fd)));
    printf("%-12s adjoint %.12f  finite difference %.12f  relative error %.1e\n", what, adjoint, fd, err);
    return err < 1e-6 ? 0 : 1;
}

int main(void) {
    double x[N], w[N], y[N], x_b[N], y_b[N], xp[N], xm[N];
    for (int i = 0; i < N; i++) {
        x[i] = sin(0.7 * i) + 0.1 * i;
        w[i] = cos(0.3 * i);
    }
    const int k = 5;
    const double h = 1e-6;
    int failures = 0;

    /* smooth: d L / d x[k] */
    memset(x_b, 0, sizeof x_b);
    memset(y, 0, sizeof y);
    memcpy(y_b, w, sizeof y_b);
    if (smooth_b(N, x, x_b, y, y_b) != 0) return 2;
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[k] += h;
    xm[k] -= h;
    failures += compare("smooth x[5]", x_b[k], (loss_smooth(xp, w) - loss_smooth(xm, w)) / (2 * h));

    /* softplus: d L / d x[k] and d L / d a */
    const double a = 1.5;
    double a_b = 0.0;
    memset(x_b, 0, sizeof x_b);
    memcpy(y_b, w, sizeof y_b);
    if (softplus_b(N, a, &a_b, x, x_b, y, y_b) != 0) return 2;
    failures += compare("softplus x[5]", x_b[k], (loss_softplus(a, xp, w) - loss_softplus(a, xm, w)) / (2 * h));
    failures += compare("softplus a", a_b, (loss_softplus(a + h, x, w) - loss_softplus(a - h, x, w)) / (2 * h));

    puts(failures ? "grad_c: FAILED" : "grad_c: ok");
    return failures ? 1 : 0;
}
