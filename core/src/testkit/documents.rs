//! Broken memory files, made from a real export: truncated, foreign, a future schema,
//! ids that would collide, dangling references, huge strings, wrong types. Every store and
//! every import path must refuse each one with a message naming what is wrong, and change
//! nothing. The same fixtures run natively, in the CLI and in the browser.

use crate::flow::chat;
use crate::llm::offline::OfflineProvider;
use crate::store::document::Document;
use crate::store::MemStore;
use serde_json::{json, Value};

/// One broken file and a substring its refusal must contain.
#[derive(Clone, Debug)]
pub struct BrokenDocument {
    pub name: &'static str,
    pub text: String,
    pub expect: &'static str,
}

/// A real export: a short conversation through the offline provider.
pub async fn valid_export(now: i64) -> Document {
    let store = MemStore::new();
    for (i, text) in
        ["I live in Ghent and I teach chemistry.", "I keep a cat called Miso.", "I don't eat meat."].iter().enumerate()
    {
        // The offline provider never fails; a failure here would show as an empty export.
        let _ = chat::chat_turn(&store, &OfflineProvider, text, now + i as i64, chat::TurnOptions::default()).await;
    }
    store.document()
}

/// Every broken variant of `valid` (which must hold at least one item, change and mutation).
pub fn broken_documents(valid: &Document) -> Vec<BrokenDocument> {
    let text = valid.to_json();
    let base: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        serde_json::to_string_pretty(&v).unwrap_or_default()
    };
    let huge = "x".repeat(1_000_000);
    vec![
        BrokenDocument { name: "not JSON", text: "this is not a memory".into(), expect: "not JSON" },
        BrokenDocument { name: "truncated", text: text[..text.len() / 2].to_string(), expect: "not JSON" },
        BrokenDocument {
            name: "a foreign file",
            text: edit(&|v| v["format"] = json!("someone-elses-notes")),
            expect: "not a Nocturne memory export",
        },
        BrokenDocument {
            name: "a future schema",
            text: edit(&|v| v["schemaVersion"] = json!(99)),
            expect: "schema version 99",
        },
        BrokenDocument {
            name: "an id counter behind its items",
            text: edit(&|v| v["meta"]["nextItem"] = json!(1)),
            expect: "meta.nextItem",
        },
        BrokenDocument {
            name: "a mutation counter behind its log",
            text: edit(&|v| v["meta"]["nextMutation"] = json!(0)),
            expect: "meta.nextMutation",
        },
        BrokenDocument {
            name: "an item twice",
            text: edit(&|v| {
                let first = v["items"][0].clone();
                if let Some(items) = v["items"].as_array_mut() {
                    items.push(first);
                }
            }),
            expect: "appears twice",
        },
        BrokenDocument {
            name: "a dangling mutation reference",
            text: edit(&|v| {
                if let Some(m) =
                    v["mutations"].as_array_mut().and_then(|ms| ms.iter_mut().find(|m| m["accepted"] == true))
                {
                    m["itemId"] = json!("m_999");
                }
            }),
            expect: "m_999",
        },
        BrokenDocument {
            name: "a dangling supersededBy",
            text: edit(&|v| v["items"][0]["supersededBy"] = json!("m_404")),
            expect: "m_404",
        },
        BrokenDocument {
            name: "a change to a missing version",
            text: edit(&|v| v["changes"][0]["seq"] = json!(4242)),
            expect: "v4242",
        },
        BrokenDocument {
            name: "a huge string",
            text: edit(&|v| {
                v["items"][0]["text"] = json!(huge);
                v["changes"][0]["item"]["text"] = json!(huge);
            }),
            expect: "characters",
        },
        BrokenDocument { name: "a wrong type", text: edit(&|v| v["meta"]["head"] = json!("three")), expect: "damaged" },
        BrokenDocument {
            name: "a cursor past the transcript",
            text: edit(&|v| v["meta"]["encodedThrough"] = json!(500)),
            expect: "meta.encodedThrough",
        },
        BrokenDocument {
            name: "a head that is not the newest version",
            text: edit(&|v| v["meta"]["head"] = json!(77)),
            expect: "meta.head",
        },
        BrokenDocument {
            name: "a live row that differs from its history",
            text: edit(&|v| v["items"][0]["text"] = json!("I live on the moon.")),
            expect: "differs from its row",
        },
    ]
}
