//! Prints the IR the Python frontend produces: `cargo run -p adjc-frontend --example
//! dump_ir -- kernel.py [entry] [--arg 'A: float64[N]' ...]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: dump_ir FILE.py [ENTRY] [--arg SPEC]...");
        std::process::exit(2);
    };
    let mut opts = adjc_frontend::PythonOptions::default();
    while let Some(a) = args.next() {
        if a == "--arg" {
            opts.arg_specs.extend(args.next());
        } else {
            opts.entry = Some(a);
        }
    }
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    match adjc_frontend::lower_python(&path, &source, &opts) {
        Ok(m) => print!("{}", adjc_ir::print::print_module(&m)),
        Err(d) => {
            eprint!("{}", d.render(&path, &source));
            std::process::exit(1);
        }
    }
}
