//! Readers for histories kept elsewhere: a ChatGPT or Claude.ai data export (its `.zip` as
//! downloaded, or the `conversations.json` inside), a JSON Lines chat log and a LoCoMo
//! conversation, each read into one shape — conversations of dated messages, each with a
//! source id — so one import path (`flow::import`) can bring any of them in.
//!
//! Readers are pure: bytes in, a [`History`] or an [`ReadError`] saying what was expected
//! and what was found. Nothing here writes.
//!
//! ```
//! use nocturne_core::history::{read, Format};
//! let log = br#"{"role": "user", "content": "I moved to Lisbon.", "timestamp": "2024-05-01T09:00:00Z"}
//! {"role": "assistant", "content": "Nice!"}"#;
//! let history = read("chat.jsonl", log, None, 1_796_558_400).unwrap();
//! assert_eq!(history.format, Format::Jsonl);
//! let m = &history.conversations[0].messages[0];
//! assert_eq!((m.text.as_str(), m.at), ("I moved to Lisbon.", 1_714_554_000));
//! assert!(read("notes.txt", b"just some notes", None, 0).is_err());
//! ```

mod archive;
mod chatgpt;
mod claude;
mod jsonl;
pub mod locomo;

use crate::gate::json_type;
use crate::model::memory::Role;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The formats the readers know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A ChatGPT data export: `conversations.json` or `conversations-000.json …`.
    ChatGpt,
    /// A Claude.ai data export: `conversations.json`.
    Claude,
    /// One JSON object per line: `{"role", "content", "timestamp"?}`.
    Jsonl,
    /// A LoCoMo benchmark conversation: two speakers, dated sessions.
    Locomo,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::ChatGpt, Format::Claude, Format::Jsonl, Format::Locomo];

    /// The name the command line and the app use (`chatgpt`, `claude`, `jsonl`, `locomo`).
    pub fn name(self) -> &'static str {
        match self {
            Format::ChatGpt => "chatgpt",
            Format::Claude => "claude",
            Format::Jsonl => "jsonl",
            Format::Locomo => "locomo",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name.trim().to_ascii_lowercase())
    }

    /// What the file is, for people: `a ChatGPT export`.
    pub fn title(self) -> &'static str {
        match self {
            Format::ChatGpt => "a ChatGPT export",
            Format::Claude => "a Claude export",
            Format::Jsonl => "a JSON Lines chat log",
            Format::Locomo => "a LoCoMo conversation",
        }
    }

    /// What a file of this format looks like, for error messages.
    fn described(self) -> &'static str {
        match self {
            Format::ChatGpt => "a ChatGPT export (an array of conversations with 'mapping')",
            Format::Claude => "a Claude export (an array of conversations with 'chat_messages')",
            Format::Jsonl => "a JSON Lines chat log (one {\"role\", \"content\"} object per line)",
            Format::Locomo => "a LoCoMo conversation (an object with 'speaker_a' and 'session_1')",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything a file held, in the file's order. Serialisable, so a reader running
/// elsewhere (the page's import worker) can hand it over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub format: Format,
    pub conversations: Vec<Conversation>,
    /// What the readers left out on purpose, and why.
    pub skipped: Skipped,
}

impl History {
    /// Messages written by the person (the ones that can become facts).
    pub fn user_messages(&self) -> usize {
        self.conversations.iter().flat_map(|c| &c.messages).filter(|m| m.role == Role::User).count()
    }
}

/// One conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    pub id: String,
    /// `None` where the export has none (ChatGPT's may be null).
    pub title: Option<String>,
    pub messages: Vec<Message>,
}

/// One message: who wrote it, its words, when (Unix seconds) and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `<format>:<conversation id>:<message id>` — the same in every later export.
    pub source: String,
    pub role: Role,
    pub text: String,
    pub at: i64,
    /// The speaker's name where the log names speakers (LoCoMo, a log with `name`).
    pub speaker: Option<String>,
}

/// Messages left out, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Marked hidden by the export (ChatGPT's `is_visually_hidden_from_conversation`).
    pub hidden: usize,
    /// System prompts, custom instructions, tool calls and tool output.
    pub not_a_turn: usize,
    /// Messages on a branch the conversation left (a regenerated or edited answer).
    pub other_branches: usize,
    /// No text (an image or a file alone).
    pub empty: usize,
    /// Dated after the file was read, beyond a clock's skew
    /// (`model::provenance::CLOCK_SKEW`): no statement is said after it reaches the memory,
    /// and a date in the future would pin its value against every later one.
    #[serde(default)]
    pub future: usize,
}

/// Why a file could not be read; nothing was imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError(pub String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; nothing was imported", self.0)
    }
}

