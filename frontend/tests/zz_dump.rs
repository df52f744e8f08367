#[test]
fn dump() {
    let src = std::fs::read_to_string(std::env::var("F").unwrap()).unwrap();
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_fortran::LANGUAGE.into()).unwrap();
    let t = p.parse(&src, None).unwrap();
    fn go(n: tree_sitter::Node, src: &str, d: usize) {
        let txt = &src[n.byte_range()];
        let short: String = txt.chars().take(40).collect::<String>().replace('\n', "\\n");
        let field = "";
        println!(
            "{}{}{} {:?}",
            "  ".repeat(d),
            if n.is_named() { n.kind().to_string() } else { format!("'{}'", n.kind()) },
            field,
            short
        );
        let mut c = n.walk();
        for (i, ch) in n.children(&mut c).enumerate() {
            let _ = i;
            go(ch, src, d + 1);
        }
    }
    go(t.root_node(), &src, 0);
}
