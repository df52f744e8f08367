//! The text the parser sees, assembled from one or more source files: C preprocessor
//! output read back through its line markers, `include 'file'` lines expanded, fixed form
//! converted, files concatenated. Every line remembers the file and line it came from, so
//! diagnostics and the IR's spans point at what the user wrote, not at the assembled text.

use super::fixed;
use adjc_ir::{Diagnostic, Expr, ExprKind, Function, Span, Stmt, StmtKind};
use std::collections::BTreeMap;

/// A Fortran source file as the frontend receives it (the caller reads files and runs the
/// preprocessor; the frontend stays pure).
#[derive(Clone, Debug)]
pub struct FortranSource {
    /// The name diagnostics and source comments use (as the user gave it).
    pub name: String,
    /// The file's text, or the C preprocessor's output for it *with* its line markers
    /// (`# 12 "kernel.F90"`, i.e. `cpp -traditional` without `-P`).
    pub text: String,
    /// `text` is preprocessor output: read its line markers.
    pub preprocessed: bool,
    /// The file as written when `text` is preprocessor output: the generated C quotes its
    /// lines (diagnostics quote the preprocessed line, where their column is).
    pub original: Option<String>,
    /// Fixed form (`.f`, `.F`, `.for`): converted to free form after `include` expansion.
    pub fixed_form: bool,
}

/// Finds an `include 'name'` file for the file `from` (its name as given): the file's
/// display name and text, or a message saying where it was looked for.
pub type IncludeResolver<'a> = dyn Fn(&str, &str) -> Result<(String, String), String> + 'a;

/// A diagnostic located in one of the files.
#[derive(Clone, Debug)]
pub struct SourceError {
    pub file: String,
    /// The text of that file as the frontend saw it (after preprocessing), for the quoted line.
    pub source: String,
    pub diag: Diagnostic,
}

impl SourceError {
    pub fn render(&self) -> String {
        self.diag.render(&self.file, &self.source)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Index into [`Assembled::files`].
    pub file: usize,
    /// 1-based line in that file.
    pub line: u32,
}

/// One file that contributed lines: its lines as the frontend saw them, keyed by their own
/// (1-based) line numbers, so a diagnostic quotes the line it points at. Stored sparsely: a
/// line marker may jump far ahead.
#[derive(Clone, Debug, Default)]
pub struct FileText {
    pub name: String,
    pub lines: BTreeMap<u32, String>,
}

impl FileText {
    /// The file's text, gaps blank, each line at its own line number.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut at = 1;
        for (&n, l) in &self.lines {
            while at < n {
                out.push('\n');
                at += 1;
            }
            out.push_str(l);
        }
        out
    }
    fn set(&mut self, line: u32, text: &str) {
        self.lines.insert(line.max(1), text.to_string());
    }
}

/// The largest line number a cpp line marker (`# N "file"`, `#line N`) may set. Lines are
/// quoted from a text holding every line up to the one quoted, so the bound keeps that text
/// (and the generated C's line comments) sensible; no Fortran source comes near it.
pub const MAX_LINE: u32 = 1_000_000;

#[derive(Clone, Debug, Default)]
pub struct Assembled {
    pub text: String,
    /// One per line of `text`.
    pub origins: Vec<Origin>,
    pub files: Vec<FileText>,
    /// Per source given, the index of its file in `files`.
    pub source_files: Vec<usize>,
}

/// Include files nest at most this deep (a file including itself would never end).
const MAX_INCLUDE_DEPTH: usize = 16;

impl Assembled {
    fn file_index(&mut self, name: &str) -> usize {
        match self.files.iter().position(|f| f.name == name) {
            Some(k) => k,
            None => {
                self.files.push(FileText { name: name.to_string(), lines: BTreeMap::new() });
                self.files.len() - 1
            }
        }
    }

    /// Where line `line` (1-based) of the assembled text came from.
    pub fn origin(&self, line: u32) -> Option<Origin> {
        (line as usize).checked_sub(1).and_then(|k| self.origins.get(k)).copied()
    }

