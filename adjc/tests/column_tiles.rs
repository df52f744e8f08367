//! Column sweeps in tiles (autodiff/src/column_tiles.rs): a map over the columns of a
//! matrix whose body walks its rows runs over tiles of 32 columns, the row loop outside the
//! tile's columns (unit stride). The statistics kernels keep their gradients, serial and with
//! OpenMP at 3 threads with every parallel copy forced on (70 columns: two full tiles and a
//! partial one, so a wrong tile bound or a scalar shared by a tile's columns fails the check).
//! A row recurrence over independent columns (deriche) runs per tile of columns too. A map
//! with more dimensions than the columns (resnet's batch norm over NHWC images: the batch is
//! the row loop, the channels the columns) tiles its last dimension and keeps the others.

mod common;

use common::{adjc, adjc_parallel_copies, scratch, text};

/// The loop header that encloses the first line of `c` containing `needle`, then the one
/// around it.
fn loops_around(c: &str, needle: &str) -> (String, String) {
    let mut open: Vec<String> = Vec::new();
    for l in c.lines() {
        let t = l.trim();
        if t.contains(needle) {
            let n = open.len();
            assert!(n >= 2, "`{needle}` is not in two loops:\n{c}");
            return (open[n - 1].clone(), open[n - 2].clone());
        }
        if t.starts_with('}') {
            open.pop();
        }
        if t.ends_with('{') {
            open.push(t.to_string());
        }
    }
    panic!("no `{needle}` in\n{c}");
}

