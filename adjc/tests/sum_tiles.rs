//! Row sums written in tiles (emit/src/sum_tiles.rs): a convolution's sum over its window
//! and input channels into each output pixel's channels keeps `ADJC_SUM_TILE` partial sums
//! in a local array, then half a tile, then the channels left run as written. The examples'
//! own check sizes have fewer than 8 output channels (no tile at all), so these checks use
//! channel counts that reach every part: 9 to 17 channels with the default tile of 16, and
//! `-DADJC_SUM_TILE=4` (several whole tiles, a half tile or not, a remainder of 0 or 1),
//! serial and with OpenMP; `adjc check` compares the forward with NumPy and the adjoint with finite
//! differences.

mod common;

use common::{adjc, root, scratch, text};
use std::process::Command;

fn transpile(path: &str, extra: &[&str]) -> String {
    let dir = scratch(&format!("sum-tiles-{}", path.replace(['/', '.'], "-")));
    let mut args = vec!["transpile", path, "-o", dir.to_str().unwrap()];
    args.extend(extra);
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    let stem = std::path::Path::new(path).file_stem().unwrap().to_str().unwrap();
    std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap()
}

#[test]
fn a_convolution_sums_each_pixel_in_a_tile_of_registers() {
    let c = transpile("examples/python/conv2d_bias.py", &[]);
    let tile = "\
                    int64_t l_tile = 0;
                    for (; l_tile <= C_out - ADJC_SUM_TILE; l_tile += ADJC_SUM_TILE) {
                        double output_sum[ADJC_SUM_TILE];
                        ADJC_OMP(simd)
                        for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE; l++) {
                            output_sum[l - l_tile] = 0.0;
                        }
                        for (int64_t m = i; m < K + i; m++) {
                            for (int64_t n = j; n < K + j; n++) {
                                for (int64_t p = 0; p < input_n3; p++) {
                                    ADJC_OMP(simd)
                                    for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE; l++) {
                                        output_sum[l - l_tile] +=
                                                input_(k, m, n, p) * weights_(m - i, n - j, p, l);
                                    }
                                }
                            }
                        }
                        ADJC_OMP(simd)
                        for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE; l++) {
                            output_(k, i, j, l) = output_sum[l - l_tile];
                        }
                    }
                    if (l_tile <= C_out - ADJC_SUM_TILE / 2) {
                        double output_sum[ADJC_SUM_TILE / 2];
                        ADJC_OMP(simd)
                        for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE / 2; l++) {
                            output_sum[l - l_tile] = 0.0;
                        }
                        for (int64_t m = i; m < K + i; m++) {
                            for (int64_t n = j; n < K + j; n++) {
                                for (int64_t p = 0; p < input_n3; p++) {
                                    ADJC_OMP(simd)
                                    for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE / 2; l++) {
                                        output_sum[l - l_tile] +=
                                                input_(k, m, n, p) * weights_(m - i, n - j, p, l);
                                    }
                                }
                            }
                        }
                        ADJC_OMP(simd)
                        for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE / 2; l++) {
                            output_(k, i, j, l) = output_sum[l - l_tile];
                        }
                        l_tile += ADJC_SUM_TILE / 2;
                    }
                    if (l_tile < C_out) {
                        ADJC_OMP(simd)
                        for (int64_t l = l_tile; l < C_out; l++) {
                            output_(k, i, j, l) = 0.0;
                        }";
    assert!(c.contains(tile), "{c}");
    // Forward function and the adjoint's forward sweep, nothing else.
    assert_eq!(c.matches("double output_sum[ADJC_SUM_TILE];").count(), 2, "{c}");
    assert_eq!(c.matches("double output_sum[ADJC_SUM_TILE / 2];").count(), 2, "{c}");
}

#[test]
fn a_sum_over_fresh_rows_of_data_is_not_tiled() {
    // Each output row sums its own slab of A: tiles would walk A with a stride of a row
    // per step. And a column sum (one row of sums over all the data) is not a tile's shape.
    let dir = scratch("sum-tiles-fresh");
    let src = dir.join("slab_sums.py");
    std::fs::write(
        &src,
        "import numpy as np\n\n\ndef slab_sums(A: \"float64[I, R, L]\", B: \"float64[R, L]\"):\n    \
         return np.sum(A, axis=1), np.sum(B, axis=0)\n",
    )
    .unwrap();
    let c = transpile(src.to_str().unwrap(), &[]);
    assert!(!c.contains("ADJC_SUM_TILE"), "{c}");
    let out = adjc(&["check", src.to_str().unwrap(), "--sizes", "I=3,R=4,L=11"]);
    assert!(out.status.success() && text(&out).contains("check passed"), "{}", text(&out));
}

/// `adjc check` of `example` at `sizes`, with `cflags` appended to `$CFLAGS`.
fn check(example: &str, sizes: &str, cflags: &str, openmp: bool) {
    let path = format!("examples/python/{example}.py");
    let mut args = vec!["check", path.as_str(), "--wrt", "input", "--of", "ret", "--sizes", sizes];
    let mut flags = format!("{} {cflags}", std::env::var("CFLAGS").unwrap_or_default());
    if openmp {
        args.push("--openmp");
        flags.push_str(" -DADJC_OMP_MIN_WORK=0");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_adjc"))
        .current_dir(root())
        .args(&args)
        .env("CFLAGS", flags.trim())
        .env("OMP_NUM_THREADS", "3")
        .output()
        .expect("run adjc");
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "adjc {} ({cflags}):\n{t}", args.join(" "));
    let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
    assert!(grads > 0, "no gradient was checked:\n{t}");
}

#[test]
fn tiled_convolutions_pass_the_gradient_check_with_whole_tiles_and_a_remainder() {
    // Every part of the tile code in each kernel, with the CI time in mind: conv2d_bias in all
    // four builds, the other two in two.
    let cases = [
        ("conv2d_bias", "N=2,input_n1=6,input_n2=6,input_n3=2,K=3,C_out=11", "", false),
        ("conv2d_bias", "N=2,input_n1=6,input_n2=6,input_n3=2,K=3,C_out=11", "", true),
        ("conv2d_bias", "N=2,input_n1=6,input_n2=6,input_n3=2,K=3,C_out=11", "-DADJC_SUM_TILE=4", false),
        ("conv2d_bias", "N=2,input_n1=6,input_n2=6,input_n3=2,K=3,C_out=11", "-DADJC_SUM_TILE=4", true),
        ("resnet", "N=3,input_n1=4,input_n2=4,input_n3=9,C_out=10,conv2_n0=3,conv2_n3=9", "", true),
        ("resnet", "N=3,input_n1=4,input_n2=4,input_n3=9,C_out=10,conv2_n0=3,conv2_n3=9", "-DADJC_SUM_TILE=4", false),
        ("lenet", "N=2,H=12,W=12,K=3,C1=9,C2=17,F1=5,F2=4,F3=3", "", false),
        ("lenet", "N=2,H=12,W=12,K=3,C1=9,C2=17,F1=5,F2=4,F3=3", "-DADJC_SUM_TILE=4", true),
    ];
    for (example, sizes, cflags, openmp) in cases {
        check(example, sizes, cflags, openmp);
    }
}
