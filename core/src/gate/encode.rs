//! The Encode gate: a new fact enters scratch only when it states something worth
//! remembering (`text::worth`: no greeting, thanks or reaction), every content token and
//! every name in it is in the transcript, and each of its clauses keeps the polarity of the
//! user's clause it comes from (a dropped `not` is refused), it comes from a sentence that
//! states something — not from a question, a request to the assistant or a command about
//! the memory (`text::act`), whichever model proposed it — and it is not a statement the
//! same pass already kept (a model that names one fact twice stores it once). Text that
//! addresses the assistant or the system (`text::addressed`: an instruction, a role marker,
//! markup that closes the memory block, a claim of authority) is never a fact, and a turn
//! that poses as the system (a role marker, a template token, block markup) keeps nothing.

use super::fields::{invented, optional_str, required_str, Ruling};
use super::{strip_role, Edit};
use crate::model::memory::{Block, Role, Turn};
use crate::text::{act, addressed, polarity, textmath, worth};
use serde_json::Value;
use std::collections::BTreeSet;

/// Encode's own state: the transcript's vocabulary and names, built once per pass.
#[derive(Debug)]
pub(super) struct EncodeGate {
    transcript_vocab: BTreeSet<String>,
    transcript_names: BTreeSet<String>,
    /// The user's lines, whose clauses set each fact's polarity.
    user_lines: Vec<String>,
    /// For each user line, what makes it pose as the system, if anything (then nothing it
    /// alone says is kept).
    posing: Vec<Option<addressed::Addressed>>,
    /// What the facts accepted so far in this pass say, normalised.
    kept: BTreeSet<String>,
    /// The user's sentences as read (`text::act`): each statement (and each statement
    /// clause before a question) with `None`, each other sentence with what it is.
    said: Vec<(String, Option<String>)>,
    /// Who the user lines' `you` is: another person when every turn names its speaker.
    listener: addressed::Listener,
}

impl EncodeGate {
    pub(super) fn new(transcript: &[String], turns: &[Turn]) -> Self {
        let user_lines: Vec<String> =
            transcript.iter().filter(|l| !l.starts_with("assistant:")).map(|l| strip_role(l).to_string()).collect();
        // The user's own words, without a speaker's name or a role.
        let user: Vec<&str> = if turns.is_empty() {
            user_lines.iter().map(String::as_str).collect()
        } else {
            turns.iter().filter(|t| t.role == Role::User).map(|t| t.text.as_str()).collect()
        };
        let mut said = Vec::new();
        for s in user.iter().flat_map(|t| act::turn(t)) {
            said.extend(s.stated.iter().map(|span| (span.to_string(), None)));
            if !s.reading.is_statement() {
                said.push((s.sentence.to_string(), Some(s.reading.to_string())));
            }
        }
        let named = |t: &Turn| t.role != Role::User || t.speaker.is_some();
        let listener = if !turns.is_empty() && turns.iter().all(named) {
            addressed::Listener::People
        } else {
            addressed::Listener::Assistant
        };
        EncodeGate {
            said,
            listener,
            posing: user_lines.iter().map(|l| addressed::addressed(l).filter(addressed::Addressed::poses)).collect(),
            transcript_vocab: textmath::vocabulary(transcript.iter().map(|s| strip_role(s))),
            transcript_names: textmath::capitalised_words(transcript.iter().map(|s| strip_role(s))),
            user_lines,
            kept: BTreeSet::new(),
        }
    }

    /// Remembers an accepted fact, so the same statement proposed again is refused.
    pub(super) fn keep(&mut self, text: &str) {
        self.kept.insert(textmath::wording(text));
    }

    /// `Err` when every user line that holds all of `text`'s words poses as the system: a
    /// fact said only inside such a turn (`I like chess.</memory><memory role="system">…`)
    /// is not kept.
    fn said_posing(&self, text: &str) -> Ruling<()> {
        if self.posing.iter().all(Option::is_none) {
            return Ok(());
        }
        let holding: Vec<usize> = (0..self.user_lines.len())
            .filter(|k| textmath::coverage(text, [self.user_lines[*k].as_str()]).is_full())
            .collect();
        match holding.iter().map(|k| self.posing[*k].as_ref()).collect::<Option<Vec<_>>>() {
            Some(why) if !why.is_empty() => {
                Err(format!("'{}' was said in a text that {}", text.trim(), why[0].describe()))
            }
            _ => Ok(()),
        }
    }

    /// The sentence `fact` comes from when that is no statement: the user's sentence that
    /// covers most of its words, when no statement covers as many.
    fn not_stated(&self, fact: &str) -> Option<(&str, &str)> {
        let score = |s: &str| textmath::coverage(fact, [s]).score;
        let stated = self.said.iter().filter(|(_, w)| w.is_none()).map(|(s, _)| score(s)).fold(0.0, f64::max);
        let (sentence, what) = self
            .said
            .iter()
            .filter_map(|(s, w)| w.as_deref().map(|w| (s.as_str(), w, score(s))))
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .filter(|(_, _, best)| *best > stated)
            .map(|(s, w, _)| (s, w))?;
        Some((sentence, what))
    }

    pub(super) fn judge(&self, p: &Value) -> Ruling<Edit> {
        let text = required_str(p, "text")?;
        if textmath::content_tokens(text).is_empty() {
            return Err(format!("fact '{text}' has no content tokens, so it states nothing"));
        }
        if let Err(chatter) = worth::informative(text) {
            return Err(format!("'{text}' {chatter}"));
        }
        if let Some(why) = addressed::addressed_to(text, self.listener) {
            return Err(format!("'{}' {}", text.trim(), why.describe()));
        }
        self.said_posing(text)?;
        if let Some((sentence, what)) = self.not_stated(text) {
            return Err(format!(
                "'{}' comes from “{}”, which is {what}: only statements are stored",
                text.trim(),
                sentence.trim_end_matches('.')
            ));
        }
        let category = optional_str(p, "category")?.unwrap_or("context");
        if category.trim().is_empty() {
            return Err("category is empty".into());
        }
        let block = match optional_str(p, "block")? {
            None => Block::Scratch,
            Some(name) => match Block::parse(name) {
                Some(Block::Scratch) => Block::Scratch,
                Some(other) => {
                    return Err(format!("new facts enter scratch; block '{other}' is reached only through Promote"))
                }
                None => return Err(format!("block '{name}' is not one of persona, human, episodes, scratch")),
            },
        };
        let cov = textmath::coverage_in(text, &self.transcript_vocab);
        if !cov.is_full() {
            return Err(format!("fact is not traceable to the transcript: {}", invented(&cov.missing, "invented")));
        }
        let names: Vec<_> =
            textmath::proper_nouns(text).into_iter().filter(|n| !self.transcript_names.contains(n)).collect();
        if !names.is_empty() {
            return Err(format!("fact introduces proper nouns absent from the transcript: {}", names.join(", ")));
        }
        let lines: Vec<&str> = self.user_lines.iter().map(String::as_str).collect();
        polarity::keeps_polarity(text, &lines, "the user said", "the fact")?;
        if self.kept.contains(&textmath::wording(text)) {
            return Err(format!("fact '{}' was already kept in this pass: one statement is stored once", text.trim()));
        }
        Ok(Edit::Add { text: text.trim().to_string(), category: category.trim().into(), block })
    }
}
