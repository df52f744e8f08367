//! Large runtime blocks ask Linux for transparent huge pages (`adjc_advise_huge_` in
//! `runtime-c/adjc_runtime.h`). The hint must never change what a block holds, and the
//! runtime's own `madvise` declaration must compile next to `<sys/mman.h>` (included before
//! or after it, with or without `_DEFAULT_SOURCE`) under `-std=c11 -Wall -Wextra -Werror`,
//! with and without `-fopenmp` and with the hint turned off.

mod common;

use common::{adjc, scratch, text};
use std::process::Command;

/// A driver that allocates blocks on both sides of the threshold (and an odd size, so the
/// 2 MiB-aligned part is strictly inside the block), fills and checks every element.
const DRIVER: &str = r#"
PRELUDE
#include <stdio.h>
#include "adjc_runtime.h"
POSTLUDE

static int fill_and_check(int64_t n)
{
    double *p = (double *)adjc_alloc_tape(sizeof(double), ADJC_DIMS(n));
    if (p == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        p[i] = (double)i * 0.5;
    }
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        ok &= p[i] == (double)i * 0.5;
    }
    adjc_free(p);
    return ok;
}

int main(void)
{
    int ok = fill_and_check(1000) && fill_and_check((int64_t)3 << 20) && fill_and_check(((int64_t)1 << 19) + 3);
    printf(ok ? "all ok\n" : "wrong values\n");
    return ok ? 0 : 1;
}
"#;

#[test]
fn huge_page_hint_compiles_everywhere_and_keeps_values() {
    let dir = scratch("hugepages");
    let o = adjc(&["runtime", "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let variants: [(&str, &str, &str); 4] = [
        ("plain", "", ""),
        ("mman_before", "#define _DEFAULT_SOURCE\n#include <sys/mman.h>", ""),
        ("mman_after", "", "#include <sys/mman.h>"),
        ("mman_posix", "#define _POSIX_C_SOURCE 200809L\n#include <sys/mman.h>", ""),
    ];
    for (name, pre, post) in variants {
        let src = DRIVER.replace("PRELUDE", pre).replace("POSTLUDE", post);
        std::fs::write(dir.join(format!("{name}.c")), src).unwrap();
        for flags in [&[][..], &["-fopenmp"][..], &["-DADJC_NO_HUGEPAGES"][..], &["-DADJC_HUGEPAGE_MIN_BYTES=0"][..]] {
            let exe = dir.join(format!("{name}{}", flags.join("").replace(['-', '='], "_")));
            let c = Command::new("cc")
                .current_dir(&dir)
                .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I."])
                .args(flags)
                .arg(format!("{name}.c"))
                .arg("-o")
                .arg(&exe)
                .arg("-lm")
                .output()
                .expect("run cc");
            assert!(c.status.success(), "cc {name} {flags:?}: {}", text(&c));
            let r = Command::new(&exe).output().expect("run driver");
            assert!(r.status.success() && text(&r).contains("all ok"), "{name} {flags:?}: {}", text(&r));
        }
    }
}
