//! The gradients of both kernels through the safe bindings, compared with central finite
//! differences in dot-product form (⟨w, J v⟩ against ⟨Jᵀ w, v⟩ for a random-ish direction
//! v), and the bindings' checks: a slice of the wrong length is an error, not a call.

use adjc_example_rust::{damping, diffusion};

const N: usize = 24;

/// A deterministic pseudo-random sequence in [-0.5, 0.5).
fn wave(k: usize, seed: f64) -> f64 {
    ((k as f64 + 1.0) * seed).sin() * 0.5
}

/// L(u0, kappa) = ⟨w, diffusion(u0, kappa)⟩.
fn diffusion_loss(u0: &[f64], kappa: f64, w: &[f64]) -> f64 {
    let mut u = u0.to_vec();
    diffusion::diffusion(N, &mut u, kappa, 5).expect("diffusion");
    u.iter().zip(w).map(|(a, b)| a * b).sum()
}

#[test]
fn diffusion_gradient_matches_finite_differences() {
    let u0: Vec<f64> = (0..N).map(|k| 1.0 + wave(k, 0.7)).collect();
    let w: Vec<f64> = (0..N).map(|k| wave(k, 1.3)).collect();
    let (v, dkappa): (Vec<f64>, f64) = ((0..N).map(|k| wave(k, 2.1)).collect(), 0.3);
    let kappa = 0.2;

    // Adjoint: u_b seeded with w holds ∂L/∂u0 on exit; kappa_b is incremented by ∂L/∂kappa.
    let mut u = u0.clone();
    let mut u_b = w.clone();
    let mut kappa_b = 0.0;
    diffusion::diffusion_b(N, &mut u, &mut u_b, kappa, &mut kappa_b, 5).expect("diffusion_b");
    let adjoint: f64 = u_b.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() + kappa_b * dkappa;

    let h = 1e-6;
    let shifted = |s: f64| -> f64 {
        let u: Vec<f64> = u0.iter().zip(&v).map(|(a, b)| a + s * b).collect();
        diffusion_loss(&u, kappa + s * dkappa, &w)
    };
    let fd = (shifted(h) - shifted(-h)) / (2.0 * h);
    assert!((adjoint - fd).abs() <= 1e-7 * fd.abs().max(1.0), "adjoint {adjoint} vs finite difference {fd}");
    // The forward result of the adjoint's sweep is the forward function's.
    let mut forward = u0.clone();
    diffusion::diffusion(N, &mut forward, kappa, 5).unwrap();
    assert_eq!(u, forward);
}

#[test]
fn damping_gradient_matches_finite_differences() {
    let x: Vec<f64> = (0..N).map(|k| 0.1 * k as f64).collect();
    let w: Vec<f64> = (0..N).map(|k| wave(k, 0.9)).collect();
    let (v, da): (Vec<f64>, f64) = ((0..N).map(|k| wave(k, 1.7)).collect(), -0.4);
    let a = 0.6;
    let loss = |x: &[f64], a: f64| -> f64 {
        let mut y = vec![0.0; N];
        damping::damping(N as i64, a, x, &mut y).expect("damping");
        y.iter().zip(&w).map(|(p, q)| p * q).sum()
    };

    let (mut a_b, mut x_b, mut y, mut y_b) = (0.0, vec![0.0; N], vec![0.0; N], w.clone());
    damping::damping_b(N as i64, a, &mut a_b, &x, &mut x_b, &mut y, &mut y_b).expect("damping_b");
    let adjoint: f64 = x_b.iter().zip(&v).map(|(p, q)| p * q).sum::<f64>() + a_b * da;

    let h = 1e-6;
    let shifted = |s: f64| -> f64 {
        let xs: Vec<f64> = x.iter().zip(&v).map(|(p, q)| p + s * q).collect();
        loss(&xs, a + s * da)
    };
    let fd = (shifted(h) - shifted(-h)) / (2.0 * h);
    assert!((adjoint - fd).abs() <= 1e-7 * fd.abs().max(1.0), "adjoint {adjoint} vs finite difference {fd}");
    // y = exp(-a x) sin(x), element by element, as the Fortran says.
    for k in 0..N {
        assert!((y[k] - (-a * x[k]).exp() * x[k].sin()).abs() < 1e-15);
    }
}

#[test]
fn a_slice_of_the_wrong_length_is_an_error() {
    let mut u = vec![0.0; N - 1];
    let err = diffusion::diffusion(N, &mut u, 0.1, 1).unwrap_err();
    assert_eq!(err, adjc_rt::Error::Length { function: "diffusion", argument: "u", expected: N, found: N - 1 });
    assert_eq!(err.to_string(), "diffusion: `u` has 23 elements where its shape gives 24");
    let (mut y, x) = (vec![0.0; 3], vec![0.0; 4]);
    assert!(matches!(
        damping::damping(4, 1.0, &x, &mut y),
        Err(adjc_rt::Error::Length { argument: "y", expected: 4, found: 3, .. })
    ));
}
