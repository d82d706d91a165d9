//! JSON Schema → GBNF, llama.cpp's grammar format, for the schema subset the core emits
//! (objects, arrays with item bounds, strings with length bounds or an `enum`, `const`,
//! `anyOf`), so a model run in the page can only write a reply that parses.
//!
//! ```
//! use nocturne_core::llm::gbnf::grammar;
//! use serde_json::json;
//! let g = grammar(&json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})).unwrap();
//! assert!(g.contains(r#"::= "{" ws "\"ok\"" ws ":" ws boolean ws "}""#));
//! ```
//!
//! Every property of an object is written in the schema's key order: required ones
//! always, optional ones each may be left out. Whitespace between tokens is at most one
//! space or newline, so a small model cannot spin in blank space until its token limit.

use serde_json::{Map, Value};
use std::fmt::Write;

/// A schema the converter does not cover, naming the part it stopped at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GbnfError {
    /// Where in the schema (`properties.drop.items`).
    pub path: String,
    pub what: String,
}

impl std::fmt::Display for GbnfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.path.is_empty() { "the schema's root" } else { &self.path };
        write!(f, "cannot turn the JSON Schema into a grammar at {at}: {}", self.what)
    }
}

impl std::error::Error for GbnfError {}

/// The grammar whose `root` rule accepts exactly the JSON texts `schema` allows (in the
/// covered subset, with the whitespace described above).
pub fn grammar(schema: &Value) -> Result<String, GbnfError> {
    let mut b = Builder::default();
    let root = b.value(schema, "")?;
    let mut out = format!("root ::= {}\n", root.unwrap_or_else(|| NEVER.to_string()));
    for (name, body) in &b.rules {
        let _ = writeln!(out, "{name} ::= {body}");
    }
    out.push_str(BASE);
    Ok(out)
}

/// Rules every grammar shares.
const BASE: &str = r#"ws ::= [ \n]?
char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])
string ::= "\"" char* "\""
boolean ::= "true" | "false"
integer ::= "-"? ([0-9] | [1-9] [0-9]*)
number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
null ::= "null"
"#;

/// What stands for a value no text can satisfy (an `enum` with no members): the empty
/// character class matches nothing.
const NEVER: &str = "[^\\x00-\\U0010FFFF]";

#[derive(Default)]
struct Builder {
    /// Named rules in creation order (`r0`, `r1`, …): equal bodies share one.
    rules: Vec<(String, String)>,
}

impl Builder {
    /// The grammar expression for `schema`, or `None` when no value satisfies it.
    fn value(&mut self, schema: &Value, path: &str) -> Result<Option<String>, GbnfError> {
        let fail = |what: &str| GbnfError { path: path.to_string(), what: what.to_string() };
        let Some(s) = schema.as_object() else { return Err(fail("a schema must be an object")) };
        if let Some(c) = s.get("const") {
            return Ok(Some(self.rule(literal(&c.to_string()))));
        }
        if let Some(values) = s.get("enum") {
            let values = values.as_array().ok_or_else(|| fail("\"enum\" must be a list"))?;
            let alts: Vec<String> = values.iter().map(|v| literal(&v.to_string())).collect();
            return Ok((!alts.is_empty()).then(|| self.rule(alts.join(" | "))));
        }
        if let Some(options) = s.get("anyOf").or_else(|| s.get("oneOf")) {
            let options = options.as_array().ok_or_else(|| fail("\"anyOf\" must be a list"))?;
            let mut alts = Vec::new();
            for (i, o) in options.iter().enumerate() {
                alts.extend(self.value(o, &format!("{path}.anyOf[{i}]"))?);
            }
            return Ok((!alts.is_empty()).then(|| self.rule(alts.join(" | "))));
        }
        match s.get("type").and_then(Value::as_str) {
            Some("object") => self.object(s, path),
            Some("array") => self.array(s, path),
            Some("string") => Ok(Some(self.string(s, path)?)),
            Some(t @ ("boolean" | "integer" | "number" | "null")) => Ok(Some(t.to_string())),
            Some(other) => Err(fail(&format!("the type \"{other}\" is not covered"))),
            None => Err(fail("no \"type\", \"enum\", \"const\" or \"anyOf\"")),
        }
    }

