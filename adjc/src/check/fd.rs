//! Judging a gradient against finite differences without crying wolf.
//!
//! One central difference at one step is wrong for some correct adjoints: too large a step
//! for a stiff kernel (truncation error), too small a one when the loss is large and its
//! change small (cancellation), float32 anywhere. The driver evaluates central differences
//! D(h) at a sweep of steps, largest first; each D(h) and each Richardson extrapolation of
//! two neighbours, (r² D(h/r) − D(h)) / (r² − 1) for steps a factor r apart (error O(h⁴)
//! instead of O(h²)), is an estimate of ⟨w, J v⟩. The check keeps the estimate that agrees
//! best with the adjoint, measured by [`agreement`], a combined absolute/relative error.
//!
//! When none agrees within the tolerance, [`diagnose`] says why: the estimates agree among
//! themselves (the adjoint is wrong), or they do not converge (the steps and errors at each
//! are listed).

/// The steps of the default sweep: float64 1e-2 … 1e-8, float32 1e-1 … 1e-4.
pub fn default_steps(f32_kernel: bool) -> Vec<f64> {
    let (first, last) = if f32_kernel { (1, 4) } else { (2, 8) };
    (first..=last).map(|k| 10f64.powi(-k)).collect()
}

/// One central difference of the driver: step, ⟨w, (f(x+hv) − f(x−hv)) / 2h⟩, and the
/// adjoint along the displacement actually applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub h: f64,
    pub fd: f64,
    pub ad: f64,
}

/// A finite-difference estimate and the adjoint value it is compared with.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub h: f64,
    pub extrapolated: bool,
    pub fd: f64,
    pub ad: f64,
    pub err: f64,
}

impl Estimate {
    pub fn label(&self) -> String {
        format!("h {:.0e}{}", self.h, if self.extrapolated { " extrapolated" } else { "" })
    }
}

/// |fd − ad| relative to the largest of |fd|, |ad| and `scale` = Σ_k |v_k (Jᵀw)_k|, the size
/// of the terms of the dot product: a gradient that cancels to nearly zero is judged against
/// the terms it sums, not against its own tiny value. Non-finite values never agree.
pub fn agreement(fd: f64, ad: f64, scale: f64) -> f64 {
    if !(fd.is_finite() && ad.is_finite()) {
        return f64::INFINITY;
    }
    let denom = fd.abs().max(ad.abs()).max(if scale.is_finite() { scale } else { 0.0 });
    if denom < 1e-300 {
        0.0
    } else {
        (fd - ad).abs() / denom
    }
}

/// Every estimate of a sweep (`samples` largest step first): the plain differences, then
/// the Richardson extrapolations of neighbouring steps.
pub fn estimates(samples: &[Sample], scale: f64) -> Vec<Estimate> {
    let mut out: Vec<Estimate> = samples
        .iter()
        .map(|s| Estimate { h: s.h, extrapolated: false, fd: s.fd, ad: s.ad, err: agreement(s.fd, s.ad, scale) })
        .collect();
    for pair in samples.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let r2 = (a.h / b.h).powi(2);
        if !(r2.is_finite() && r2 > 1.0) {
            continue;
        }
        let fd = (r2 * b.fd - a.fd) / (r2 - 1.0);
        let ad = (r2 * b.ad - a.ad) / (r2 - 1.0);
        out.push(Estimate { h: b.h, extrapolated: true, fd, ad, err: agreement(fd, ad, scale) });
    }
    out
}

/// The estimate agreeing best with the adjoint (the first of equals).
pub fn best(estimates: &[Estimate]) -> Option<&Estimate> {
    estimates.iter().fold(None, |best: Option<&Estimate>, e| match best {
        Some(b) if b.err <= e.err || e.err.is_nan() => Some(b),
        _ => Some(e),
    })
}

