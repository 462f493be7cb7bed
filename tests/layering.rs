//! Imports between the top-level modules of `src/` must form no cycle.
//!
//! The test reads the source text of the library (not the binary, `src/main.rs`): every
//! `crate::module` path in code, and every `super::` path that climbs to the crate root.
//! Comments, doc comments (an intra-doc link is not a dependency), string literals and
//! test-only code (`#[cfg(test)] mod … { }`, and the `tests.rs` / `*_tests.rs` files such
//! a module names) are not read. That gives the graph "module A names module B".
//!
//! An import A → B lies on a cycle exactly when B also reaches A; the test fails on every
//! such import, with the cycle it closes (file and line for each step).
//!
//! The last cycles were paid back: `crawl` ↔ `store` (the crawl state the store persists
//! is data in `model::crawl`), `cli` ↔ `remote` (the client is typed over `dto`, the
//! CLI's remote path is `cli/remote.rs`), `app` ↔ `server` and `app` ↔ `schedule`
//! (`serve` is `daemon`, the runner is `runner`, the session secrets are `session`), and
//! with them `error` → `store` and `check` → `crawl`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug)]
struct Use {
    file: PathBuf,
    line: usize,
}

/// Edges `from → to` with one place that makes each.
type Graph = BTreeMap<String, BTreeMap<String, Use>>;

fn src_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = module_graph(&src_dir());
    assert!(
        graph.len() > 5,
        "found too few modules in src/ ({graph:?}): is the test reading the right folder?"
    );
    let mut report = String::new();
    for (from, to) in edges_on_cycles(&graph) {
        let _ = writeln!(
            report,
            "import cycle: {}",
            describe_cycle(&graph, &from, &to)
        );
    }
    assert!(report.is_empty(), "{report}");
}

/// The store persists what a deep watch keeps of its site, and the crawl driver reads
/// and writes the store: that state is data (`src/model/crawl.rs`), below both, so the
/// store names no module of the crawl.
#[test]
fn store_names_no_crawl_module() {
    let graph = module_graph(&src_dir());
    let Some(store) = graph.get("store") else {
        panic!("src/store was not read: is the test reading the right folder?");
    };
    assert!(
        !store.contains_key("crawl"),
        "store → crawl at src/{}",
        store
            .get("crawl")
            .map(|u| format!("{}:{}", u.file.display(), u.line))
            .unwrap_or_default()
    );
    assert!(
        graph.get("crawl").is_some_and(|c| c.contains_key("store")),
        "the crawl driver is expected to use the store (is the reader still working?)"
    );
}

/// The reader itself: it must see paths in code and only there.
#[test]
fn reader_finds_paths_in_code_only() {
    let text = r##"
        //! A doc link to [`crate::doc_only`].
        use crate::{alpha::{A, B}, beta, self as _};
        use crate::gamma::C;
        fn f<'a>(x: &'a str) -> u8 {
            let s = "crate::in_string \" crate::still_string"; let r = r#"crate::in_raw"#;
            let c = '"'; // crate::in_comment
            /* crate::in_block /* nested */ crate::still_block */
            crate::delta::g(super::epsilon::h())
        }
        #[cfg(test)]
        mod tests { use crate::test_only::T; }
        fn after() { crate::zeta::z() }
    "##;
    let deps = referenced_modules(text, 1);
    let names: Vec<&str> = deps.keys().map(String::as_str).collect();
    // `super::epsilon` from a top-level file (depth 1) climbs to the crate root.
    assert_eq!(
        names,
        ["alpha", "beta", "delta", "epsilon", "gamma", "zeta"]
    );
    assert_eq!(deps.get("delta"), Some(&9));

    let decl = |name: &str, test: bool, path: Option<&str>| Declared {
        name: name.to_owned(),
        test,
        path: path.map(str::to_owned),
    };
    let text = "#[cfg(test)]\nmod tests;\npub mod a;\nmod b { }\n\
                #[cfg(test)]\npub(crate) mod corpus_tests;\n\
                #[cfg(test)]\n#[path = \"content_tests.rs\"]\nmod inner;\n\
                #[allow(dead_code)]\npub(super) mod c;\n";
    assert_eq!(
        declared_modules(&code_only(text), text),
        [
            decl("tests", true, None),
            decl("a", false, None),
            decl("corpus_tests", true, None),
            decl("inner", true, Some("content_tests.rs")),
            decl("c", false, None),
        ]
    );

    // Two levels down, one `super::` stays inside the module.
    let inner = referenced_modules("fn f() { super::sibling::x() }", 2);
    assert!(inner.is_empty(), "{inner:?}");
}

