//! `--fixed-point LOOP[:tol=T][:max=K]`: reverse the `while` loop LOOP as a fixed-point
//! iteration (Christianson's two-phase method, `adjc_autodiff::fixed_point`) instead of
//! taping its trips. LOOP is the loop's source line or its id `L<k>` as `--max-trips`
//! takes it; `tol` is the relative tolerance of the adjoint iteration (default 1e-12),
//! `max` the most adjoint passes (default 10000).

use crate::checkpoint_flag::LoopRef;
use adjc_autodiff::{FixedPoint, LoopId};
use adjc_ir::{Diagnostic, Function};
use std::collections::BTreeMap;

const FORM: &str = "expected LOOP[:tol=T][:max=K], LOOP a source line or a loop id L<k>";

pub fn parse(flags: &[String]) -> Result<Vec<(LoopRef, FixedPoint)>, String> {
    flags.iter().map(|f| parse_one(f).map_err(|e| format!("--fixed-point {f}: {e}"))).collect()
}

fn parse_one(flag: &str) -> Result<(LoopRef, FixedPoint), String> {
    let mut parts = flag.split(':');
    let lp = parts.next().unwrap_or_default().trim();
    let r = if lp.starts_with('L') {
        LoopRef::Id(lp.parse().map_err(|_| FORM.to_string())?)
    } else {
        LoopRef::Line(lp.parse().map_err(|_| FORM.to_string())?)
    };
    let mut fp = FixedPoint::default();
    for opt in parts {
        let (key, value) = opt.split_once('=').ok_or(FORM)?;
        match key.trim() {
            "tol" => {
                let t: f64 = value.trim().parse().map_err(|_| format!("tol: `{value}` is not a number"))?;
                if !(t > 0.0 && t < 1.0) {
                    return Err(format!("tol: {t} is not between 0 and 1 (exclusive)"));
                }
                fp.tol = t;
            }
            "max" => {
                let k: u64 = value.trim().parse().map_err(|_| format!("max: `{value}` is not a positive integer"))?;
                if k == 0 || k > i64::MAX as u64 {
                    return Err("max: the number of passes must be at least 1".into());
                }
                fp.max_passes = k;
            }
            other => return Err(format!("unknown option `{other}` ({FORM})")),
        }
    }
    Ok((r, fp))
}

/// The `while` loops the flags name in `f` (the function given to `reverse`).
pub fn resolve(f: &Function, specs: &[(LoopRef, FixedPoint)]) -> Result<BTreeMap<LoopId, FixedPoint>, Diagnostic> {
    crate::max_trips_flag::resolve_whiles(f, specs, "--fixed-point", "options")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        let (r, fp) = parse_one("L3").unwrap();
        assert_eq!(r, LoopRef::Id(LoopId(3)));
        assert_eq!(fp, FixedPoint::default());
        let (r, fp) = parse_one("14:tol=1e-10:max=50").unwrap();
        assert_eq!(r, LoopRef::Line(14));
        assert_eq!(fp, FixedPoint { tol: 1e-10, max_passes: 50 });
        assert!(parse_one("L3:tol=2").is_err());
        assert!(parse_one("L3:max=0").is_err());
        assert!(parse_one("L3:every=2").is_err());
        assert!(parse_one("x").is_err());
    }
}
