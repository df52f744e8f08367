mod common;
use common::kernels as k;
#[test]
fn show() {
    for f in [k::fortran_scalars(), k::gather(), k::time_loop_scalar()] {
        let ad = adjc_autodiff::reverse(&f, &Default::default()).unwrap();
        println!("{}", adjc_ir::print::print_function(&ad.function));
        for p in &ad.function.params {
            println!("  {}: {}", ad.function.var(p.var).name, p.doc);
        }
    }
}
