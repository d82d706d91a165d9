//! The citation gate: a reply may cite only facts its prompt carried. A model that names
//! any other id — one it saw in an earlier turn, a forgotten one, or an invented one —
//! is refused, and the refusal is logged like every gate's.

use crate::gate::{Edit, Verdict};

/// Judges one cited id (stored form, `m_17`) against the ids the reply's prompt carried.
///
/// ```
/// use nocturne_core::gate::cite::judge;
/// let shown = ["m_1".to_string(), "m_4".to_string()];
/// assert!(judge("m_4", &shown).is_accepted());
/// assert!(judge("m_9", &shown).refusal().unwrap().contains("m_9"));
/// ```
pub fn judge(cited: &str, shown: &[String]) -> Verdict {
    if shown.iter().any(|s| s == cited) {
        Verdict::Accept(Edit::Cite { item_id: cited.to_string() })
    } else {
        Verdict::Refuse(format!(
            "the reply cites {cited}, which its prompt did not carry (it carried {} fact(s){})",
            shown.len(),
            if shown.is_empty() { String::new() } else { format!(": {}", preview(shown)) }
        ))
    }
}

fn preview(ids: &[String]) -> String {
    let head: Vec<&str> = ids.iter().take(8).map(String::as_str).collect();
    if ids.len() > head.len() {
        format!("{}, …", head.join(", "))
    } else {
        head.join(", ")
    }
}
