//! Recomputation of the checkpointing schedules, in forward iterations, for the planner's
//! costs (the checkpointing side reports the same figures for the schedules it runs).

/// Periodic snapshots every `k` iterations: each segment but the last is run forward again
/// (up to its last iteration, which the reverse sweep of the segment starts from).
pub fn periodic_steps(trips: u64, k: u64) -> u64 {
    if k == 0 || trips == 0 {
        return 0;
    }
    let full = trips / k;
    let rest = trips % k;
    full * (k - 1) + rest.saturating_sub(1)
}

/// The binomial optimum t(T, c) = r·T − C(c + r, c + 1), with r the smallest integer such
/// that C(c + r, c) ≥ T (Griewank and Walther, Revolve). Saturates on overflow.
pub fn binomial_steps(trips: u64, snapshots: u64) -> u64 {
    if trips <= 1 {
        return 0;
    }
    if snapshots == 0 {
        return trips * (trips - 1) / 2;
    }
    let binom = |n: u64, k: u64| -> u128 {
        let mut r: u128 = 1;
        for i in 0..k.min(n - k) {
            r = r * (n - i) as u128 / (i + 1) as u128;
            if r > u64::MAX as u128 {
                return u128::MAX;
            }
        }
        r
    };
    let mut r = 0;
    while binom(snapshots + r, snapshots) < trips as u128 {
        r += 1;
    }
    let t = (r as u128) * trips as u128 - binom(snapshots + r, snapshots + 1).min(u128::MAX / 2);
    t.min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_matches_the_closed_form_values() {
        // T = 10, c = 2: r = 3 (C(5,2) = 10), t = 30 − C(5,3) = 20.
        assert_eq!(binomial_steps(10, 2), 20);
        // Enough snapshots for every state: r = 1, t = T − 1... C(c+1, c+1) = 1.
        assert_eq!(binomial_steps(5, 5), 4);
        assert_eq!(periodic_steps(10, 3), 3 * 2);
        assert_eq!(periodic_steps(9, 3), 3 * 2);
    }
}