    /// The diagnostic, moved from the assembled text to the file its line came from.
    pub fn locate(&self, diag: Diagnostic) -> SourceError {
        let main = self.source_files.first().copied().unwrap_or(0);
        match self.origin(diag.span.line) {
            Some(o) if !diag.span.is_none() => SourceError {
                file: self.files[o.file].name.clone(),
                source: self.files[o.file].text(),
                diag: Diagnostic { span: Span { line: o.line, ..diag.span }, ..diag },
            },
            _ => SourceError {
                file: self.files.get(main).map(|f| f.name.clone()).unwrap_or_default(),
                source: self.files.get(main).map(FileText::text).unwrap_or_default(),
                diag,
            },
        }
    }
}

impl Assembled {
    /// Moves every span of `f` from the assembled text to lines of file `file`; spans on
    /// lines of other files (a module in another file, an include file) become
    /// [`Span::NONE`], as the C quotes the lines of one file.
    pub fn remap_function(&self, f: &mut Function, file: usize) {
        let map = |s: Span| match self.origin(s.line) {
            Some(o) if o.file == file && !s.is_none() => Span { line: o.line, ..s },
            _ => Span::NONE,
        };
        f.span = map(f.span);
        for v in &mut f.vars {
            v.span = map(v.span);
        }
        for s in &mut f.body {
            remap_stmt(s, &map);
        }
        // Notes name source lines as `line N: ...`.
        for note in &mut f.notes {
            let Some(rest) = note.strip_prefix("line ") else { continue };
            let Some((n, tail)) = rest.split_once(':') else { continue };
            let Some(o) = n.parse().ok().and_then(|n| self.origin(n)) else { continue };
            *note = if o.file == file {
                format!("line {}:{tail}", o.line)
            } else {
                format!("{} line {}:{tail}", self.files[o.file].name, o.line)
            };
        }
    }
}

fn remap_expr(e: &mut Expr, map: &dyn Fn(Span) -> Span) {
    e.span = map(e.span);
    match &mut e.kind {
        ExprKind::Const(_) | ExprKind::Var(_) => {}
        ExprKind::Load(_, idx) | ExprKind::Call(_, idx) => idx.iter_mut().for_each(|x| remap_expr(x, map)),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => remap_expr(a, map),
        ExprKind::Binary(_, a, b) => {
            remap_expr(a, map);
            remap_expr(b, map);
        }
        ExprKind::Select(c, a, b) => {
            remap_expr(c, map);
            remap_expr(a, map);
            remap_expr(b, map);
        }
    }
}

fn remap_stmt(s: &mut Stmt, map: &dyn Fn(Span) -> Span) {
    s.span = map(s.span);
    let mut exprs: Vec<&mut Expr> = Vec::new();
    match &mut s.kind {
        StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
            exprs.extend(target.index.iter_mut());
            exprs.push(value);
        }
        StmtKind::Loop(l) => exprs.extend([&mut l.start, &mut l.stop, &mut l.step]),
        StmtKind::Map(m) => m.dims.iter_mut().for_each(|d| exprs.extend([&mut d.start, &mut d.stop])),
        StmtKind::If { cond, .. } => exprs.push(cond),
        StmtKind::While(w) => exprs.push(&mut w.cond),
        StmtKind::Push { value, .. } => exprs.push(value),
        StmtKind::Pop { target, .. } => exprs.extend(target.index.iter_mut()),
        StmtKind::Call(c) => {
            for v in std::iter::once(&mut c.out_view).chain(c.arg_views.iter_mut()) {
                exprs.extend(v.start.iter_mut().chain(v.extents.iter_mut()));
            }
            exprs.extend([&mut c.alpha, &mut c.beta]);
        }
        StmtKind::Alloc(_) | StmtKind::Free(_) | StmtKind::Section { .. } | StmtKind::Fail(_) => {}
    }
    for e in exprs {
        remap_expr(e, map);
    }
    for b in s.blocks_mut() {
        for s in b.iter_mut() {
            remap_stmt(s, map);
        }
    }
}

/// Lines of one source (with its includes) before fixed-form conversion.
struct Lines {
    text: Vec<String>,
    origins: Vec<Origin>,
}