impl std::error::Error for ReadError {}

/// Reads `bytes` (a file named `name`) as `format`, or as whatever format its content
/// shows when `format` is `None`. `now` dates messages whose file gives no time.
pub fn read(name: &str, bytes: &[u8], format: Option<Format>, now: i64) -> Result<History, ReadError> {
    let mut reading = Reading::new(name, bytes.to_vec(), format, now);
    loop {
        if let Step::Done(history) = reading.step(usize::MAX)? {
            return Ok(history);
        }
    }
}

/// A file read a slice at a time, so a page can stay responsive while it reads: each
/// [`Reading::step`] does one bounded piece of work — unpacking the zip, splitting one
/// conversation file into its conversations, or reading up to `per_step` of them — and a
/// conversation is parsed only when its turn comes (never the whole file as one tree).
///
/// ```
/// use nocturne_core::history::{Reading, Step};
/// let file = br#"[{"uuid": "a", "name": "x", "chat_messages": [{"sender": "human", "text": "I live in Ghent."}]},
///                 {"uuid": "b", "name": "y", "chat_messages": []}]"#;
/// let mut reading = Reading::new("conversations.json", file.to_vec(), None, 0);
/// let mut steps = 0;
/// let history = loop {
///     steps += 1;
///     if let Step::Done(h) = reading.step(1).unwrap() { break h; }
/// };
/// assert_eq!((history.conversations.len(), steps), (2, 5));
/// ```
pub struct Reading {
    name: String,
    format: Option<Format>,
    now: i64,
    /// The file's bytes until they are unpacked.
    bytes: Option<Vec<u8>>,
    /// Conversation files still to read: `(name inside the zip, text)`.
    files: std::collections::VecDeque<(String, String)>,
    zipped: bool,
    current: Option<Split>,
    history: Option<History>,
    read: usize,
}

/// Where a [`Reading`] is.
#[derive(Debug)]
pub enum Step {
    /// More to do; `conversations` read so far.
    Working {
        conversations: usize,
    },
    Done(History),
}

/// One conversation file, split into its conversations and read a few at a time.
struct Split {
    file: String,
    text: String,
    format: Format,
    ranges: Vec<std::ops::Range<usize>>,
    next: usize,
    part: History,
}

impl Reading {
    pub fn new(name: &str, bytes: Vec<u8>, format: Option<Format>, now: i64) -> Reading {
        Reading {
            name: name.to_string(),
            format,
            now,
            bytes: Some(bytes),
            files: Default::default(),
            zipped: false,
            current: None,
            history: None,
            read: 0,
        }
    }

    /// Does the next piece of work; reads at most `per_step` conversations.
    pub fn step(&mut self, per_step: usize) -> Result<Step, ReadError> {
        if let Some(bytes) = self.bytes.take() {
            self.unpack(bytes)?;
            return Ok(self.working());
        }
        let Some(split) = &mut self.current else {
            let Some((file, text)) = self.files.pop_front() else {
                let history =
                    self.history.take().ok_or_else(|| self.error("", "the zip holds no conversations".into()))?;
                return Ok(Step::Done(without_future(history, self.now)));
            };
            self.start(file, text)?;
            return Ok(self.working());
        };
        let end = split.ranges.len().min(split.next.saturating_add(per_step.max(1)));
        let now = self.now;
        for n in split.next..end {
            let parsed = serde_json::from_str::<Value>(&split.text[split.ranges[n].clone()])
                .map_err(|e| format!("conversation {}: {e}", n + 1))
                .and_then(|v| conversation(split.format, &v, n + 1, now, &mut split.part.skipped));
            match parsed {
                Ok(c) => split.part.conversations.push(c),
                Err(m) => {
                    let file = split.file.clone();
                    return Err(self.error(&file, m));
                }
            }
        }
        self.read += end - split.next;
        split.next = end;
        if end == split.ranges.len() {
            if let Some(done) = self.current.take() {
                self.merge(&done.file, done.part)?;
            }
        }
        Ok(self.working())
    }

    fn working(&self) -> Step {
        Step::Working { conversations: self.read }
    }

    fn error(&self, file: &str, message: String) -> ReadError {
        match self.zipped && !file.is_empty() {
            true => ReadError(format!("{}: {file}: {message}", self.name)),
            false => ReadError(format!("{}: {message}", self.name)),
        }
    }

