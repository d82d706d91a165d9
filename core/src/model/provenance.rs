//! Who said what the memory keeps, and when it arrived: a turn's [`Source`], inherited by
//! every fact encoded from it (a merge keeps the sources of both). A statement may come
//! with the date it was said; that date is a claim, checked against when it was received
//! ([`said_at`]): never after it (beyond a clock's skew), never before 1970, and a
//! statement dated back is [`Source::backdated`] — it supersedes nothing on its date alone.
//!
//! ```
//! use nocturne_core::model::provenance::{said_at, By};
//! let received = 1_796_558_400; // 2026-12-06T12:00:00Z
//! assert!(said_at("2026-12-06T11:58:00Z", received).is_ok());
//! assert!(said_at("2099-01-01", received).unwrap_err().to_string().contains("after it was received"));
//! assert!(said_at("2026-12-06T12:00:00+99:00", received).is_err());
//! assert_eq!(By::Mcp { client: "claude-ai".into() }.to_string(), "MCP client \"claude-ai\"");
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// How far a claimed time may lie after its receipt: clocks disagree by a few minutes.
pub const CLOCK_SKEW: i64 = 300;

/// How far before its receipt a statement must be dated to count as dated back: a day
/// (a message relayed the same day keeps its standing).
pub const BACKDATED_AFTER: i64 = crate::model::DAY;

/// Who said it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum By {
    /// The user, in this memory's own chat (the page, `nocturne chat`).
    User,
    /// The assistant.
    Assistant,
    /// A history the user imported: the file it came from.
    Import { file: String },
    /// A program speaking MCP, by the name it gave in `initialize`.
    Mcp { client: String },
    /// The user on another device of a memory that syncs, by the device's name.
    Device { name: String },
}

impl By {
    /// Whether this is the user speaking (in this chat, or on their own other device): a
    /// source the gates trust with everything.
    pub fn is_user(&self) -> bool {
        matches!(self, By::User | By::Device { .. })
    }
}

impl fmt::Display for By {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            By::User => f.write_str("the user"),
            By::Assistant => f.write_str("the assistant"),
            By::Import { file } => write!(f, "import of {file:?}"),
            By::Mcp { client } => write!(f, "MCP client {client:?}"),
            By::Device { name } => write!(f, "the user on device {name:?}"),
        }
    }
}

/// Who said something and when the memory received it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub by: By,
    /// Unix seconds.
    pub received_at: i64,
}

impl Source {
    /// The user, received at `at`: what a fact with no recorded source is.
    pub fn user(at: i64) -> Source {
        Source { by: By::User, received_at: at }
    }

    /// Whether a statement said at `said` and received as this source says came in more
    /// than [`BACKDATED_AFTER`] after it was said.
    pub fn backdated(&self, said: i64) -> bool {
        self.received_at > said.saturating_add(BACKDATED_AFTER)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (received {})", self.by, crate::text::when::Day::from_unix(self.received_at))
    }
}

/// The sources of facts merged into one, each `(sources, said at)`: every source once, in
/// order; empty when every part is the user's with none recorded (as the parts were).
pub fn union<'a>(parts: impl Iterator<Item = (&'a [Source], i64)>) -> Vec<Source> {
    let parts: Vec<(&[Source], i64)> = parts.collect();
    if parts.iter().all(|(s, _)| s.is_empty()) {
        return Vec::new();
    }
    let mut out: Vec<Source> = Vec::new();
    for (sources, at) in parts {
        let own = if sources.is_empty() { vec![Source::user(at)] } else { sources.to_vec() };
        for s in own {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// The trust policy: what a fact from a source other than the user (an MCP client, an
/// assistant) may do to the memory. The gates read [`Trust::OUTSIDE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trust {
    /// Enter `persona` or `human` when encoded (else it is kept in scratch).
    pub enter_pinned: bool,
    /// Be promoted by a Sleep.
    pub be_promoted: bool,
    /// Supersede, merge away or drop a fact the user said.
    pub replace_user_facts: bool,
}

impl Trust {
    /// The default for every source but the user: it may add facts, nothing more.
    pub const OUTSIDE: Trust = Trust { enter_pinned: false, be_promoted: false, replace_user_facts: false };
}

/// The time a client says a statement was said (`2024-05-01`, `2024-05-01T14:30:00Z`,
/// `…+02:00`), checked against `received`: a real ISO date and time with a four-digit
/// year and an offset a clock can have (±14:00), not after `received` beyond
/// [`CLOCK_SKEW`], not before 1970. [`BadSaidAt`] says which, in words for the client.
pub fn said_at(text: &str, received: i64) -> Result<i64, BadSaidAt> {
    let t = text.trim();
    let bad = |problem| BadSaidAt { text: text.to_string(), problem };
    let at = shape(t).then(|| crate::text::when::parse_iso(t)).flatten().ok_or_else(|| bad(SaidAtProblem::NotADate))?;
    if at < 0 {
        return Err(bad(SaidAtProblem::Before1970));
    }
    if at > received.saturating_add(CLOCK_SKEW) {
        return Err(bad(SaidAtProblem::AfterReceipt { received }));
    }
    Ok(at)
}

/// A claimed `said_at` refused: the text the client gave and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadSaidAt {
    /// The client's words, as given.
    pub text: String,
    /// What is wrong with them.
    pub problem: SaidAtProblem,
}

/// What is wrong with a claimed `said_at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaidAtProblem {
    /// Not an ISO date (and time) with a real day, a four-digit year and an offset within ±14:00.
    NotADate,
    /// Before 1970: no statement this memory receives was said then.
    Before1970,
    /// After the statement reached the memory (at `received`), beyond [`CLOCK_SKEW`].
    AfterReceipt { received: i64 },
}