    fn object(&mut self, s: &Map<String, Value>, path: &str) -> Result<Option<String>, GbnfError> {
        let empty = Map::new();
        let props = s.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let required: Vec<&str> =
            s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        if let Some(missing) = required.iter().find(|r| !props.contains_key(**r)) {
            return Err(GbnfError { path: path.into(), what: format!("\"{missing}\" is required but not a property") });
        }
        let mut first = true;
        let mut body = String::from("\"{\" ws");
        let mut optional = String::new();
        for (key, sub) in props {
            let Some(value) = self.value(sub, &format!("{path}.properties.{key}"))? else {
                if required.contains(&key.as_str()) {
                    return Ok(None);
                }
                continue;
            };
            let pair = format!("{} ws \":\" ws {value}", literal(&Value::String(key.clone()).to_string()));
            if required.contains(&key.as_str()) {
                if !first {
                    body.push_str(" \",\" ws");
                }
                let _ = write!(body, " {pair} ws");
                first = false;
            } else if first {
                return Err(GbnfError {
                    path: format!("{path}.properties.{key}"),
                    what: "an optional property before any required one is not covered".into(),
                });
            } else {
                let _ = write!(optional, " (\",\" ws {pair} ws)?");
            }
        }
        body.push_str(&optional);
        body.push_str(" \"}\"");
        Ok(Some(self.rule(body)))
    }

    fn array(&mut self, s: &Map<String, Value>, path: &str) -> Result<Option<String>, GbnfError> {
        let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = s.get("maxItems").and_then(Value::as_u64);
        if max.is_some_and(|m| m < min) {
            return Ok(None);
        }
        let item = match s.get("items") {
            Some(items) => self.value(items, &format!("{path}.items"))?,
            None => return Err(GbnfError { path: path.into(), what: "an array needs \"items\"".into() }),
        };
        let body = match (item, max) {
            (None, _) | (_, Some(0)) if min == 0 => "\"[\" ws \"]\"".to_string(),
            (None, _) => return Ok(None),
            (Some(item), max) => {
                let more = match max {
                    Some(m) => format!("{{{},{}}}", min.saturating_sub(1), m - 1),
                    None => format!("{{{},}}", min.saturating_sub(1)),
                };
                let list = format!("{item} ws (\",\" ws {item} ws){more}");
                if min == 0 {
                    format!("\"[\" ws ({list})? \"]\"")
                } else {
                    format!("\"[\" ws {list} \"]\"")
                }
            }
        };
        Ok(Some(self.rule(body)))
    }

    fn string(&mut self, s: &Map<String, Value>, path: &str) -> Result<String, GbnfError> {
        let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = s.get("maxLength").and_then(Value::as_u64);
        if max.is_some_and(|m| m < min) {
            return Err(GbnfError { path: path.into(), what: "maxLength is below minLength".into() });
        }
        Ok(match max {
            None if min == 0 => "string".to_string(),
            None => self.rule(format!("\"\\\"\" char{{{min},}} \"\\\"\"")),
            Some(max) => self.rule(format!("\"\\\"\" char{{{min},{max}}} \"\\\"\"")),
        })
    }

    /// A named rule for `body` (one per distinct body).
    fn rule(&mut self, body: String) -> String {
        if let Some((name, _)) = self.rules.iter().find(|(_, b)| *b == body) {
            return name.clone();
        }
        let name = format!("r{}", self.rules.len());
        self.rules.push((name.clone(), body));
        name
    }
}

/// A GBNF string literal matching `text` exactly.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How far a text gets in a grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// No continuation of the text can match.
    Never,
    /// The text is the start of a match.
    Prefix,
    /// The text matches in full.
    Complete,
}

/// A parsed grammar of the kind [`grammar`] writes — rules of alternatives of sequences
/// of literals, character classes, rule names and groups, with `?`, `*`, `+` and
/// `{m,n}` — that can tell whether a text matches it or could still grow into a match.
/// The in-page model's decoder asks it before taking each token, so its reply follows
/// the schema however the runtime treats grammars.
///
/// ```
/// use nocturne_core::llm::gbnf::{Fit, Grammar};
/// let g = Grammar::parse(r#"root ::= "{" [a-z]{1,3} "}""#).unwrap();
/// assert_eq!(g.fit("{ab"), Fit::Prefix);
/// assert_eq!(g.fit("{ab}"), Fit::Complete);
/// assert_eq!(g.fit("{abcd"), Fit::Never);
/// ```
#[derive(Clone, Debug)]
pub struct Grammar {
    /// Rule bodies; `Node::Rule` holds an index here.
    rules: Vec<Node>,
    root: usize,
}