#[test]
fn column_reductions_run_along_rows_in_tiles() {
    let dir = scratch("column-tiles-correlation");
    let out = adjc(&[
        "transpile",
        "examples/python/correlation.py",
        "--wrt",
        "data",
        "--of",
        "ret",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("correlation.c")).unwrap();
    let adj = &c[c.find("\nint correlation_b(").unwrap()..];
    // The adjoint of `data -= mean`: mean_b reduces over the rows of every column.
    let (inner, outer) = loops_around(adj, "mean_b[k] -= data_b_(j, k);");
    assert_eq!(inner, "for (int64_t k = k_tile * 32; k < adjc_min_i64(k_tile * 32 + 32, data_n1); k++) {", "{adj}");
    assert_eq!(outer, "for (int64_t j = 0; j < data_n0; j++) {", "{adj}");
    assert!(adj.contains("for (int64_t k_tile = 0; k_tile < (data_n1 + 31) / 32; k_tile++) {"), "{adj}");
    // The forward's np.mean too.
    let fwd = &c[c.find("\nint correlation(").unwrap()..];
    let (inner, _) = loops_around(fwd, "mean[j] += data_(k, j);");
    assert!(inner.starts_with("for (int64_t j = j_tile * 32;"), "{fwd}");
}

/// Deriche's recursive filters run down the rows with a recurrence in each column: the
/// columns are independent, so the row loop runs inside a parallel map over tiles of columns
/// (in both sweeps) instead of a parallel region or two barriers per row.
#[test]
fn row_recurrences_run_per_tile_of_columns() {
    let dir = scratch("column-tiles-deriche");
    let out = adjc(&[
        "transpile",
        "examples/python/deriche.py",
        "--wrt",
        "imgIn",
        "--of",
        "ret",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("deriche.c")).unwrap();
    let adj = &c[c.find("\nint deriche_b(").unwrap()..];
    let (inner, outer) = loops_around(adj, "y2_tmp_1_b[l] += y2_b_(i, l);");
    assert_eq!(inner, "for (int64_t l = l_tile * 32; l < adjc_min_i64(l_tile * 32 + 32, imgIn_n1); l++) {", "{adj}");
    assert_eq!(outer, "for (int64_t i = 0; i < imgIn_n0 - 2; i++) {", "{adj}");
    let tile = adj.find("for (int64_t l_tile = 0; l_tile < (imgIn_n1 + 31) / 32; l_tile++) {").expect("a tile map");
    assert!(adj[..tile].trim_end().ends_with("ADJC_OMP(parallel for)"), "{adj}");
}

#[test]
fn tiled_sweeps_keep_the_gradient_at_3_threads() {
    for (file, sizes, init) in [
        ("column_stats", "N=9,M=70", "x=uniform(0,4)"),
        ("correlation", "M=70,data_n0=11,data_n1=70", "data=uniform(0,4)"),
        ("covariance", "M=66,data_n0=7,data_n1=70", "data=uniform(-1,1)"),
        ("deriche", "imgIn_n0=9,imgIn_n1=70", "alpha=const(0.25)"),
    ] {
        let path = format!("examples/python/{file}.py");
        let floatn = if file == "column_stats" || file == "deriche" {
            None
        } else {
            Some(format!("float_n=const({})", if file == "correlation" { "11.0" } else { "7.0" }))
        };
        for openmp in [false, true] {
            let mut args = vec!["check", path.as_str(), "--sizes", sizes, "--init", init];
            if let Some(f) = &floatn {
                args.extend(["--init", f.as_str()]);
            }
            if openmp {
                args.push("--openmp");
            }
            let out = if openmp { adjc_parallel_copies(&args) } else { adjc(&args) };
            let t = text(&out);
            assert!(out.status.success() && t.contains("check passed"), "{file} (openmp {openmp}):\n{t}");
        }
    }
}

#[test]
fn batch_norm_over_images_runs_along_channels_in_tiles() {
    let dir = scratch("column-tiles-resnet");
    let out =
        adjc(&["transpile", "examples/python/resnet.py", "--wrt", "input", "--of", "ret", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("resnet.c")).unwrap();
    // np.mean(x, axis=0): the batch loop outside the channels of a tile, each pixel a map
    // dimension above the tiles.
    let (inner, outer) = loops_around(&c, "batchnorm2d1_mean_(0, l, m, n) += padded_(p, l, m, n);");
    assert_eq!(inner, "for (int64_t n = n_tile * 32; n < adjc_min_i64(n_tile * 32 + 32, C_out); n++) {", "{c}");
    assert_eq!(outer, "for (int64_t p = 0; p < N; p++) {", "{c}");
    assert!(c.contains("for (int64_t m = 0; m < input_n2 + 2; m++) {\n            for (int64_t n_tile = 0; n_tile < (C_out + 31) / 32; n_tile++) {"), "{c}");
    // The adjoint's reduction over the batch into mean_b and std_b, likewise.
    let adj = &c[c.find("\nint resnet_basicblock_b(").unwrap()..];
    // (Its channel loop's header is wrapped over two lines: search back from the update.)
    let before = &adj[..adj.find("batchnorm2d3_mean_b_(0, l, m, n) -=").expect("the mean_b update")];
    let tiles = before.rfind("for (int64_t n_tile = 0; n_tile < (input_n3 + 31) / 32; n_tile++) {").unwrap();
    let batch = before.rfind("for (int64_t k = 0; k < N; k++) {").unwrap();
    let channels = before.rfind("for (int64_t n = n_tile * 32;").unwrap();
    assert!(tiles < batch && batch < channels, "{adj}");
    assert!(!before[channels..].contains('}'), "{adj}");
    // Two tiles and a partial one of channels, serial and at 3 threads.
    let sizes = "N=3,input_n1=3,input_n2=4,input_n3=70,C_out=67,conv2_n0=3,conv2_n3=5";
    for openmp in [false, true] {
        let mut args = vec!["check", "examples/python/resnet.py", "--wrt", "input", "--of", "ret", "--sizes", sizes];
        if openmp {
            args.push("--openmp");
        }
        let out = if openmp { adjc_parallel_copies(&args) } else { adjc(&args) };
        let t = text(&out);
        assert!(out.status.success() && t.contains("check passed"), "resnet (openmp {openmp}):\n{t}");
    }
}

/// Column-major arrays tile along their first axis (Fortran's unit stride): mvt's and
/// correlation's Fortran versions at 70 columns keep their gradients, serial and at 3 threads.
#[test]
fn fortran_column_major_tiles_keep_the_gradient() {
    let dir = scratch("column-tiles-fortran");
    let out = adjc(&["transpile", "examples/fortran/mvt.f90", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("mvt.c")).unwrap();
    assert!(c.contains("for (int64_t i_tile = 0; i_tile < (n + 31) / 32; i_tile++) {"), "{c}");
    for (file, sizes) in [("mvt", "n=70"), ("correlation", "m=70,n=9")] {
        let path = format!("examples/fortran/{file}.f90");
        for openmp in [false, true] {
            let mut args = vec!["check", path.as_str(), "--sizes", sizes];
            if openmp {
                args.push("--openmp");
            }
            let out = if openmp { adjc_parallel_copies(&args) } else { adjc(&args) };
            let t = text(&out);
            assert!(out.status.success() && t.contains("check passed"), "{file} (openmp {openmp}):\n{t}");
        }
    }
}
