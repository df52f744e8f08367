//! Whole generated files for hand-built IR, reviewed once and then pinned.

mod common;

use common::*;

fn both(stem: &str, m: &adjc_ir::Module) -> String {
    let files = emit(m, stem);
    format!("// ===== {stem}.h =====\n{}\n// ===== {stem}.c =====\n{}", files.h, files.c)
}

#[test]
fn jacobi_1d_map_stencil_in_a_time_loop() {
    insta::assert_snapshot!("jacobi_1d", both("jacobi_1d", &jacobi_1d()));
}

#[test]
fn heat_2d_collapsed_map_with_index_macros() {
    insta::assert_snapshot!("heat", both("heat", &heat_2d()));
}

#[test]
fn reduce_shared_accumulations_and_out_scalar() {
    insta::assert_snapshot!("reduce", both("reduce", &reduce()));
}

#[test]
fn kern_b_sections_tape_array_and_negative_step() {
    insta::assert_snapshot!("kern_b", both("kern_b", &kern_b()));
}

#[test]
fn smooth_b_atomics() {
    insta::assert_snapshot!("smooth_b", both("smooth_b", &smooth_b()));
}

#[test]
fn clip_b_push_pop_and_if() {
    insta::assert_snapshot!("clip_b", both("clip_b", &clip_b()));
}

#[test]
fn reverse_copy_sequential_map() {
    insta::assert_snapshot!("reverse_copy", both("reverse_copy", &reverse_copy()));
}

#[test]
fn softmax_float32_and_temporary() {
    insta::assert_snapshot!("softmax", both("softmax", &softmax()));
}

#[test]
fn renamed_identifiers() {
    insta::assert_snapshot!("renames", both("renames", &renames()));
}

#[test]
fn fortran_layout_and_integer_helpers() {
    insta::assert_snapshot!("fort", both("fort", &fort()));
}

#[test]
fn stats_reduction_kinds() {
    insta::assert_snapshot!("stats", both("stats", &stats()));
}

#[test]
fn scopes_private_and_reduction_placement() {
    insta::assert_snapshot!("scopes", both("scopes", &scopes()));
}
