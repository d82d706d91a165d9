//! An export's `.zip`, read as downloaded (the `zip` crate: pure Rust, deflate by
//! miniz_oxide, from bytes in memory). Only the conversation files are read:
//! `conversations.json` or ChatGPT's split `conversations-000.json …`, in name order.

use crate::text::order;
use std::io::{Cursor, Read};

/// The largest conversation file read out of a zip (a zip bomb is refused, not inflated).
const MAX_ENTRY_BYTES: u64 = 2 << 30;

pub(super) fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// The conversation files of a zip, `(name, text)`, in name order.
pub(super) fn conversations(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("is not a readable zip ({e})"))?;
    let mut names: Vec<String> = zip.file_names().filter(|n| is_conversations(n)).map(String::from).collect();
    if names.is_empty() {
        let mut held: Vec<&str> = zip.file_names().take(8).collect();
        held.sort_unstable();
        let held = if held.is_empty() { "nothing".to_string() } else { held.join(", ") };
        return Err(format!("the zip holds no conversations.json (it holds {held})"));
    }
    order::sort(&mut names);
    let mut files = Vec::with_capacity(names.len());
    for name in names {
        let entry = zip.by_name(&name).map_err(|e| format!("{name} cannot be read from the zip ({e})"))?;
        if entry.size() > MAX_ENTRY_BYTES {
            return Err(format!("{name} would inflate to {} bytes, more than {MAX_ENTRY_BYTES}", entry.size()));
        }
        let mut text = String::with_capacity(entry.size() as usize);
        entry
            .take(MAX_ENTRY_BYTES)
            .read_to_string(&mut text)
            .map_err(|e| format!("{name} cannot be read from the zip ({e}): the zip may be truncated or not UTF-8"))?;
        files.push((name, text));
    }
    Ok(files)
}

/// `conversations.json` or `conversations-NNN.json`, in any folder of the zip.
fn is_conversations(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let Some(stem) = file.strip_suffix(".json") else { return false };
    stem == "conversations"
        || stem.strip_prefix("conversations-").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversation_files_are_recognised_by_name() {
        for yes in
            ["conversations.json", "export/conversations.json", "conversations-000.json", "conversations-12.json"]
        {
            assert!(is_conversations(yes), "{yes}");
        }
        for no in ["users.json", "conversations.html", "conversations-.json", "conversations-a1.json", "chat.html"] {
            assert!(!is_conversations(no), "{no}");
        }
    }
}