#[derive(Clone, Debug)]
enum Node {
    Literal(Vec<char>),
    Class { negated: bool, ranges: Vec<(char, char)> },
    Rule(usize),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, usize, Option<usize>),
}

impl Grammar {
    /// Parses the grammar; it must have a `root` rule and name only rules it defines.
    pub fn parse(text: &str) -> Result<Grammar, GbnfError> {
        let fail = |path: &str, what: String| GbnfError { path: path.to_string(), what };
        let mut lines = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line.split_once("::=").ok_or_else(|| fail("", format!("not a rule: {line}")))?;
            lines.push((name.trim(), body));
        }
        let names: Vec<&str> = lines.iter().map(|(n, _)| *n).collect();
        let mut rules = Vec::with_capacity(lines.len());
        for (name, body) in &lines {
            let chars: Vec<char> = body.chars().collect();
            let mut p = Parser { s: &chars, i: 0, names: &names };
            let node = p.alt().map_err(|what| fail(name, what))?;
            if p.i != chars.len() {
                return Err(fail(name, format!("unexpected {:?}", chars[p.i])));
            }
            rules.push(node);
        }
        let root = names.iter().position(|n| *n == "root").ok_or_else(|| fail("", "no root rule".into()))?;
        Ok(Grammar { rules, root })
    }

    /// Whether `text` matches, could still become a match, or never can.
    pub fn fit(&self, text: &str) -> Fit {
        let chars: Vec<char> = text.chars().collect();
        let root = Node::Rule(self.root);
        if self.ends(&root, &chars, 0, false).contains(&chars.len()) {
            Fit::Complete
        } else if self.ends(&root, &chars, 0, true).contains(&chars.len()) {
            Fit::Prefix
        } else {
            Fit::Never
        }
    }

    /// Every position where a match of `node` from `at` can end, ascending; with `open`,
    /// running out of text part-way counts as reaching its end.
    fn ends(&self, node: &Node, s: &[char], at: usize, open: bool) -> Vec<usize> {
        let mut out = Vec::new();
        match node {
            Node::Literal(l) => {
                let rest = &s[at..];
                if rest.len() >= l.len() && rest[..l.len()] == l[..] {
                    out.push(at + l.len());
                } else if open && rest.len() < l.len() && l[..rest.len()] == rest[..] {
                    out.push(s.len());
                }
            }
            Node::Class { negated, ranges } => match s.get(at) {
                Some(c) if ranges.iter().any(|(a, b)| a <= c && c <= b) != *negated => out.push(at + 1),
                None if open => out.push(at),
                _ => {}
            },
            Node::Rule(i) => out = self.ends(&self.rules[*i], s, at, open),
            Node::Seq(parts) => {
                out.push(at);
                for part in parts {
                    out = set(out.iter().flat_map(|&p| self.ends(part, s, p, open)).collect());
                }
            }
            Node::Alt(options) => out = set(options.iter().flat_map(|o| self.ends(o, s, at, open)).collect()),
            Node::Repeat(inner, min, max) => {
                let mut frontier = vec![at];
                let mut count = 0;
                loop {
                    if count >= *min {
                        out.extend_from_slice(&frontier);
                    }
                    if max.is_some_and(|m| count >= m) || frontier.is_empty() {
                        break;
                    }
                    let next = set(frontier.iter().flat_map(|&p| self.ends(inner, s, p, open)).collect());
                    // Past the minimum, a repetition that consumes nothing cannot go further.
                    frontier = next.into_iter().filter(|p| count < *min || !frontier.contains(p)).collect();
                    count += 1;
                }
                out = set(out);
            }
        }
        out
    }
}

