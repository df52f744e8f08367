//! `adjc review` (issue 16 part 2): the review page of a Python BLAS kernel, a stencil whose
//! time loop is checkpointed under a memory limit, and a Fortran kernel, with `--check` (the
//! pages and screenshots of README; `scripts/review_screenshots.sh` regenerates those).
//! Each page is self-contained (no `http`, no external script), links C lines to source
//! lines, tabulates what the adjoint stores and draws the memory timeline. In headless
//! Chromium the page's `#selftest` clicks a source line and an adjoint line and checks what
//! lights up against the generator's count; a screenshot of each page is kept in
//! `target/review-shots/` (the test's artifact); `tidy` validates the HTML.
//!
//! The browser and validator parts are skipped (saying so) without `chromium` and `tidy`,
//! unless `ADJC_REQUIRE_CHROMIUM` is set (CI installs both).

mod common;

use std::path::Path;
use std::process::Command;

use common::{adjc, have, root, scratch, text};

const PAGES: &[(&str, &[&str])] = &[
    ("gemm", &["examples/python/gemm.py", "--sizes", "NI=7,NJ=6,NK=5"]),
    (
        "reaction_diffusion",
        &["examples/python/reaction_diffusion.py", "--sizes", "u_n0=24,TSTEPS=50", "--memory-limit", "4KiB"],
    ),
    ("energy_f90", &["examples/fortran/energy.f90", "--sizes", "n=9,m=5"]),
];

fn browser_checks(page: &Path, shot: &Path) {
    let url = format!("file://{}#selftest", page.display());
    let dom = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", &url])
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&dom.stdout);
    let result = dom.split("id=\"selftest\"").nth(1).unwrap_or("");
    assert!(result.contains("selftest: ok"), "{}: {}", page.display(), &result[..result.len().min(400)]);
    let size = "--window-size=1500,1000";
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", size])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(out.status.success() && shot.exists(), "screenshot of {}", page.display());
    // The print styles: the page prints to PDF (the columns one after another).
    let pdf = shot.with_extension("pdf");
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer"])
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    let printed = std::fs::read(&pdf).unwrap_or_default();
    assert!(out.status.success() && printed.starts_with(b"%PDF"), "print of {} to PDF", page.display());
    let tidy = Command::new("tidy").args(["-q", "-e"]).arg(page).output().expect("run tidy");
    assert!(tidy.status.success(), "tidy {}:\n{}", page.display(), String::from_utf8_lossy(&tidy.stderr));
}

#[test]
fn review_pages_link_source_and_c_and_pass_in_a_browser() {
    let browser = have("chromium") && have("tidy");
    if !browser {
        assert!(std::env::var_os("ADJC_REQUIRE_CHROMIUM").is_none(), "chromium and tidy are required");
        eprintln!("SKIPPED: the browser checks need chromium and tidy");
    }
    let dir = scratch("review");
    let shots = root().join("target/review-shots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, args) in PAGES {
        let page = dir.join(format!("{name}.html"));
        let mut all = vec!["review"];
        all.extend(args.iter());
        all.extend(["--check", "-o", page.to_str().unwrap()]);
        let out = adjc(&all);
        assert!(out.status.success(), "adjc {}\n{}", all.join(" "), text(&out));
        let html = std::fs::read_to_string(&page).unwrap();
        let own = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(
            !own.contains("http") && !own.contains("<script src") && !own.contains("<link "),
            "{name}: external resources"
        );
        assert!(html.contains("data-src=") && html.contains("id=\"adj-1\""), "{name}: no linked lines");
        assert!(html.contains("What the adjoint stores") && html.contains("<svg"), "{name}: no plan or timeline");
        assert!(html.contains("check passed"), "{name}: no check evidence");
        if browser {
            browser_checks(&page, &shots.join(format!("{name}.png")));
        }
    }
    // The C shown is what `adjc transpile` writes with the same flags: the store-all plan made
    // for the table (sizes, no memory flags) adds no plan guard to it.
    let f90 = std::fs::read_to_string(dir.join("energy_f90.html")).unwrap();
    assert!(!f90.contains("ADJC_ERR_PLAN") && f90.contains("strategy store-all"), "the page's C was planned");
    // Each tape says which overwritten value it saves and which adjoint statement reads it.
    assert!(
        f90.contains("saves dot before line 14 overwrites it; read by the adjoint of line 14"),
        "no reason for dot_tape"
    );
    // Under 4 KiB the stencil's time loop is checkpointed: the table says how.
    let rd = std::fs::read_to_string(dir.join("reaction_diffusion.html")).unwrap();
    assert!(
        rd.contains("checkpoint binomial:") && rd.contains("memory limit 4096 bytes (4.0 KiB)"),
        "no schedule or limit"
    );
    // The loop's row gives what its schedule holds and the forward work it does again; the
    // tapes inside it are held one segment at a time; the timeline outlines store-all.
    assert!(rd.contains("held: 3872 bytes (3.8 KiB) (snapshots and one segment") && rd.contains(">31900<"), "loop row");
    assert!(rd.contains("store, one segment at a time (L0 is checkpointed)"), "tapes in the checkpointed loop");
    assert!(rd.contains("17600 bytes (17.2 KiB) if everything were stored"), "no store-all outline");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn review_without_sizes_still_links_lines() {
    let dir = scratch("review-nosizes");
    let out = adjc(&["review", "examples/python/jacobi_1d.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let html = std::fs::read_to_string(dir.join("jacobi_1d.review.html")).unwrap();
    assert!(html.contains("data-src=\"") && html.contains("give <code>--sizes</code>"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn review_diff_marks_the_source_lines_whose_c_changed() {
    let dir = scratch("review-diff");
    let src = dir.join("jacobi_1d.py");
    std::fs::copy(root().join("examples/python/jacobi_1d.py"), &src).unwrap();
    let old = dir.join("reviewed");
    let out = adjc(&["transpile", src.to_str().unwrap(), "-o", old.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    // Unchanged: nothing to re-review.
    let page = dir.join("page.html");
    let review = |page: &Path| {
        let out =
            adjc(&["review", src.to_str().unwrap(), "--diff", old.to_str().unwrap(), "-o", page.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        std::fs::read_to_string(page).unwrap()
    };
    assert!(review(&page).contains("no source line's generated C changed"));
    // One statement's coefficient changes (source line 8): its C lines, and no others but
    // those of the loops around it, are marked.
    let edited = std::fs::read_to_string(&src).unwrap().replacen("A[1:-1] = 0.33333", "A[1:-1] = 0.25", 1);
    std::fs::write(&src, edited).unwrap();
    let html = review(&page);
    assert!(html.contains("data-goto=\"8\">8</a>"), "line 8 not marked");
    assert!(!html.contains("data-goto=\"7\">7</a>"), "line 7 marked though its C did not change");
    assert!(html.contains("id=\"src-8\" data-src=\"8\"") && html.contains("linked changed\" id=\"src-8\""));
    let _ = std::fs::remove_dir_all(&dir);
}
