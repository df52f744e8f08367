//! Source names C cannot use as they are (keywords, libm and POSIX functions, macros, the
//! runtime's prefix, and `forward`/`data`, names the check driver once used itself): the
//! gradient check passes, serial and with OpenMP, and the header lists every rename.

mod common;

use common::{adjc, scratch, text};

const EXPECTED_RENAMES: &[&str] = &[
    "renamed: I → I_ (collides with complex.h)",
    "renamed: y1 → y1_ (collides with math.h)",
    "renamed: int → int_ (is a C keyword)",
    "renamed: double → double_ (is a C keyword)",
    "renamed: j0 → j0_ (collides with math.h)",
    "renamed: exp → exp_ (collides with math.h)",
    "renamed: main → main_ (is the C program entry point)",
    "renamed: free → free_ (collides with stdlib.h)",
    "renamed: adjc_k → u_adjc_k (is reserved for the adjc runtime)",
];

#[test]
fn renamed_identifiers_pass_the_check_and_are_listed_in_the_header() {
    for openmp in [false, true] {
        let dir = scratch(if openmp { "renames-omp" } else { "renames" });
        let keep = dir.to_str().unwrap();
        let mut args = vec!["check", "tests/inputs/renames.py", "--sizes", "double_n0=5,j0=3", "--keep", keep];
        if openmp {
            args.push("--openmp");
        }
        let out = adjc(&args);
        let t = text(&out);
        assert!(out.status.success(), "adjc {}\n{t}", args.join(" "));
        assert!(t.contains("check passed"), "{t}");
        // Every float input is differentiated under its source name.
        for name in ["I", "y1", "int", "double", "exp", "data"] {
            let line = t.lines().find(|l| l.trim_start().starts_with(&format!("d/d{name} ")));
            assert!(line.is_some_and(|l| l.trim_end().ends_with("ok")), "d/d{name}:\n{t}");
        }
        let header = std::fs::read_to_string(dir.join("renames.h")).unwrap();
        for r in EXPECTED_RENAMES {
            assert!(header.contains(&format!(" *   {r}\n")), "`{r}` missing from the header:\n{header}");
        }
        // The entry keeps its name: `forward` is valid C, and the driver's own names are prefixed.
        assert!(header.contains("int forward(int64_t double_n0, double I_, double y1_, double int_, double *double_,"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
