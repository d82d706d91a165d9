//! The Claude.ai data export: `conversations.json`, an array of `{uuid, name, created_at,
//! chat_messages}`; a message's text is its `text`, or the `text` blocks of its `content`.
//! Attachments' extracted contents are files, not the person's words: left out.

use super::{string, time, Conversation, Message, Skipped};
use crate::model::memory::Role;
use serde_json::Value;

/// Conversation number `n` (from 1) of the export.
pub(super) fn conversation(c: &Value, n: usize, now: i64, skipped: &mut Skipped) -> Result<Conversation, String> {
    let chat = c
        .get("chat_messages")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("conversation {n} has no 'chat_messages' array"))?;
    let id = string(c, "uuid").map_or_else(|| format!("#{n}"), String::from);
    let started = c.get("created_at").and_then(time).unwrap_or(now);
    let mut messages = Vec::new();
    for (i, m) in chat.iter().enumerate() {
        let role = match m.get("sender").and_then(Value::as_str) {
            Some("human") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                skipped.not_a_turn += 1;
                continue;
            }
        };
        let text = match string(m, "text") {
            Some(t) => t.trim().to_string(),
            None => blocks(m),
        };
        if text.is_empty() {
            skipped.empty += 1;
            continue;
        }
        let msg_id = string(m, "uuid").map_or_else(|| format!("#{}", i + 1), String::from);
        messages.push(Message {
            source: format!("claude:{id}:{msg_id}"),
            role,
            text,
            at: m.get("created_at").and_then(time).unwrap_or(started),
            speaker: None,
        });
    }
    Ok(Conversation { id, title: string(c, "name").map(String::from), messages })
}

/// The text of a message's `content` blocks of type `text`, joined.
fn blocks(m: &Value) -> String {
    let Some(content) = m.get("content").and_then(Value::as_array) else { return String::new() };
    content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| string(b, "text"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}
