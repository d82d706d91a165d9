//! A plain chat log in JSON Lines: one `{"role", "content", "timestamp"?}` object per line,
//! `content` a string or `text` blocks; `conversation` (or `conversation_id`) groups lines,
//! `name` (or `speaker`) names who spoke. A line's source id is a digest of its role, time
//! and words (and how many identical lines came before), so a longer later log of the same
//! conversation adds only its new lines.

use super::{string, time, Conversation, History, Message, Skipped};
use crate::history::Format;
use crate::model::memory::Role;
use serde_json::Value;
use std::collections::HashMap;

pub(super) fn read(text: &str, now: i64) -> Result<History, String> {
    let mut skipped = Skipped::default();
    let mut order: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, Vec<Message>> = HashMap::new();
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| {
            if e.is_eof() {
                format!("line {n} ends in the middle of its JSON: the file looks truncated")
            } else {
                format!("line {n} is not a JSON object ({e})")
            }
        })?;
        if !v.is_object() {
            return Err(format!("line {n} is not a JSON object"));
        }
        let role = match v.get("role").and_then(Value::as_str).map(str::to_ascii_lowercase).as_deref() {
            Some("user" | "human") => Role::User,
            Some("assistant" | "ai" | "bot" | "model") => Role::Assistant,
            Some(_) => {
                skipped.not_a_turn += 1;
                continue;
            }
            None => return Err(format!("line {n} has no 'role'")),
        };
        let words = match v.get("content") {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|b| b.as_str().or_else(|| string(b, "text")))
                .map(str::trim)
                .collect::<Vec<_>>()
                .join("\n"),
            Some(Value::Null) => String::new(),
            Some(_) => return Err(format!("line {n}'s 'content' is neither text nor a list of text blocks")),
            None => return Err(format!("line {n} has no 'content'")),
        };
        if words.is_empty() {
            skipped.empty += 1;
            continue;
        }
        let stamp = v.get("timestamp").or_else(|| v.get("time")).or_else(|| v.get("created_at"));
        let at = match stamp {
            None | Some(Value::Null) => now,
            Some(s) => time(s)
                .ok_or_else(|| format!("line {n}'s timestamp {s} is neither Unix seconds nor an ISO-8601 date"))?,
        };
        let conversation =
            string(&v, "conversation").or_else(|| string(&v, "conversation_id")).unwrap_or("log").to_string();
        let stamp_text = stamp.map(Value::to_string).unwrap_or_default();
        let digest = fnv(&[conversation.as_bytes(), role.as_str().as_bytes(), stamp_text.as_bytes(), words.as_bytes()]);
        let k = seen.entry(digest).or_default();
        *k += 1;
        let message = Message {
            source: format!("jsonl:{conversation}:{digest:016x}-{k}"),
            role,
            text: words,
            at,
            speaker: string(&v, "name").or_else(|| string(&v, "speaker")).map(String::from),
        };
        if !by_id.contains_key(&conversation) {
            order.push(conversation.clone());
        }
        by_id.entry(conversation).or_default().push(message);
    }
    let conversations = order
        .into_iter()
        .map(|id| {
            let messages = by_id.remove(&id).unwrap_or_default();
            Conversation { id, title: None, messages }
        })
        .collect();
    Ok(History { format: Format::Jsonl, conversations, skipped })
}

/// FNV-1a over the parts, each followed by a 0 byte (stable across builds and targets).
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(&[0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}