    /// The zip's conversation files, or the file itself as text.
    fn unpack(&mut self, bytes: Vec<u8>) -> Result<(), ReadError> {
        if archive::is_zip(&bytes) {
            self.zipped = true;
            self.files = archive::conversations(&bytes).map_err(|m| self.error("", m))?.into();
            return Ok(());
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            self.error(
                "",
                format!("is neither a zip nor UTF-8 text (byte {} is not UTF-8)", e.utf8_error().valid_up_to()),
            )
        })?;
        self.files.push_back((self.name.clone(), text));
        Ok(())
    }

    /// Starts on one file: an array of conversations is split, to be read a few at a time;
    /// anything else (a JSON Lines log, a LoCoMo file, one conversation) is read at once.
    fn start(&mut self, file: String, mut text: String) -> Result<(), ReadError> {
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        if !text.trim_start().starts_with('[') {
            let part = read_text(&text, self.format, self.now).map_err(|m| self.error(&file, m))?;
            return self.merge(&file, part);
        }
        let (format, ranges) = split(&text, self.format).map_err(|m| self.error(&file, m))?;
        let part = History { format, conversations: Vec::with_capacity(ranges.len()), skipped: Skipped::default() };
        self.current = Some(Split { file, text, format, ranges, next: 0, part });
        Ok(())
    }

    fn merge(&mut self, file: &str, part: History) -> Result<(), ReadError> {
        match &mut self.history {
            None => self.history = Some(part),
            Some(all) if all.format == part.format => {
                all.conversations.extend(part.conversations);
                all.skipped = add(all.skipped, part.skipped);
            }
            Some(all) => {
                let message = format!("is {}, the files before it {}", part.format, all.format);
                return Err(self.error(file, message));
            }
        }
        Ok(())
    }
}

/// The format of an array of conversations (from its first) and where each one lies in
/// `text` — found by one pass that builds no tree.
fn split(text: &str, asked: Option<Format>) -> Result<(Format, Vec<std::ops::Range<usize>>), String> {
    let raw: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            format!("ends in the middle of its JSON ({e}): the file looks truncated")
        } else {
            let expected =
                asked.map_or("a ChatGPT or Claude export, a JSON Lines log or a LoCoMo file", Format::described);
            format!("is not JSON ({e}); expected {expected}")
        }
    })?;
    let expected = || asked.map_or("a ChatGPT or Claude export, a JSON Lines log or a LoCoMo file", Format::described);
    let Some(first) = raw.first() else {
        return Err(format!("expected {}, found an empty array (no conversations)", expected()));
    };
    let first: Value = serde_json::from_str(first.get()).map_err(|e| e.to_string())?;
    let sample = Value::Array(vec![first]);
    let found =
        detect(&sample).ok_or_else(|| format!("expected {}, found {}", expected(), what(Some(&sample), text)))?;
    if let Some(asked) = asked {
        if asked != found {
            return Err(format!("expected {}, found {}", asked.described(), found.described()));
        }
    }
    let base = text.as_ptr() as usize;
    let ranges = raw
        .iter()
        .map(|r| {
            let start = r.get().as_ptr() as usize - base;
            start..start + r.get().len()
        })
        .collect();
    Ok((found, ranges))
}

/// `history` without the messages dated after `now` (beyond a clock's skew), counted as
/// skipped.
fn without_future(mut history: History, now: i64) -> History {
    let latest = now.saturating_add(crate::model::provenance::CLOCK_SKEW);
    for c in &mut history.conversations {
        let before = c.messages.len();
        c.messages.retain(|m| m.at <= latest);
        history.skipped.future += before - c.messages.len();
    }
    history
}

fn add(a: Skipped, b: Skipped) -> Skipped {
    Skipped {
        hidden: a.hidden + b.hidden,
        not_a_turn: a.not_a_turn + b.not_a_turn,
        other_branches: a.other_branches + b.other_branches,
        empty: a.empty + b.empty,
        future: a.future + b.future,
    }
}

/// Reads one text file, detecting its format from its content.
fn read_text(text: &str, format: Option<Format>, now: i64) -> Result<History, String> {
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Err("is empty".into());
    }
    let whole: Result<Value, _> = serde_json::from_str(text);
    let found = match &whole {
        Ok(v) => detect(v),
        // More than one JSON value: a JSON Lines log if its first line is an object.
        Err(e) if e.is_data() || e.to_string().contains("trailing characters") => {
            let first = text.lines().next().unwrap_or_default();
            match serde_json::from_str::<Value>(first) {
                Ok(Value::Object(_)) => Some(Format::Jsonl),
                _ => None,
            }
        }
        Err(e) if e.is_eof() => {
            return Err(format!("ends in the middle of its JSON ({e}): the file looks truncated"));
        }
        Err(e) => {
            let expected =
                format.map_or("a ChatGPT or Claude export, a JSON Lines log or a LoCoMo file", Format::described);
            return Err(format!("is not JSON ({e}); expected {expected}"));
        }
    };
    let found = found.ok_or_else(|| {
        let expected =
            format.map_or("a ChatGPT or Claude export, a JSON Lines log or a LoCoMo file", Format::described);
        format!("expected {expected}, found {}", what(whole.as_ref().ok(), text))
    })?;
    if let Some(asked) = format {
        if asked != found {
            return Err(format!("expected {}, found {}", asked.described(), found.described()));
        }
    }
    match found {
        Format::Jsonl => jsonl::read(text, now),
        Format::ChatGpt | Format::Claude | Format::Locomo => {
            let v = whole.map_err(|e| e.to_string())?;
            match found {
                Format::Locomo => locomo::read(&v),
                _ => conversations(found, &v, now),
            }
        }
    }
}