pub fn assemble(sources: &[FortranSource], include: &IncludeResolver) -> Result<Assembled, SourceError> {
    let mut asm = Assembled::default();
    for src in sources {
        let own = asm.file_index(&src.name);
        asm.source_files.push(own);
        let raw = if src.preprocessed {
            read_markers(&mut asm, &src.text, own, src.original.as_deref())?
        } else {
            plain(&src.text, own)
        };
        let mut lines = Lines { text: Vec::new(), origins: Vec::new() };
        expand_includes(&mut asm, raw, include, 0, &mut lines)?;
        for (t, o) in lines.text.iter().zip(&lines.origins) {
            asm.files[o.file].set(o.line, t);
        }
        let local = Assembled { origins: lines.origins.clone(), ..asm.clone() };
        if !src.preprocessed {
            if let Some(k) = lines.text.iter().position(|l| l.starts_with('#')) {
                let span = Span { line: k as u32 + 1, col: 1, start: 0, end: 1 };
                return Err(local.locate(
                    Diagnostic::error(span, "C preprocessor directive in a source that was not preprocessed")
                        .with_help("run the file through `cpp -traditional` first (the adjc command line does this)"),
                ));
            }
        }
        let joined = lines.text.join("\n");
        let text = if src.fixed_form { fixed::to_free_form(&joined).map_err(|d| local.locate(d))? } else { joined };
        // The conversion keeps one line per line.
        let mut n = 0;
        for l in text.split('\n') {
            asm.text.push_str(l);
            asm.text.push('\n');
            n += 1;
        }
        let mut origins = lines.origins;
        let last = origins.last().copied().unwrap_or(Origin { file: own, line: 1 });
        origins.resize(n, last);
        asm.origins.extend(origins);
    }
    Ok(asm)
}

fn plain(text: &str, file: usize) -> Lines {
    let text: Vec<String> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).to_string()).collect();
    let origins = (0..text.len()).map(|k| Origin { file, line: k as u32 + 1 }).collect();
    Lines { text, origins }
}

/// `# 12 "file.F90" 2`: the next line is line 12 of `file.F90`. The number is not bounded
/// here (see [`MAX_LINE`]); one too large for `u64` saturates.
fn line_marker(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").map(str::trim_start).unwrap_or(rest);
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    if digits == 0 {
        return None;
    }
    let number: u64 = rest[..digits].parse().unwrap_or(u64::MAX);
    let name = rest[digits..].trim_start().strip_prefix('"')?;
    let end = name.find('"')?;
    Some((number, &name[..end]))
}

/// The preprocessor's output without its markers, each line with its origin. Lines of the
/// preprocessor's own pseudo-files (`<built-in>`) are dropped; the source's own name
/// replaces the path cpp was given for it. A marker setting a line number beyond
/// [`MAX_LINE`] is an error at the line before it (in `original`, the text before cpp, when
/// the marker came from the source's own file).
fn read_markers(asm: &mut Assembled, text: &str, own: usize, original: Option<&str>) -> Result<Lines, SourceError> {
    let mut out = Lines { text: Vec::new(), origins: Vec::new() };
    let mut cur: Option<Origin> = Some(Origin { file: own, line: 1 });
    let mut first_file: Option<String> = None;
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some((number, name)) = line_marker(line) {
            if number > MAX_LINE as u64 {
                let at = cur.unwrap_or(Origin { file: own, line: 1 });
                let mut f = asm.files[at.file].clone();
                f.set(at.line, line);
                let source = match original {
                    Some(o) if at.file == own => o.to_string(),
                    _ => f.text(),
                };
                let quoted = source.split('\n').nth(at.line as usize - 1).unwrap_or(line);
                let width = quoted.trim_end().chars().count().max(1) as u32;
                let shown = if number == u64::MAX { "a number that large".to_string() } else { number.to_string() };
                return Err(SourceError {
                    file: f.name,
                    source,
                    diag: Diagnostic::error(
                        Span { line: at.line, col: 1, start: 0, end: width },
                        format!("line marker sets line {shown}; adjc supports line numbers up to {MAX_LINE}"),
                    )
                    .with_help("remove the `#line` directive or give it a smaller line number"),
                });
            }
            let number = number as u32;
            cur = if name.starts_with('<') {
                None
            } else {
                // cpp names the main file as it was given on its command line.
                let first = first_file.get_or_insert_with(|| name.to_string());
                let file = if name == first.as_str() { own } else { asm.file_index(name) };
                Some(Origin { file, line: number.max(1) })
            };
            continue;
        }
        let Some(o) = cur else { continue };
        if o.file != own && line.trim().is_empty() {
            cur = Some(Origin { line: o.line + 1, ..o });
            continue;
        }
        out.text.push(line.to_string());
        out.origins.push(o);
        cur = Some(Origin { line: o.line + 1, ..o });
    }
    Ok(out)
}

