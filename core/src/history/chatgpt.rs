//! The ChatGPT data export: an array of conversations, each a tree of `mapping` nodes.
//! Only the branch that ends at `current_node` is read (walked back through `parent`), so a
//! regenerated or edited answer is not imported twice.

use super::{string, time, Conversation, Message, Skipped};
use crate::model::memory::Role;
use serde_json::Value;
use std::collections::HashSet;

/// Conversation number `n` (from 1) of the export.
pub(super) fn conversation(c: &Value, n: usize, now: i64, skipped: &mut Skipped) -> Result<Conversation, String> {
    let mapping = c
        .get("mapping")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("conversation {n} has no 'mapping' object"))?;
    let id = string(c, "conversation_id").or_else(|| string(c, "id")).map_or_else(|| format!("#{n}"), String::from);
    let started = c.get("create_time").and_then(time).unwrap_or(now);
    let leaf = match string(c, "current_node") {
        Some(node) if mapping.contains_key(node) => Some(node.to_string()),
        Some(node) => return Err(format!("conversation {n}'s current_node {node:?} is not in its mapping")),
        // No current node: the newest leaf is the branch the person saw last.
        None => newest_leaf(mapping),
    };
    // Walk back from the leaf; a cycle or a missing parent ends the branch.
    let mut branch = Vec::new();
    let mut seen = HashSet::new();
    let mut at = leaf;
    while let Some(key) = at {
        if !seen.insert(key.clone()) {
            return Err(format!("conversation {n}'s mapping loops at node {key:?}"));
        }
        let Some(node) = mapping.get(&key) else { break };
        branch.push(node);
        at = string(node, "parent").map(String::from);
    }
    branch.reverse();
    skipped.other_branches += mapping.iter().filter(|(k, node)| !seen.contains(k.as_str()) && is_spoken(node)).count();
    let mut messages = Vec::new();
    for node in branch {
        let Some(m) = node.get("message").filter(|m| m.is_object()) else { continue };
        let role = match m.pointer("/author/role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                skipped.not_a_turn += 1;
                continue;
            }
        };
        let meta = m.get("metadata");
        let flag = |k: &str| meta.and_then(|x| x.get(k)).and_then(Value::as_bool).unwrap_or(false);
        if flag("is_visually_hidden_from_conversation") || flag("is_user_system_message") {
            skipped.hidden += 1;
            continue;
        }
        let content_type = m.pointer("/content/content_type").and_then(Value::as_str).unwrap_or_default();
        if !matches!(content_type, "text" | "multimodal_text") {
            // Custom instructions (`user_editable_context`), code, tool output, browsing.
            skipped.not_a_turn += 1;
            continue;
        }
        let text = m
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        if text.is_empty() {
            skipped.empty += 1;
            continue;
        }
        let msg_id = string(m, "id").or_else(|| string(node, "id")).unwrap_or_default();
        messages.push(Message {
            source: format!("chatgpt:{id}:{msg_id}"),
            role,
            text,
            at: m.get("create_time").and_then(time).unwrap_or(started),
            speaker: None,
        });
    }
    let title = string(c, "title").map(String::from);
    Ok(Conversation { id, title, messages })
}

/// A node that holds a user's or assistant's message (what a skipped branch would lose).
fn is_spoken(node: &Value) -> bool {
    matches!(node.pointer("/message/author/role").and_then(Value::as_str), Some("user" | "assistant"))
}

/// The key of the leaf whose message is newest.
fn newest_leaf(mapping: &serde_json::Map<String, Value>) -> Option<String> {
    mapping
        .iter()
        .filter(|(_, node)| node.get("children").and_then(Value::as_array).is_none_or(Vec::is_empty))
        .max_by(|a, b| {
            let t = |n: &Value| n.pointer("/message/create_time").and_then(Value::as_f64).unwrap_or(0.0);
            t(a.1).total_cmp(&t(b.1))
        })
        .map(|(k, _)| k.clone())
}