/// A ChatGPT or Claude export's conversations: an array of them, or one alone.
fn conversations(format: Format, v: &Value, now: i64) -> Result<History, String> {
    let list: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        one => vec![one],
    };
    let mut skipped = Skipped::default();
    let mut read = Vec::with_capacity(list.len());
    for (n, c) in list.into_iter().enumerate() {
        read.push(conversation(format, c, n + 1, now, &mut skipped)?);
    }
    Ok(History { format, conversations: read, skipped })
}

/// Conversation number `n` (from 1) of a ChatGPT or Claude export.
fn conversation(format: Format, c: &Value, n: usize, now: i64, skipped: &mut Skipped) -> Result<Conversation, String> {
    match format {
        Format::ChatGpt => chatgpt::conversation(c, n, now, skipped),
        _ => claude::conversation(c, n, now, skipped),
    }
}

/// The format a parsed file's shape shows, if any.
fn detect(v: &Value) -> Option<Format> {
    let shape = |o: &Value| {
        if o.get("mapping").is_some() {
            Some(Format::ChatGpt)
        } else if o.get("chat_messages").is_some() {
            Some(Format::Claude)
        } else if o.get("speaker_a").is_some() && o.get("session_1").is_some() {
            Some(Format::Locomo)
        } else if o.get("role").is_some() && o.get("content").is_some() {
            Some(Format::Jsonl)
        } else {
            None
        }
    };
    match v {
        Value::Array(a) => a.first().and_then(shape).filter(|f| matches!(f, Format::ChatGpt | Format::Claude)),
        Value::Object(_) => shape(v),
        _ => None,
    }
}

/// A short description of what a file holds, for "expected …, found …".
fn what(v: Option<&Value>, text: &str) -> String {
    match v {
        Some(Value::Array(a)) if a.is_empty() => "an empty array (no conversations)".into(),
        Some(Value::Array(a)) => match &a[0] {
            Value::Object(o) => format!("an array of objects with keys {}", keys(o)),
            other => format!("an array of {}", json_type(other)),
        },
        Some(Value::Object(o)) => format!("an object with keys {}", keys(o)),
        Some(other) => json_type(other).into(),
        None => format!("text starting {:?}", text.chars().take(40).collect::<String>()),
    }
}

fn keys(o: &serde_json::Map<String, Value>) -> String {
    let mut k: Vec<&str> = o.keys().map(String::as_str).take(6).collect();
    if o.len() > 6 {
        k.push("…");
    }
    k.join(", ")
}

/// A JSON time: Unix seconds (or milliseconds, past year 33658) as a number, or ISO-8601.
fn time(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => {
            let secs = n.as_f64()?;
            let secs = if secs.abs() > 1e12 { secs / 1000.0 } else { secs };
            secs.is_finite().then_some(secs.floor() as i64)
        }
        Value::String(s) => {
            crate::text::when::parse_iso(s).or_else(|| s.trim().parse::<f64>().ok().and_then(|n| time(&n.into())))
        }
        _ => None,
    }
}

/// The string at `key`, if it is a non-empty string.
fn string<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_both_ways() {
        for f in Format::ALL {
            assert_eq!(Format::parse(f.name()), Some(f));
        }
        assert_eq!(Format::parse("ChatGPT"), Some(Format::ChatGpt));
        assert_eq!(Format::parse("csv"), None);
    }

    #[test]
    fn times_read_as_seconds_milliseconds_or_iso() {
        assert_eq!(time(&serde_json::json!(1_714_554_000.5)), Some(1_714_554_000));
        assert_eq!(time(&serde_json::json!(1_714_554_000_000_i64)), Some(1_714_554_000));
        assert_eq!(time(&serde_json::json!("2024-05-01T09:00:00.123456Z")), Some(1_714_554_000));
        assert_eq!(time(&serde_json::json!("yesterday")), None);
        assert_eq!(time(&Value::Null), None);
    }
}