#[test]
fn cycle_check_sees_a_new_cycle() {
    let mut graph = Graph::new();
    let add = |g: &mut Graph, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(
            b.into(),
            Use {
                file: PathBuf::from(format!("{a}.rs")),
                line: 1,
            },
        );
    };
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")] {
        add(&mut graph, a, b);
    }
    let pairs = |v: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        v.iter().map(|(a, b)| ((*a).into(), (*b).into())).collect()
    };
    assert_eq!(
        edges_on_cycles(&graph),
        pairs(&[("a", "b"), ("b", "c"), ("c", "a")])
    );
    // e → b closes b → c → d → e → b; c → d, d → e and e → b join the cycles.
    add(&mut graph, "e", "b");
    assert_eq!(
        edges_on_cycles(&graph),
        pairs(&[
            ("a", "b"),
            ("b", "c"),
            ("c", "a"),
            ("c", "d"),
            ("d", "e"),
            ("e", "b")
        ])
    );
    assert_eq!(
        describe_cycle(&graph, "e", "b"),
        "e → b (src/e.rs:1) → c (src/b.rs:1) → d (src/c.rs:1) → e (src/d.rs:1)"
    );
}

/// Reads the library's modules: every `.rs` file below `src` except `main.rs` and the
/// files of test-only modules.
fn module_graph(src: &Path) -> Graph {
    let lib = std::fs::read_to_string(src.join("lib.rs"))
        .unwrap_or_else(|e| panic!("cannot read src/lib.rs: {e}"));
    let top_level: BTreeSet<String> = declared_modules(&code_only(&lib), &lib)
        .into_iter()
        .map(|d| d.name)
        .collect();
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    files.sort();
    let mut texts = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        for d in declared_modules(&code_only(&text), &text) {
            if !d.test {
                continue;
            }
            match &d.path {
                Some(p) => {
                    test_only.insert(file.parent().unwrap_or(&file).join(p));
                }
                None => test_only.extend(module_files(&file, &d.name)),
            }
        }
        texts.insert(file, text);
    }

    let mut graph = Graph::new();
    for (file, text) in &texts {
        let rel = file.strip_prefix(src).unwrap_or(file);
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let top = parts[0].trim_end_matches(".rs").to_owned();
        if !top_level.contains(&top) || test_only.contains(file) {
            continue;
        }
        // How many `super::` a path must climb to reach the crate root: a file `a/b.rs`
        // is module `a::b` (depth 2), `a/mod.rs` and `a.rs` are `a` (depth 1). (Inline
        // `mod x { }` blocks are not followed: a `super::` inside one is read as if it
        // were outside; the names it reaches must still be top-level modules to count.)
        let depth = if parts.last().is_some_and(|l| l == "mod.rs") {
            parts.len() - 1
        } else {
            parts.len()
        };
        let node = graph.entry(top.clone()).or_default();
        for (module, line) in referenced_modules(text, depth) {
            if module != top && top_level.contains(&module) {
                node.entry(module).or_insert(Use {
                    file: rel.to_path_buf(),
                    line,
                });
            }
        }
    }
    graph
}

/// A `mod name;` declaration: its name, whether it is under `#[cfg(test)]`, and the file
/// a `#[path = "…"]` attribute names (relative to the declaring file's folder).
#[derive(Debug, PartialEq, Eq)]
struct Declared {
    name: String,
    test: bool,
    path: Option<String>,
}

