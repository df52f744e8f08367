//! Test support shared by every crate's tests (cargo feature `testing`, enabled only as a
//! dev-dependency): one IR builder ([`builder`]) and one reference interpreter ([`interp`]).
//!
//! The interpreter is the oracle of the IR-level tests: adjoints are checked against finite
//! differences of the primal run through it (autodiff's dot-product tests), and passes
//! against the function they rewrite (same outputs, map iterations in both orders, races
//! detected). It is strict where a C compiler would be lenient (see its module docs), so a
//! wrong IR fails there rather than as a wrong number in C.

pub mod builder;
pub mod interp;