/// Why no estimate agrees within `tol`: one sentence, for the failure summary.
pub fn diagnose(name: &str, samples: &[Sample], scale: f64, tol: f64) -> String {
    if samples.iter().all(|s| !s.fd.is_finite()) {
        return format!("finite differences of `{name}` are not finite at any step");
    }
    let all = estimates(samples, scale);
    let (err, at) = best(&all).map(|e| (e.err, e.label())).unwrap_or((f64::INFINITY, String::new()));
    if let [s] = samples {
        return format!(
            "gradient of `{name}`: error {err:.2e} > {tol:.0e} at the single step {:.0e} (without --step, adjc tries \
             several steps)",
            s.h
        );
    }
    // How well neighbouring differences agree with each other: far better than with the
    // adjoint means they have converged, and the adjoint is what disagrees.
    let spread = samples.windows(2).map(|p| agreement(p[0].fd, p[1].fd, scale)).fold(f64::INFINITY, f64::min);
    if err > 10.0 * spread {
        format!(
            "gradient of `{name}`: the adjoint disagrees with finite differences that agree among themselves to \
             {spread:.2e} (best error {err:.2e} at {at}, tolerance {tol:.0e})"
        )
    } else {
        let tried: Vec<String> =
            samples.iter().map(|s| format!("h {:.0e}: {:.2e}", s.h, agreement(s.fd, s.ad, scale))).collect();
        format!(
            "gradient of `{name}`: best error {err:.2e} (at {at}) > tolerance {tol:.0e}, and the finite differences \
             agree among themselves only to {spread:.2e}, so they cannot settle it (error at each step: {}); \
             try other inputs (--init, --seed) or a looser --tol",
            tried.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x) = sin(c x) at x = 0.3 along v = 1: exact derivative c cos(c x).
    fn sweep(f: impl Fn(f64) -> f64, x: f64, steps: &[f64], ad: f64) -> Vec<Sample> {
        steps.iter().map(|&h| Sample { h, fd: (f(x + h) - f(x - h)) / (2.0 * h), ad }).collect()
    }

    #[test]
    fn a_stiff_function_fails_at_one_step_and_passes_with_the_sweep() {
        let c = 1.0e4;
        let ad = c * (c * 0.3f64).cos();
        let f = |x: f64| (c * x).sin();
        let one = estimates(&sweep(f, 0.3, &[1e-6], ad), 0.0);
        assert!(one[0].err > 1e-6, "{one:?}");
        let all = estimates(&sweep(f, 0.3, &default_steps(false), ad), 0.0);
        let b = best(&all).unwrap();
        assert!(b.err < 1e-9, "{b:?}");
    }

    #[test]
    fn cancellation_in_a_large_loss_is_avoided_by_a_larger_step() {
        // f = 1e6 + 1e-3 x², f' = 2e-3 x: at h = 1e-6 the difference drowns in rounding.
        let f = |x: f64| 1.0e6 + 1.0e-3 * x * x;
        let ad = 2.0e-3 * 0.7;
        assert!(estimates(&sweep(f, 0.7, &[1e-6], ad), 0.0)[0].err > 1e-6);
        assert!(best(&estimates(&sweep(f, 0.7, &default_steps(false), ad), 0.0)).unwrap().err < 1e-6);
    }

    #[test]
    fn a_wrong_adjoint_is_never_accepted_and_is_diagnosed_as_such() {
        let f = |x: f64| (2.0 * x).sin();
        let ad = 1.01 * 2.0 * (2.0 * 0.3f64).cos();
        let samples = sweep(f, 0.3, &default_steps(false), ad);
        assert!(best(&estimates(&samples, 0.0)).unwrap().err > 1e-3);
        let why = diagnose("x", &samples, 0.0, 1e-6);
        assert!(why.contains("the adjoint disagrees with finite differences that agree among themselves"), "{why}");
    }

    #[test]
    fn noise_is_diagnosed_as_not_converging_with_the_steps_tried() {
        let samples: Vec<Sample> = default_steps(true)
            .iter()
            .enumerate()
            .map(|(k, &h)| Sample { h, fd: 1.0 + 0.5 * (k as f64 + 1.0), ad: 1.0 })
            .collect();
        let why = diagnose("x", &samples, 0.0, 1e-2);
        assert!(why.contains("cannot settle it") && why.contains("h 1e-1: 3.33e-1"), "{why}");
    }

    #[test]
    fn agreement_is_relative_to_the_terms_of_the_dot_product() {
        assert_eq!(agreement(1e-12, 0.0, 1.0), 1e-12);
        assert_eq!(agreement(2.0, 1.0, 0.0), 0.5);
        assert_eq!(agreement(0.0, 0.0, 0.0), 0.0);
        assert_eq!(agreement(f64::NAN, 1.0, 1.0), f64::INFINITY);
        // Richardson: exact for a cubic from two steps.
        let f = |x: f64| x * x * x;
        let e = estimates(&sweep(f, 1.0, &[1e-1, 1e-2], 3.0), 0.0);
        assert!(e[2].extrapolated && (e[2].fd - 3.0).abs() < 1e-12, "{e:?}");
    }
}
