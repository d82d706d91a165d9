//! Reading a proposal's fields, with refusals that name the field and what was found, and
//! the one wording every gate uses for tokens a text invents.

use serde_json::Value;

/// A gate's intermediate result: the refusal reason travels as the error.
pub(super) type Ruling<T> = Result<T, String>;

/// "N content token(s) <where> (a, b, c)": the one wording for untraceable tokens, at
/// most eight of them named.
pub(super) fn invented(missing: &[String], place: &str) -> String {
    let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
    format!("{} content token(s) {place} ({})", missing.len(), shown.join(", "))
}

/// What kind of JSON value `v` is, for messages (`a string`, `an object`).
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn required_str<'v>(p: &'v Value, field: &str) -> Ruling<&'v str> {
    match p.get(field) {
        None | Some(Value::Null) => Err(format!("malformed proposal: field '{field}' is missing")),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("malformed proposal: field '{field}' must be a string, got {}", json_type(other))),
    }
}

pub(super) fn optional_str<'v>(p: &'v Value, field: &str) -> Ruling<Option<&'v str>> {
    match p.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("malformed proposal: field '{field}' must be a string, got {}", json_type(other))),
    }
}

pub(super) fn required_str_list<'v>(p: &'v Value, field: &str) -> Ruling<Vec<&'v str>> {
    match p.get(field) {
        None | Some(Value::Null) => Err(format!("malformed proposal: field '{field}' is missing")),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.as_str()),
                other => Err(format!(
                    "malformed proposal: every entry of '{field}' must be a string, got {}",
                    json_type(other)
                )),
            })
            .collect(),
        Some(other) => {
            Err(format!("malformed proposal: field '{field}' must be an array of ids, got {}", json_type(other)))
        }
    }
}

pub(super) fn require_reason(reason: Option<&str>) -> Ruling<()> {
    match reason {
        Some(r) if !r.trim().is_empty() => Ok(()),
        _ => Err("reason is empty: every edit must say why".into()),
    }
}
