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
use std::collections::HashMap;
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
    /// Named rules in creation order, and their names by body so equal bodies share one.
    rules: Vec<(String, String)>,
    names: HashMap<String, String>,
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
        if let Some(name) = self.names.get(&body) {
            return name.clone();
        }
        let name = format!("r{}", self.rules.len());
        self.names.insert(body.clone(), name.clone());
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
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(literal(r#""a\"b""#), r#""\"a\\\"b\"""#);
        assert_eq!(literal("tab\there"), "\"tab\\there\"");
    }
}
