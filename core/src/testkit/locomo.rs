//! A reader for LoCoMo conversations (Maharana et al., ACL 2024; the format is described in
//! the steering repository's `shared/locomo/README.md`): two speakers, dated sessions of
//! turns with dialog ids, and questions naming the turns that hold their answer. Benchmark
//! data: read here for `nocturne bench-conversation`, never shipped with the product.
//!
//! ```
//! use nocturne_core::testkit::locomo;
//! let c = locomo::read(r#"{"speaker_a": "Ana", "speaker_b": "Rui",
//!   "session_1_date_time": "1:56 pm on 8 May, 2023",
//!   "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I went to Porto yesterday."}],
//!   "qa": [{"question": "When did Ana go to Porto?", "answer": "7 May 2023", "evidence": ["D1:1", "D9:9"], "category": 2}]}"#).unwrap();
//! assert_eq!(c.sessions[0].turns[0].speaker, "Ana");
//! assert_eq!(c.questions[0].evidence, ["D1:1"]);
//! assert_eq!(c.skipped_evidence, 1, "an id no turn has");
//! ```

use serde_json::Value;
use std::collections::HashSet;

/// One conversation.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversation {
    pub speakers: [String; 2],
    pub sessions: Vec<Session>,
    pub questions: Vec<Question>,
    /// Evidence ids that name no turn (stray spaces are trimmed first), left out.
    pub skipped_evidence: usize,
}

pub use crate::history::locomo::{session_time, Session, Turn};

/// A question, its gold answer and the dialog ids of its evidence.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub question: String,
    pub answer: String,
    pub evidence: Vec<String>,
    /// 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
    pub category: u8,
}

/// Reads one conversation file; `Err` says what is missing or malformed.
pub fn read(json: &str) -> Result<Conversation, crate::history::locomo::NotLocomo> {
    read_file(json).map_err(crate::history::locomo::NotLocomo)
}

fn read_file(json: &str) -> Result<Conversation, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let (speakers, sessions) = crate::history::locomo::sessions(&v)?;
    let ids: HashSet<&str> = sessions.iter().flat_map(|s| &s.turns).map(|t| t.dia_id.as_str()).collect();
    let mut skipped_evidence = 0;
    let mut questions = Vec::new();
    for q in v["qa"].as_array().ok_or("no 'qa'")? {
        let mut evidence = Vec::new();
        for e in q["evidence"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            let e = e.trim();
            if ids.contains(e) {
                evidence.push(e.to_string());
            } else {
                skipped_evidence += 1;
            }
        }
        let answer = match &q["answer"] {
            Value::String(s) => s.clone(),
            Value::Null => q["adversarial_answer"].as_str().unwrap_or_default().to_string(),
            other => other.to_string(),
        };
        questions.push(Question {
            question: q["question"].as_str().unwrap_or_default().to_string(),
            answer,
            evidence,
            category: q["category"].as_u64().unwrap_or(0) as u8,
        });
    }
    Ok(Conversation { speakers, sessions, questions, skipped_evidence })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::when::Day;

    #[test]
    fn session_times_read_as_written() {
        let t = session_time("1:56 pm on 8 May, 2023").unwrap();
        assert_eq!(Day::from_unix(t).to_string(), "2023-05-08");
        assert_eq!(t % 86_400, 13 * 3600 + 56 * 60);
        assert_eq!(session_time("12:06 am on 11 November, 2022").map(|t| t % 86_400), Some(6 * 60));
        assert_eq!(session_time("noon on 8 May, 2023"), None);
    }
}