/// The `mod name;` declarations of a file. `code` is the file with comments and strings
/// blanked ([`code_only`]), `text` the file itself (for the `#[path]` strings). The
/// attributes and the visibility before `mod` may come in any order and form
/// (`#[cfg(test)] #[path = "x_tests.rs"] pub(crate) mod tests;`).
fn declared_modules(code: &str, text: &str) -> Vec<Declared> {
    let tokens = tokens(code);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, (word, _)) in tokens.iter().enumerate() {
        let declares = word == "mod"
            && tokens.get(i + 2).is_some_and(|t| t.0 == ";")
            && tokens.get(i + 1).is_some_and(|t| is_ident(&t.0));
        if !declares {
            continue;
        }
        // Back over the visibility: `pub`, `pub(crate)`, `pub(in a::b)`.
        let mut j = i;
        if j > 0 && tokens[j - 1].0 == ")" {
            while j > 0 && tokens[j - 1].0 != "(" {
                j -= 1;
            }
            j = j.saturating_sub(1);
        }
        if j > 0 && tokens[j - 1].0 == "pub" {
            j -= 1;
        }
        // Back over the attributes `#[…]`, each read whole.
        let mut cfg_test = false;
        let mut path = None;
        while j >= 2 && tokens[j - 1].0 == "]" {
            let end = j - 1;
            let mut depth = 0;
            let mut k = end;
            loop {
                match tokens[k].0.as_str() {
                    "]" => depth += 1,
                    "[" => depth -= 1,
                    _ => {}
                }
                if depth == 0 || k == 0 {
                    break;
                }
                k -= 1;
            }
            if k == 0 || tokens[k - 1].0 != "#" {
                break;
            }
            let attr: String = tokens[k - 1..=end].iter().map(|t| t.0.as_str()).collect();
            if attr == "#[cfg(test)]" {
                cfg_test = true;
            }
            if attr.starts_with("#[path=") {
                let line = lines.get(tokens[k].1 - 1).copied().unwrap_or_default();
                path = line
                    .split('"')
                    .nth(1)
                    .map(str::to_owned)
                    .filter(|p| !p.is_empty());
            }
            j = k - 1;
        }
        out.push(Declared {
            name: tokens[i + 1].0.clone(),
            test: cfg_test,
            path,
        });
    }
    out
}