/// `include 'name'` (or `"name"`), alone on its line: the quoted name and its column.
fn include_line(line: &str) -> Option<(String, usize)> {
    let t = line.trim_start();
    let keyword = t.get(..7).filter(|k| k.eq_ignore_ascii_case("include"))?;
    let after = t[keyword.len()..].trim_start();
    let quote = after.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &after[1..];
    let end = body.find(quote)?;
    let rest = body[end + 1..].trim();
    if !(rest.is_empty() || rest.starts_with('!')) {
        return None;
    }
    let col = line[..line.len() - after.len()].chars().count() + 1;
    Some((body[..end].to_string(), col))
}

fn expand_includes(
    asm: &mut Assembled,
    lines: Lines,
    include: &IncludeResolver,
    depth: usize,
    out: &mut Lines,
) -> Result<(), SourceError> {
    for (text, origin) in lines.text.into_iter().zip(lines.origins) {
        let Some((name, col)) = include_line(&text) else {
            out.text.push(text);
            out.origins.push(origin);
            continue;
        };
        let from = asm.files[origin.file].name.clone();
        let here = |asm: &Assembled, message: String, help: String| {
            let mut f = asm.files[origin.file].clone();
            f.set(origin.line, &text);
            let width = name.chars().count() as u32 + 2;
            SourceError {
                file: f.name.clone(),
                source: f.text(),
                diag: Diagnostic::error(Span { line: origin.line, col: col as u32, start: 0, end: width }, message)
                    .with_help(help),
            }
        };
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(here(
                asm,
                format!("`include '{name}'` nests more than {MAX_INCLUDE_DEPTH} deep"),
                "an include file probably includes itself".into(),
            ));
        }
        let (path, body) = include(&name, &from)
            .map_err(|searched| here(asm, format!("include file `{name}` not found"), searched))?;
        // The `include` line itself stays, as a comment, so the line count of the includer
        // is kept for what follows.
        out.text.push(format!("! {}", text.trim()));
        out.origins.push(origin);
        let file = asm.file_index(&path);
        let inner = plain(&body, file);
        expand_includes(asm, inner, include, depth + 1, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_include(name: &str, _: &str) -> Result<(String, String), String> {
        Err(format!("no {name}"))
    }

    #[test]
    fn markers_map_lines_back_to_their_files() {
        let cpp = "# 0 \"k.F90\"\n# 0 \"<built-in>\"\n# 1 \"k.F90\"\n! c\n\n# 1 \"inc.h\" 1\n  integer :: q\n# 4 \"k.F90\" 2\nsubroutine k()\n";
        let src = FortranSource {
            name: "dir/k.F90".into(),
            text: cpp.into(),
            preprocessed: true,
            fixed_form: false,
            original: None,
        };
        let a = assemble(&[src], &no_include).unwrap();
        let lines: Vec<&str> = a.text.lines().collect();
        assert_eq!(lines[..4], ["! c", "", "  integer :: q", "subroutine k()"]);
        assert_eq!(a.origins[3], Origin { file: 0, line: 4 });
        assert_eq!(a.files[a.origins[2].file].name, "inc.h");
        assert_eq!(a.files[0].lines[&4], "subroutine k()");
    }

    #[test]
    fn include_lines_are_expanded_and_a_missing_file_is_located() {
        let text = "subroutine k()\n  include 'p.h'\n  x = 1\nend\n";
        let resolve = |name: &str, _: &str| -> Result<(String, String), String> {
            if name == "p.h" {
                Ok(("inc/p.h".into(), "  real(8) :: x\n".into()))
            } else {
                Err("searched .".into())
            }
        };
        let src = FortranSource {
            name: "k.f90".into(),
            text: text.into(),
            preprocessed: false,
            fixed_form: false,
            original: None,
        };
        let a = assemble(std::slice::from_ref(&src), &resolve).unwrap();
        assert!(a.text.contains("  real(8) :: x\n"));
        let x = a.text.lines().position(|l| l == "  x = 1").unwrap();
        assert_eq!(a.origins[x], Origin { file: 0, line: 3 });
        let e = assemble(&[src], &no_include).unwrap_err();
        assert_eq!((e.file.as_str(), e.diag.span.line, e.diag.span.col), ("k.f90", 2, 11));
        assert!(e.diag.message.contains("include file `p.h` not found"), "{}", e.render());
    }
}
