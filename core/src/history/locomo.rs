//! A LoCoMo conversation (Maharana et al., ACL 2024): two speakers, dated sessions of turns
//! with dialog ids (`D3:5`). Both speakers are people, so every turn is a user turn that
//! carries its speaker's name; a turn is dated its session's time plus its place in it
//! (seconds), so the transcript keeps the order it was said in.

use super::{string, Conversation, History, Message, Skipped};
use crate::history::Format;
use crate::model::memory::Role;
use crate::text::when::Day;
use serde_json::Value;

/// A session: its turns, said from `at` (Unix seconds) on.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub number: u32,
    pub at: i64,
    pub turns: Vec<Turn>,
}

/// One turn: who said it, its dialog id (`D3:5`) and its text — with the caption of a
/// photo the speaker shared, which a person in the conversation would see.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub speaker: String,
    pub dia_id: String,
    pub text: String,
}

/// The two speakers and the sessions of a parsed LoCoMo file.
pub fn sessions(v: &Value) -> Result<([String; 2], Vec<Session>), NotLocomo> {
    sessions_or_why(v).map_err(NotLocomo)
}

/// A file that is not a LoCoMo conversation: what is missing or malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLocomo(pub String);

impl std::fmt::Display for NotLocomo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotLocomo {}

/// The words, where a reader reports them.
impl From<NotLocomo> for String {
    fn from(e: NotLocomo) -> String {
        e.0
    }
}

fn sessions_or_why(v: &Value) -> Result<([String; 2], Vec<Session>), String> {
    let name = |k: &str| v[k].as_str().map(String::from).ok_or(format!("no '{k}'"));
    let speakers = [name("speaker_a")?, name("speaker_b")?];
    let mut sessions = Vec::new();
    for number in 1.. {
        let Some(turns) = v[format!("session_{number}")].as_array() else { break };
        let when = v[format!("session_{number}_date_time")].as_str().unwrap_or_default();
        let at = session_time(when)
            .ok_or(format!("session {number}'s date '{when}' is not like '1:56 pm on 8 May, 2023'"))?;
        let turns = turns
            .iter()
            .map(|t| {
                let field = |k: &str| t[k].as_str().map(str::trim).unwrap_or_default().to_string();
                let mut text = field("text");
                let caption = field("blip_caption");
                if !caption.is_empty() {
                    text = format!("{} Photo shared: {caption}.", text.trim_end());
                }
                Turn { speaker: field("speaker"), dia_id: field("dia_id"), text }
            })
            .collect();
        sessions.push(Session { number, at, turns });
    }
    if sessions.is_empty() {
        return Err("no 'session_1'".into());
    }
    Ok((speakers, sessions))
}

/// `1:56 pm on 8 May, 2023` as Unix seconds (UTC).
pub fn session_time(text: &str) -> Option<i64> {
    let (clock, date) = text.split_once(" on ")?;
    let (hm, half) = clock.trim().split_once(' ')?;
    let (h, m) = hm.split_once(':')?;
    let (mut h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    match half.to_lowercase().as_str() {
        "pm" if h < 12 => h += 12,
        "am" if h == 12 => h = 0,
        "am" | "pm" => {}
        _ => return None,
    }
    let mut parts = date.split([' ', ',']).filter(|p| !p.is_empty());
    let day: u32 = parts.next()?.parse().ok()?;
    let month = parts.next()?.to_lowercase();
    let month = crate::text::when::MONTHS.iter().position(|n| *n == month)? as u32 + 1;
    let year: i64 = parts.next()?.parse().ok()?;
    Some(Day::from_ymd(year, month, day)?.start() + h * 3600 + m * 60)
}

pub(super) fn read(v: &Value) -> Result<History, String> {
    let (speakers, sessions) = sessions(v)?;
    let id = string(v, "sample_id").map_or_else(|| speakers.join("-"), String::from);
    let mut skipped = Skipped::default();
    let mut messages = Vec::new();
    for session in &sessions {
        for (i, t) in session.turns.iter().enumerate() {
            if t.text.is_empty() {
                skipped.empty += 1;
                continue;
            }
            messages.push(Message {
                source: format!("locomo:{id}:{}", t.dia_id),
                role: Role::User,
                text: t.text.clone(),
                at: session.at + i as i64,
                speaker: Some(t.speaker.clone()).filter(|s| !s.is_empty()),
            });
        }
    }
    let title = Some(format!("{} and {}", speakers[0], speakers[1]));
    Ok(History { format: Format::Locomo, conversations: vec![Conversation { id, title, messages }], skipped })
}