/// The files module `name`, declared in `file`, may live in.
fn module_files(file: &Path, name: &str) -> [PathBuf; 2] {
    let dir = file.parent().unwrap_or(file);
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let base = if stem == "mod" || stem == "lib" {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    [
        base.join(format!("{name}.rs")),
        base.join(name).join("mod.rs"),
    ]
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a file of module depth `depth` names in code, each with the line
/// of its first mention.
fn referenced_modules(text: &str, depth: usize) -> BTreeMap<String, usize> {
    let code = drop_test_modules(&code_only(text));
    let tokens = tokens(&code);
    let mut found = BTreeMap::new();
    let mut i = 0;
    while i < tokens.len() {
        let (ref word, line) = tokens[i];
        if word == "crate" && tokens.get(i + 1).is_some_and(|t| t.0 == "::") {
            for module in path_heads(&tokens, i + 2) {
                found.entry(module).or_insert(line);
            }
        } else if word == "super" && (i == 0 || tokens[i - 1].0 != "::") {
            // Count the run of `super::`; past the crate root the next segment is a
            // top-level module.
            let mut j = i;
            let mut ups = 0;
            while tokens.get(j).is_some_and(|t| t.0 == "super")
                && tokens.get(j + 1).is_some_and(|t| t.0 == "::")
            {
                ups += 1;
                j += 2;
            }
            if ups >= depth {
                for module in path_heads(&tokens, j) {
                    found.entry(module).or_insert(line);
                }
            }
        }
        i += 1;
    }
    found
}

/// The first segments of the paths that start at token `i`: `a` in `a::b`, and `a`, `b`
/// in `{a::x, b, self}`.
fn path_heads(tokens: &[(String, usize)], i: usize) -> Vec<String> {
    let Some((first, _)) = tokens.get(i) else {
        return Vec::new();
    };
    if first != "{" {
        return if is_ident(first) && first != "self" {
            vec![first.clone()]
        } else {
            Vec::new()
        };
    }
    let mut heads = Vec::new();
    let mut nesting = 0usize;
    let mut expect_head = true;
    for (tok, _) in &tokens[i + 1..] {
        match tok.as_str() {
            "{" => nesting += 1,
            "}" if nesting == 0 => break,
            "}" => nesting -= 1,
            "," if nesting == 0 => expect_head = true,
            t if expect_head && nesting == 0 => {
                if is_ident(t) && t != "self" {
                    heads.push(t.to_owned());
                }
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Splits code into identifiers, `::` and single punctuation characters, with line
/// numbers (1-based).
fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut line = 1;
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((chars[start..i].iter().collect(), line));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(("::".to_owned(), line));
            i += 2;
        } else {
            out.push((c.to_string(), line));
            i += 1;
        }
    }
    out
}

/// The text with comments, string and character literals blanked (newlines kept, so
/// line numbers still hold).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut nesting = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    nesting += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    nesting -= 1;
                    out.push_str("  ");
                    i += 2;
                    if nesting == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            // r"…", r#"…"#, br#"…"#: skip to the quote followed by as many hashes.
            let open = chars[i..]
                .iter()
                .position(|&c| c == '"')
                .map_or(i, |p| i + p);
            for _ in i..=open {
                out.push(' ');
            }
            i = open + 1;
            while i < chars.len() {
                if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&ch) = chars.get(i) {
                    blank(&mut out, ch);
                }
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            let len = if next == Some('\\') {
                chars[i + 2..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map(|p| p + 3)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            if let Some(len) = len {
                out.extend(std::iter::repeat_n(' ', len));
                i += len;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `Some(number of #)` when a raw string literal starts at `i`.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some(hashes)
}

/// Blanks the bodies of `#[cfg(test)] mod name { … }` (code only compiled for tests).
fn drop_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let squashed = |out: &[char], from: usize| -> String {
        out[from..]
            .iter()
            .filter(|c| !c.is_whitespace())
            .take(20)
            .collect()
    };
    let mut i = 0;
    while i < out.len() {
        if out[i] == '#' && squashed(&out, i).starts_with("#[cfg(test)]") {
            // The item after the attribute: blank it when it is an inline module.
            let Some(close) = out[i..].iter().position(|&c| c == ']').map(|p| i + p) else {
                break;
            };
            let rest: String = out[close + 1..].iter().take(200).collect();
            let item = rest.trim_start();
            let is_mod = item.starts_with("mod ") || item.starts_with("pub mod ");
            let brace = out[close + 1..]
                .iter()
                .position(|&c| c == '{' || c == ';')
                .map(|p| close + 1 + p);
            if let (true, Some(open)) = (is_mod, brace) {
                if out[open] == '{' {
                    let mut nesting = 0usize;
                    let mut j = open;
                    while j < out.len() {
                        match out[j] {
                            '{' => nesting += 1,
                            '}' => nesting -= 1,
                            _ => {}
                        }
                        if out[j] != '\n' {
                            out[j] = ' ';
                        }
                        j += 1;
                        if nesting == 0 {
                            break;
                        }
                    }
                    i = j;
                    continue;
                }
            }
            i = close + 1;
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// The edges `a → b` where `b` reaches `a` again.
fn edges_on_cycles(graph: &Graph) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (from, tos) in graph {
        for to in tos.keys() {
            if path(graph, to, from).is_some() {
                out.insert((from.clone(), to.clone()));
            }
        }
    }
    out
}

/// A shortest path of modules from `from` to `to` (both included), breadth first.
fn path(graph: &Graph, from: &str, to: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([from.to_owned()]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![at];
            while let Some(prev) = path.last().and_then(|p| came_from.get(p)) {
                path.push(prev.clone());
            }
            path.reverse();
            return Some(path);
        }
        for next in graph.get(&at).into_iter().flat_map(BTreeMap::keys) {
            if next != from && !came_from.contains_key(next) {
                came_from.insert(next.clone(), at.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

/// `from → to → … → from`, each step with the file and line of one path that makes it.
fn describe_cycle(graph: &Graph, from: &str, to: &str) -> String {
    let mut steps = vec![from.to_owned()];
    steps.extend(path(graph, to, from).unwrap_or_default());
    let mut s = from.to_owned();
    for pair in steps.windows(2) {
        let at = graph
            .get(&pair[0])
            .and_then(|m| m.get(&pair[1]))
            .map(|u| format!("{}:{}", u.file.display(), u.line))
            .unwrap_or_default();
        let _ = write!(s, " → {} (src/{at})", pair[1]);
    }
    s
}

/// The README's layout (the tree under "## Layout") names every top-level module of
/// `src/` and every top-level folder of the repository it lists, and names none that
/// is gone: a newcomer's map matches the house.
#[test]
fn readme_layout_matches_the_tree() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find("## Layout").expect("a Layout section");
    let block = &readme[start..];
    let open = block.find("```\n").expect("the layout's tree") + 4;
    let close = open + block[open..].find("```").expect("its end");
    let tree = &block[open..close];
    // The names the tree lists at its left edge under `src/` (two spaces in).
    let listed: BTreeSet<String> = tree
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .map(|n| n.trim_end_matches('/').trim_end_matches(".rs").to_owned())
        .collect();
    let mut on_disk = BTreeSet::new();
    for e in std::fs::read_dir(src_dir()).expect("src/").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with("_tests.rs") {
            continue; // a module's tests, named by the module
        }
        on_disk.insert(name.trim_end_matches(".rs").to_owned());
    }
    let missing: Vec<_> = on_disk.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&on_disk).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "README layout: modules of src/ it does not list: {missing:?}; names it lists that src/ lacks: {gone:?}"
    );
}

/// The opening comment of a top-level module, `src/<name>.rs` or `src/<name>/mod.rs`.
fn opening_comment(name: &str) -> Option<String> {
    let src = src_dir();
    let text = std::fs::read_to_string(src.join(format!("{name}.rs")))
        .or_else(|_| std::fs::read_to_string(src.join(name).join("mod.rs")))
        .ok()?;
    Some(
        text.lines()
            .map_while(|l| l.strip_prefix("//!"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The modules a line `May use: a, b, c.` of `doc` declares (`nothing` for none);
/// `None` without such a line.
fn declared_uses(doc: &str) -> Option<BTreeSet<String>> {
    let at = doc.find("May use:")? + "May use:".len();
    let list = &doc[at..];
    let end = list.find('.').unwrap_or(list.len());
    Some(
        list[..end]
            .split([',', '\n'])
            .map(|s| s.trim().trim_matches('`').to_owned())
            .filter(|s| !s.is_empty() && s != "nothing")
            .collect(),
    )
}

/// Each top-level module's opening comment says which modules it may use, in a line
/// `May use: a, b, c.`, and its code uses no other: a dependency that was not meant is
/// an edit of that line, seen in review, not a stray `use`.
#[test]
fn every_module_uses_only_what_its_opening_comment_allows() {
    let graph = module_graph(&src_dir());
    let mut report = String::new();
    for (from, uses) in &graph {
        if from == "lib" || from == "main" {
            continue;
        }
        let Some(doc) = opening_comment(from) else {
            continue;
        };
        let actual: BTreeSet<String> = uses.keys().filter(|m| *m != from).cloned().collect();
        match declared_uses(&doc) {
            None => {
                let _ = writeln!(
                    report,
                    "{from}: no `May use:` line; it uses: {}.",
                    actual.iter().cloned().collect::<Vec<_>>().join(", ")
                );
            }
            Some(allowed) => {
                for m in actual.difference(&allowed) {
                    let u = &uses[m];
                    let _ = writeln!(
                        report,
                        "{from} → {m} at src/{}:{} is not in its `May use:` line",
                        u.file.display(),
                        u.line
                    );
                }
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn declared_uses_reads_the_line() {
    let doc = " The store.\n\n May use: `model`, config,\n schedule. Not the server.";
    let got = declared_uses(doc).expect("a line");
    assert_eq!(
        got.into_iter().collect::<Vec<_>>(),
        ["config", "model", "schedule"]
    );
    assert_eq!(declared_uses(" May use: nothing."), Some(BTreeSet::new()));
    assert_eq!(declared_uses(" Uses the store."), None);
}

/// No source file passes 600 lines (tests excepted): a file that grows past it holds
/// more than one concern, and is split along them.
#[test]
fn no_source_file_is_over_600_lines() {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, usize)>) {
        for e in std::fs::read_dir(dir).expect("a folder of src/").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
                continue;
            }
            if p.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name == "tests.rs" || name.ends_with("_tests.rs") || name == "suite.rs" {
                continue;
            }
            let lines = std::fs::read_to_string(&p)
                .expect("a source file")
                .lines()
                .count();
            if lines > 600 {
                out.push((p, lines));
            }
        }
    }
    let mut long = Vec::new();
    walk(&src_dir(), &mut long);
    assert!(
        long.is_empty(),
        "split these along their concerns: {long:?}"
    );
}
