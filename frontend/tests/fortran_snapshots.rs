//! Snapshot tests of the printed primal IR of every Fortran example (reviewed by hand).

fn example(name: &str) -> String {
    let dir = format!("{}/../examples/fortran", env!("CARGO_MANIFEST_DIR"));
    let free = format!("{dir}/{name}.f90");
    let (path, fixed_form) =
        if std::path::Path::new(&free).exists() { (free, false) } else { (format!("{dir}/{name}.f"), true) };
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // heat_step with the module files of `modules/`; `include` files from the examples' directory.
    let source = |name: String, text: String, fixed_form: bool| adjc_frontend::FortranSource {
        name,
        text,
        preprocessed: false,
        fixed_form,
        original: None,
    };
    let mut sources = vec![source(path.clone(), src, fixed_form)];
    let modules: &[&str] = match name {
        "heat_step" => &["heat_kinds", "heat_params"],
        "heat_evolve" => &["heat_kinds", "heat_fields"],
        "column_flux" => &["heat_kinds", "column_types"],
        "layer_weights" => &["parkind1"],
        "scale_optical_depth" => &["yomhook", "radiation_state"],
        "transmittance_abort" => &["radiation_io"],
        "cloudsc_module_type" => &["parkind1", "yomhook", "yoecldp"],
        _ => &[],
    };
    for m in modules {
        let p = format!("{dir}/modules/{m}.f90");
        sources.push(source(p.clone(), std::fs::read_to_string(&p).unwrap(), false));
    }
    let include = |name: &str, _: &str| {
        let p = format!("{dir}/{name}");
        std::fs::read_to_string(&p).map(|t| (p, t)).map_err(|e| e.to_string())
    };
    let mut m = adjc_frontend::lower_fortran_sources(&sources, &Default::default(), &include)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    m.file = path.rsplit('/').next().map(|f| format!("examples/fortran/{f}")).unwrap_or_default();
    // Notes name other files by the path they were given as: the snapshot must not hold
    // where the checkout is.
    for f in &mut m.functions {
        for note in &mut f.notes {
            *note = note.replace(&format!("{dir}/"), "examples/fortran/");
        }
    }
    adjc_ir::print::print_module(&m)
}

macro_rules! example_snapshot {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(concat!("example_", stringify!($name)), example(stringify!($name)));
        }
    )*};
}

example_snapshot!(
    advect_pure,
    atax,
    bicg,
    correlation,
    doitgen,
    fdtd_2d,
    k2mm,
    mvt,
    products,
    syr2k,
    bratu,
    speelpenning,
    cholesky,
    energy,
    gemm,
    gemm_matmul,
    gemm_numpy,
    int_kinds,
    heat_step,
    jacobi_1d,
    jacobi_2d,
    jacobi_2d_include,
    jacobi_2d_sections,
    seidel_2d,
    shift_sections,
    strided_sections,
    smooth_bounds,
    softnorm,
    upwind,
    with_helpers,
    init_values,
    literal_kinds,
    early_return,
    f77_decls,
    heat_evolve,
    column_flux,
    layer_weights,
    optional_args,
    nas_rhs,
    scale_optical_depth,
    nas_data_stmtfn,
    f77_gotos,
    radiation_diag,
    vector_subscripts,
    rounding,
    converge,
    search_exit,
    donor_cell,
    species_fall,
    column_condense,
    eos_select,
    generic_limit,
    elemental_gammas,
    forall_masks,
    jacobi_fixed_point,
    transmittance_abort,
    goto_newton,
    cloudsc_module_type
);

#[test]
fn every_example_has_a_snapshot() {
    let dir = format!("{}/../examples/fortran", env!("CARGO_MANIFEST_DIR"));
    let n = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "f90" || x == "f")))
        .count();
    assert_eq!(n, 58, "add the new example to example_snapshot! above");
}
