//! Exports built by script, as ChatGPT and Claude.ai write them, for the import tests, the
//! browser tests and the import bench: a realistic small ChatGPT export (a regenerated
//! answer, an edited question, a null title, a null time, hidden and system messages,
//! custom instructions, an image with words, a tool call, non-ASCII text), the same split in
//! two files, a Claude export (content blocks, an attachment), a zip of any of them, and a
//! large synthetic ChatGPT export for scale.

use serde_json::{json, Value};
use std::io::{Cursor, Write};

/// 2024-03-04T10:00:00Z, when the small exports begin.
pub const START: i64 = 1_709_546_400;

/// The user messages the small ChatGPT export must import: (text, Unix seconds), in order.
pub fn chatgpt_expected() -> Vec<(&'static str, i64)> {
    vec![
        ("I moved to Lisbon in March.", START + 60),
        ("My sister is called Inês.", START + 300),
        ("This is my dog Bolt. He is three years old.", START),
        ("Je m'appelle Zoë and I work in Zürich as a nurse.", START + 86_400 + 30),
    ]
}

/// A ChatGPT export of two conversations (see the module's list of what it holds).
pub fn chatgpt_conversations() -> Vec<Value> {
    let t = |s: i64| json!((START + s) as f64 + 0.25);
    let node = |id: &str, parent: Option<&str>, children: &[&str], message: Value| json!({"id": id, "parent": parent, "children": children, "message": message});
    let msg = |id: &str, role: &str, content_type: &str, parts: Value, at: Value, meta: Value| {
        json!({"id": id, "author": {"role": role, "name": null, "metadata": {}}, "create_time": at,
               "update_time": null, "content": {"content_type": content_type, "parts": parts},
               "status": "finished_successfully", "end_turn": true, "weight": 1.0, "metadata": meta,
               "recipient": "all"})
    };
    let text = |id: &str, role: &str, words: &str, at: Value| msg(id, role, "text", json!([words]), at, json!({}));
    let first = json!({
        "title": null,
        "create_time": START as f64,
        "update_time": (START + 400) as f64,
        "conversation_id": "c-one",
        "id": "c-one",
        "current_node": "a3",
        "mapping": {
            "root": node("root", None, &["sys"], Value::Null),
            "sys": node("sys", Some("root"), &["ci"], msg("sys", "system", "text", json!([""]), Value::Null,
                json!({"is_visually_hidden_from_conversation": true}))),
            "ci": node("ci", Some("sys"), &["u1"], msg("ci", "user", "user_editable_context", json!(null), Value::Null,
                json!({"is_visually_hidden_from_conversation": true, "user_context_message_data": {"about_user_message": "I am a chef."}}))),
            "u1": node("u1", Some("ci"), &["a1-old", "a1"], text("u1", "user", "I moved to Lisbon in March.", t(60))),
            "a1-old": node("a1-old", Some("u1"), &[], text("a1-old", "assistant", "A regenerated answer nobody kept.", t(70))),
            "a1": node("a1", Some("u1"), &["u2-old", "u2"], text("a1", "assistant", "Lisbon is lovely in spring.", t(80))),
            "u2-old": node("u2-old", Some("a1"), &["a2-old"], text("u2-old", "user", "My sister is called Ana.", t(200))),
            "a2-old": node("a2-old", Some("u2-old"), &[], text("a2-old", "assistant", "Hello to Ana.", t(210))),
            "u2": node("u2", Some("a1"), &["tool"], text("u2", "user", "My sister is called Inês.", t(300))),
            "tool": node("tool", Some("u2"), &["a2"], msg("tool", "tool", "execution_output", json!(["ok"]), t(305), json!({}))),
            "a2": node("a2", Some("tool"), &["u3"], text("a2", "assistant", "Inês is a beautiful name.", t(310))),
            "u3": node("u3", Some("a2"), &["a3"], msg("u3", "user", "multimodal_text",
                json!([{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-1", "width": 512}, "This is my dog Bolt. He is three years old."]),
                Value::Null, json!({}))),
            "a3": node("a3", Some("u3"), &[], text("a3", "assistant", "Bolt looks happy.", t(400)))
        }
    });
    let second = json!({
        "title": "Travail",
        "create_time": (START + 86_400) as f64,
        "update_time": (START + 86_460) as f64,
        "conversation_id": "c-two",
        "current_node": "b2",
        "mapping": {
            "r": node("r", None, &["b1"], Value::Null),
            "b1": node("b1", Some("r"), &["b-img"], text("b1", "user", "Je m'appelle Zoë and I work in Zürich as a nurse.", t(86_430))),
            "b-img": node("b-img", Some("b1"), &["b2"], msg("b-img", "user", "multimodal_text",
                json!([{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-2"}]), t(86_440), json!({}))),
            "b2": node("b2", Some("b-img"), &[], text("b2", "assistant", "Enchanté, Zoë.", t(86_450)))
        }
    });
    vec![first, second]
}

/// The user messages the Claude export must import: (text, Unix seconds), in order.
pub fn claude_expected() -> Vec<(&'static str, i64)> {
    vec![
        ("I work at Acme as a nurse.", START + 3_600),
        ("I have two cats, Miso and Tofu.", START + 3_600 + 120 - 7_200),
    ]
}

/// A Claude.ai export of one conversation (content blocks, an attachment whose extracted
/// words must not be imported, a time with an offset).
pub fn claude_conversations() -> Vec<Value> {
    vec![json!({
        "uuid": "k-one",
        "name": "",
        "created_at": "2024-03-04T11:00:00.000000Z",
        "updated_at": "2024-03-04T11:05:00.000000Z",
        "account": {"uuid": "acc"},
        "chat_messages": [
            {"uuid": "k1", "text": "", "sender": "human", "created_at": "2024-03-04T11:00:00.000000Z",
             "content": [{"type": "text", "text": "I work at Acme as a nurse."},
                         {"type": "tool_use", "name": "search", "input": {}}],
             "attachments": [{"file_name": "notes.txt", "file_type": "txt", "file_size": 20,
                              "extracted_content": "Attachment words that nobody said."}],
             "files": []},
            {"uuid": "k2", "text": "Good to know.", "sender": "assistant", "created_at": "2024-03-04T11:01:00Z",
             "content": [{"type": "text", "text": "Good to know."}], "attachments": [], "files": []},
            {"uuid": "k3", "text": "I have two cats, Miso and Tofu.", "sender": "human",
             "created_at": "2024-03-04T11:02:00+02:00", "content": [], "attachments": [], "files": []}
        ]
    })]
}

/// `files` as a zip archive (deflated), as an export downloads.
pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        out.start_file(*name, options).expect("a zip entry starts in memory");
        out.write_all(bytes).expect("a zip entry writes to memory");
    }
    out.finish().expect("a zip finishes in memory").into_inner()
}

/// A synthetic ChatGPT export (`conversations.json`'s bytes): see [`synthetic_conversations`].
pub fn synthetic_chatgpt(conversations: usize, turns: usize) -> Vec<u8> {
    serde_json::to_vec(&synthetic_conversations(conversations, turns)).expect("a JSON value serialises")
}

/// `conversations` ChatGPT conversations, each of `turns` user messages (with a reply each
/// and a regenerated answer on the first), dated a day apart (the first two days after the
/// small export's), whose user messages state varied facts. Deterministic.
pub fn synthetic_conversations(conversations: usize, turns: usize) -> Vec<Value> {
    const PEOPLE: [&str; 8] = ["Ana", "Rui", "Inês", "Tomás", "Marta", "Joana", "Pedro", "Zoë"];
    const CITIES: [&str; 8] = ["Lisbon", "Porto", "Ghent", "Zürich", "Kyoto", "Lima", "Oslo", "Accra"];
    const THINGS: [&str; 8] = ["guitar", "bicycle", "garden", "novel", "kayak", "camera", "piano", "telescope"];
    let mut list = Vec::with_capacity(conversations);
    for c in 0..conversations {
        let at = START + (c as i64 + 2) * 86_400;
        let mut mapping = serde_json::Map::new();
        mapping.insert("root".into(), json!({"id": "root", "parent": null, "children": ["u0"], "message": null}));
        let mut parent = "root".to_string();
        for t in 0..turns {
            let (u, a) = (format!("u{t}"), format!("a{t}"));
            let k = c * 31 + t * 7;
            let words = format!(
                "My friend {} lives in {} and plays the {} every weekend. We met in {} near the harbour, conversation {c} message {t}.",
                PEOPLE[k % 8],
                CITIES[(k / 8) % 8],
                THINGS[(k / 64) % 8],
                2000 + (k % 24)
            );
            let next_user = if t + 1 < turns { vec![format!("u{}", t + 1)] } else { vec![] };
            let user_at = (at + (t as i64) * 120) as f64;
            mapping.insert(u.clone(), json!({"id": u, "parent": parent, "children": if t == 0 { vec![format!("x{t}"), a.clone()] } else { vec![a.clone()] },
                "message": {"id": u, "author": {"role": "user"}, "create_time": user_at,
                    "content": {"content_type": "text", "parts": [words]}, "metadata": {}}}));
            if t == 0 {
                mapping.insert(format!("x{t}"), json!({"id": format!("x{t}"), "parent": u, "children": [],
                    "message": {"id": format!("x{t}"), "author": {"role": "assistant"}, "create_time": user_at + 5.0,
                        "content": {"content_type": "text", "parts": ["An answer that was regenerated."]}, "metadata": {}}}));
            }
            let reply = format!(
                "That sounds lovely. {} Tell me more about it whenever you like; I will remember what matters.",
                "Here is a longer reply that an assistant would write, with a few sentences of advice. ".repeat(3)
            );
            mapping.insert(
                a.clone(),
                json!({"id": a, "parent": u, "children": next_user,
                "message": {"id": a, "author": {"role": "assistant"}, "create_time": user_at + 10.0,
                    "content": {"content_type": "text", "parts": [reply]}, "metadata": {}}}),
            );
            parent = a;
        }
        list.push(json!({"title": format!("Chat {c}"), "create_time": at as f64, "update_time": at as f64,
            "conversation_id": format!("syn-{c}"), "current_node": parent, "mapping": mapping}));
    }
    list
}