impl fmt::Display for BadSaidAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        match self.problem {
            SaidAtProblem::NotADate => write!(
                f,
                "said_at {text:?} is not a date like 2024-05-01 or 2024-05-01T14:30:00Z (a real day, a four-digit year, an offset within ±14:00)"
            ),
            SaidAtProblem::Before1970 => {
                write!(f, "said_at {text:?} is before 1970: no statement this memory receives was said then")
            }
            SaidAtProblem::AfterReceipt { received } => write!(
                f,
                "said_at {text:?} is after it was received ({} UTC): a statement cannot be dated after it reached the memory",
                clock(received)
            ),
        }
    }
}

impl std::error::Error for BadSaidAt {}

/// `2026-12-06 12:00`.
fn clock(at: i64) -> String {
    let secs = at.rem_euclid(crate::model::DAY);
    format!("{} {:02}:{:02}", crate::text::when::Day::from_unix(at), secs / 3600, secs % 3600 / 60)
}

/// `YYYY-MM-DD`, then optionally `THH:MM[:SS[.fff]]` and `Z` or `±HH[:MM]` within ±14:00.
fn shape(t: &str) -> bool {
    let b = t.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r.clone()).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if !(b.len() >= 10 && digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
        return false;
    }
    let Some(time) = t.get(10..).filter(|r| !r.is_empty()) else { return true };
    let Some(time) = time.strip_prefix(['T', 't', ' ']) else { return false };
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => time.split_at(at),
        None => (time, ""),
    };
    let c = clock.as_bytes();
    let hm = c.len() >= 5 && c[..2].iter().chain(&c[3..5]).all(u8::is_ascii_digit) && c[2] == b':';
    let rest = &clock[5.min(clock.len())..];
    let seconds = rest.is_empty()
        || (rest.len() >= 3
            && rest.as_bytes()[0] == b':'
            && rest[1..3].bytes().all(|x| x.is_ascii_digit())
            && (rest.len() == 3
                || (rest.as_bytes()[3] == b'.' && rest.len() > 4 && rest[4..].bytes().all(|x| x.is_ascii_digit()))));
    hm && seconds && offset_ok(offset)
}

/// `Z`, nothing, or `±HH[:MM]` / `±HHMM` within ±14:00 and minutes under 60.
fn offset_ok(offset: &str) -> bool {
    if offset.is_empty() || offset.eq_ignore_ascii_case("z") {
        return true;
    }
    let digits: String = offset[1..].chars().filter(|c| *c != ':').collect();
    if !(digits.len() == 2 || digits.len() == 4) || !digits.bytes().all(|x| x.is_ascii_digit()) {
        return false;
    }
    let hours: i64 = digits[..2].parse().unwrap_or(99);
    let minutes: i64 = digits.get(2..).filter(|m| !m.is_empty()).map_or(0, |m| m.parse().unwrap_or(99));
    minutes < 60 && hours * 60 + minutes <= 14 * 60
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECEIVED: i64 = 1_796_558_400;

    #[test]
    fn a_said_at_is_a_real_time_no_later_than_its_receipt() {
        for ok in
            ["2026-12-06", "2026-12-06T11:00Z", "2026-12-06T11:00:00.5+01:00", "2020-02-29T00:00:00-0500", "1970-01-01"]
        {
            assert!(said_at(ok, RECEIVED).is_ok(), "{ok}");
        }
        assert!(said_at("2026-12-06T12:04:00Z", RECEIVED).is_ok(), "within the clock's skew");
        for (bad, why) in [
            ("2026-12-06T12:06:00Z", "after it was received"),
            ("99999-01-01", "not a date"),
            ("+275760-09-13T00:00:00Z", "not a date"),
            ("2026-12-06T10:00:00+99:00", "not a date"),
            ("2026-12-06T10:00:00-99:00", "not a date"),
            ("2099-13-45T25:61:00Z", "not a date"),
            ("2100-02-29", "not a date"),
            ("0000-00-00", "not a date"),
            ("-0001-01-01", "not a date"),
            ("1969-12-31T23:59:59Z", "before 1970"),
            ("yesterday", "not a date"),
        ] {
            let err = said_at(bad, RECEIVED).expect_err(bad).to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn a_statement_relayed_days_later_is_backdated() {
        let source = Source { by: By::Mcp { client: "x".into() }, received_at: RECEIVED };
        assert!(!source.backdated(RECEIVED - 3600));
        assert!(source.backdated(RECEIVED - 3 * 86_400));
    }
}