/// Positions, sorted and without repeats.
fn set(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
    /// The grammar's rule names, in order: a name becomes its index.
    names: &'a [&'a str],
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Result<char, String> {
        let c = self.peek().ok_or("the rule ends early")?;
        self.i += 1;
        Ok(c)
    }

    fn alt(&mut self) -> Result<Node, String> {
        let mut options = vec![self.seq()?];
        while self.peek() == Some('|') {
            self.i += 1;
            options.push(self.seq()?);
        }
        Ok(if options.len() == 1 { options.remove(0) } else { Node::Alt(options) })
    }

    fn seq(&mut self) -> Result<Node, String> {
        let mut parts = Vec::new();
        loop {
            while self.peek().is_some_and(char::is_whitespace) {
                self.i += 1;
            }
            match self.peek() {
                None | Some('|') | Some(')') => return Ok(Node::Seq(parts)),
                _ => {
                    let atom = self.atom()?;
                    parts.push(self.postfix(atom)?);
                }
            }
        }
    }

    fn atom(&mut self) -> Result<Node, String> {
        match self.next()? {
            '"' => {
                let mut lit = Vec::new();
                while self.peek() != Some('"') {
                    lit.push(self.char()?);
                }
                self.i += 1;
                Ok(Node::Literal(lit))
            }
            '[' => {
                let negated = self.peek() == Some('^');
                if negated {
                    self.i += 1;
                }
                let mut ranges = Vec::new();
                while self.peek() != Some(']') {
                    let a = self.char()?;
                    let b = if self.peek() == Some('-') && self.s.get(self.i + 1) != Some(&']') {
                        self.i += 1;
                        self.char()?
                    } else {
                        a
                    };
                    ranges.push((a, b));
                }
                self.i += 1;
                Ok(Node::Class { negated, ranges })
            }
            '(' => {
                let inner = self.alt()?;
                if self.next()? != ')' {
                    return Err("a group is not closed".into());
                }
                Ok(inner)
            }
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => {
                let start = self.i - 1;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                    self.i += 1;
                }
                let name: String = self.s[start..self.i].iter().collect();
                let i = self.names.iter().position(|n| *n == name).ok_or(format!("names the undefined rule {name}"))?;
                Ok(Node::Rule(i))
            }
            other => Err(format!("unexpected {other:?}")),
        }
    }

    fn postfix(&mut self, mut node: Node) -> Result<Node, String> {
        loop {
            let (min, max) = match self.peek() {
                Some('?') => (0, Some(1)),
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('{') => {
                    let close = self.s[self.i..].iter().position(|&c| c == '}').ok_or("a { is not closed")? + self.i;
                    let body: String = self.s[self.i + 1..close].iter().collect();
                    self.i = close;
                    let num = |t: &str| t.trim().parse::<usize>().map_err(|_| format!("a bad count {{{body}}}"));
                    match body.split_once(',') {
                        None => (num(&body)?, Some(num(&body)?)),
                        Some((m, n)) if n.trim().is_empty() => (num(m)?, None),
                        Some((m, n)) => (num(m)?, Some(num(n)?)),
                    }
                }
                _ => return Ok(node),
            };
            self.i += 1;
            node = Node::Repeat(Box::new(node), min, max);
        }
    }

    /// One character of a literal or class, with GBNF's escapes.
    fn char(&mut self) -> Result<char, String> {
        let c = self.next()?;
        if c != '\\' {
            return Ok(c);
        }
        let hex = |p: &mut Self, n: usize| -> Result<char, String> {
            let h: String = p.s.get(p.i..p.i + n).ok_or("a short escape")?.iter().collect();
            p.i += n;
            u32::from_str_radix(&h, 16).ok().and_then(char::from_u32).ok_or(format!("a bad escape {h}"))
        };
        Ok(match self.next()? {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'x' => hex(self, 2)?,
            'u' => hex(self, 4)?,
            'U' => hex(self, 8)?,
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_sub_schemas_share_one_rule() {
        let id = json!({"type": "string", "enum": ["m_1", "m_2"]});
        let g = grammar(&json!({"type": "object", "properties": {"a": id, "b": id}, "required": ["a", "b"]})).unwrap();
        assert_eq!(g.matches(r#""\"m_1\"" | "\"m_2\"""#).count(), 1, "{g}");
    }

    #[test]
    fn uncovered_schemas_name_the_place() {
        let e = grammar(&json!({"type": "object", "properties": {"x": {"type": "tuple"}}})).unwrap_err();
        assert_eq!(e.path, ".properties.x");
        assert!(e.to_string().contains("\"tuple\""));
        let e = grammar(&json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}))
            .unwrap_err();
        assert!(e.what.contains("\"y\" is required"));
    }

    #[test]
    fn a_broken_grammar_is_refused_with_the_rule_named() {
        assert!(Grammar::parse("r0 ::= \"a\"").unwrap_err().what.contains("no root"));
        let e = Grammar::parse("root ::= r9").unwrap_err();
        assert_eq!((e.path.as_str(), e.what.as_str()), ("root", "names the undefined rule r9"));
        assert!(Grammar::parse("root ::= (\"a\"").is_err());
        assert!(Grammar::parse("root ::= \"a\"{x}").is_err());
    }

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(literal(r#""a\"b""#), r#""\"a\\\"b\"""#);
        assert_eq!(literal("tab\there"), "\"tab\\there\"");
    }
}
