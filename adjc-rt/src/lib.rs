//! The runtime of the Rust bindings that `adjc-build` writes for adjc's generated C.
//!
//! Every generated C function returns a status code (`ADJC_OK`, `ADJC_ERR_ALLOC`,
//! `ADJC_ERR_SHAPE`, `ADJC_ERR_PLAN`; see the generated header). The safe wrappers turn it
//! into a `Result<(), Error>`, after checking what C cannot: that every slice is as long as
//! the sizes say and that the sizes fit the C types. Kept free of dependencies, so a crate
//! that calls generated kernels pays for nothing else.

use std::fmt;

/// Why a call of a generated function failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `ADJC_ERR_ALLOC`: a work array or a stack tape could not be allocated.
    Alloc { function: &'static str },
    /// `ADJC_ERR_SHAPE`: the sizes break a shape rule of the source (checked on entry,
    /// before anything is written).
    Shape { function: &'static str },
    /// `ADJC_ERR_PLAN`: a size exceeds the sizes the memory plan was made for.
    Plan { function: &'static str },
    /// A status code this version does not know.
    Status { function: &'static str, code: i32 },
    /// A slice's length is not the number of elements its shape gives.
    Length { function: &'static str, argument: &'static str, expected: usize, found: usize },
    /// A size does not fit the C's `int64_t`, or an array's element count does not fit
    /// `usize`.
    Size { function: &'static str, argument: &'static str, value: i128 },
    /// An extent's formula cannot be evaluated for these sizes (overflow, division by 0).
    Extent { function: &'static str, argument: &'static str },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Alloc { function } => write!(f, "{function}: a work array or stack tape could not be allocated"),
            Error::Shape { function } => {
                write!(f, "{function}: the sizes passed break a shape rule of the source (see the header)")
            }
            Error::Plan { function } => {
                write!(f, "{function}: a size exceeds the sizes its memory plan was made for")
            }
            Error::Status { function, code } => write!(f, "{function}: unknown status code {code}"),
            Error::Length { function, argument, expected, found } => {
                write!(f, "{function}: `{argument}` has {found} elements where its shape gives {expected}")
            }
            Error::Size { function, argument, value } => {
                write!(f, "{function}: the size of `{argument}` is {value}: too large")
            }
            Error::Extent { function, argument } => {
                write!(f, "{function}: an extent of `{argument}` cannot be computed for these sizes")
            }
        }
    }
}

impl std::error::Error for Error {}

/// The `Result` of a generated function's status code.
pub fn status(function: &'static str, code: i32) -> Result<(), Error> {
    match code {
        0 => Ok(()),
        1 => Err(Error::Alloc { function }),
        2 => Err(Error::Shape { function }),
        3 => Err(Error::Plan { function }),
        code => Err(Error::Status { function, code }),
    }
}

/// The number of elements of an array whose extents are `extents` (a negative extent is an
/// empty axis, as in C's loops), evaluated by the bindings with checked arithmetic: `None`
/// is an extent that could not be computed.
pub fn elements(function: &'static str, argument: &'static str, extents: &[Option<i128>]) -> Result<usize, Error> {
    let mut n: i128 = 1;
    for e in extents {
        let e = e.ok_or(Error::Extent { function, argument })?;
        n = n.checked_mul(e.max(0)).ok_or(Error::Extent { function, argument })?;
    }
    usize::try_from(n).map_err(|_| Error::Size { function, argument, value: n })
}

/// `Ok` when a slice of `found` elements has the `expected` number.
pub fn check_len(function: &'static str, argument: &'static str, expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::Length { function, argument, expected, found })
    }
}

/// `Ok` when a slice of `found` elements holds the array whose extents are `extents` (see
/// [`elements`]).
pub fn check_slice(
    function: &'static str,
    argument: &'static str,
    extents: &[Option<i128>],
    found: usize,
) -> Result<(), Error> {
    check_len(function, argument, elements(function, argument, extents)?, found)
}

/// A size given as `usize` to the C's `int64_t`.
pub fn size(function: &'static str, argument: &'static str, value: usize) -> Result<i64, Error> {
    i64::try_from(value).map_err(|_| Error::Size { function, argument, value: value as i128 })
}

/// Python's `//` on integers (floor division), as the source's shape formulas mean it;
/// `None` for a zero divisor.
pub fn floor_div(a: i128, b: i128) -> Option<i128> {
    let (q, r) = (a.checked_div(b)?, a.checked_rem(b)?);
    Some(if r != 0 && ((r < 0) != (b < 0)) { q - 1 } else { q })
}

/// Python's `%` on integers (the sign of the divisor); `None` for a zero divisor.
pub fn py_mod(a: i128, b: i128) -> Option<i128> {
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_map_to_errors() {
        assert_eq!(status("f", 0), Ok(()));
        assert_eq!(status("f", 1), Err(Error::Alloc { function: "f" }));
        assert_eq!(status("f", 2), Err(Error::Shape { function: "f" }));
        assert_eq!(status("f", 3), Err(Error::Plan { function: "f" }));
        assert_eq!(status("f", 9), Err(Error::Status { function: "f", code: 9 }));
        assert!(status("f", 2).unwrap_err().to_string().contains("shape rule"));
    }

    #[test]
    fn element_counts_clamp_and_overflow() {
        assert_eq!(elements("f", "A", &[Some(3), Some(4)]), Ok(12));
        assert_eq!(elements("f", "A", &[Some(3), Some(-1)]), Ok(0));
        assert_eq!(elements("f", "A", &[]), Ok(1));
        assert_eq!(elements("f", "A", &[Some(3), None]), Err(Error::Extent { function: "f", argument: "A" }));
        let huge = Some(i128::from(i64::MAX));
        assert!(matches!(elements("f", "A", &[huge, huge, huge]), Err(Error::Extent { .. } | Error::Size { .. })));
        assert_eq!(size("f", "N", 5), Ok(5));
        assert_eq!(check_slice("f", "A", &[Some(2), Some(3)], 6), Ok(()));
        assert!(matches!(
            check_slice("f", "A", &[Some(2), Some(3)], 5),
            Err(Error::Length { expected: 6, found: 5, .. })
        ));
        assert_eq!(
            check_len("f", "A", 12, 11),
            Err(Error::Length { function: "f", argument: "A", expected: 12, found: 11 })
        );
    }

    #[test]
    fn python_integer_division() {
        for (a, b) in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3)] {
            let (q, r) = (floor_div(a, b).unwrap(), py_mod(a, b).unwrap());
            assert_eq!(q * b + r, a, "{a} {b}");
            assert!(r == 0 || (r < 0) == (b < 0), "{a} {b}");
        }
        assert_eq!(floor_div(-7, 2), Some(-4));
        assert_eq!(py_mod(-7, 2), Some(1));
        assert_eq!(floor_div(1, 0), None);
    }
}
