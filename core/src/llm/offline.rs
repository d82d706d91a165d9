//! The embedded offline provider: a real, deterministic proposer that reads the same
//! prompts a remote model gets and answers with simple, documented rules built on
//! `textmath`. It is no model — the UI labels it "offline (deterministic)" — and its
//! proposals pass through the same gates as any model's.
//!
//! Rules: *encode* keeps each statement of a user turn in its own words — a sentence,
//! or each clause of one whose clauses stand alone — leaving out questions and chatter,
//! categorised by keywords; *dedupe* adjudicates the engine's candidate pairs; *merge* the engine's
//! merge candidates, joining two unprotected facts of one block and category that share
//! at least two content tokens yet are neither duplicates nor a conflict; *promote* sends identity/preferences/commitments to human and
//! events to episodes; *supersede* adjudicates the engine's candidate conflicts (the
//! later fact wins); *forget* proposes stale unprotected facts; *chat* answers a
//! question from the memory lines of its prompt by the rules of `llm::first` (the
//! speaker's name, who they are, what is known about them, and any question whose words
//! and person a line meets), citing those lines, or says it is not in memory, and says it
//! cannot do what a request asks that memory does not answer; *quiz questions* name only
//! the fact's most distinctive word.

use crate::llm::answer;
use crate::llm::context::shown_id;
use crate::llm::first;
use crate::llm::prompt::{self, NOT_IN_MEMORY};
use crate::llm::provider::{estimate_tokens, Completion, Provider, ProviderError, Request, Task};
use crate::model::memory::{Block, Item};
use crate::model::pass::PassKind;
use crate::model::policy::RetentionPolicy;
use crate::text::act::Act;
use crate::text::statements;
use crate::text::textmath::{self, content_tokens};
use serde_json::{json, Value};
use std::collections::HashSet;

/// The offline provider. Stateless and deterministic: the same request, the same reply.
#[derive(Clone, Copy, Debug, Default)]
pub struct OfflineProvider;

/// Shown wherever the provider is named.
pub const LABEL: &str = "offline (deterministic rules, no model)";

impl Provider for OfflineProvider {
    fn label(&self) -> String {
        LABEL.into()
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        let text = respond(request);
        let prompt: u64 = request.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
        Ok(Completion { completion_tokens: estimate_tokens(&text), text, prompt_tokens: prompt, truncated: false })
    }
}

/// The reply the offline provider gives to `request`.
pub fn respond(request: &Request) -> String {
    let user = request.messages.iter().rev().find(|m| m.role == "user").map_or("", |m| m.content.as_str());
    let payload: Value = serde_json::from_str(user).unwrap_or(Value::Null);
    match request.task {
        Task::Chat => {
            let system = request.messages.iter().find(|m| m.role == "system").map_or("", |m| m.content.as_str());
            match request.json.as_ref().map(|j| j.name.as_str()) {
                // Answers naming the line they came from, as the contract asks.
                Some(answer::FREE_CONTRACT) => {
                    let (text, cited) = chat(prompt::memory_lines(system), user);
                    let cited: Vec<&str> = cited.iter().map(|id| shown_id(id)).collect();
                    json!({"answer": text, "cited": cited}).to_string()
                }
                Some(answer::CHOOSE_CONTRACT) => {
                    let lines = option_lines(system);
                    let chosen = answer::asks(user).then(|| first::answer(&lines, user)).flatten();
                    let line = chosen.and_then(|a| a.cited.into_iter().next());
                    json!({"fact": line.unwrap_or_else(|| answer::NONE.to_string())}).to_string()
                }
                _ => chat(prompt::memory_lines(system), user).0,
            }
        }
        Task::Propose(pass) => {
            let proposals = match pass {
                PassKind::Encode => encode(&payload),
                PassKind::Dedupe => dedupe(&payload),
                PassKind::Merge => merge(&payload),
                PassKind::Promote => promote(&payload),
                PassKind::Forget => forget(&payload),
                PassKind::Supersede => supersede(&payload),
            };
            json!({ pass.proposal_key(): proposals }).to_string()
        }
        Task::QuizQuestion => json!({"question": question(payload["fact"].as_str().unwrap_or(""))}).to_string(),
    }
}

fn items(payload: &Value) -> Vec<&Value> {
    payload["items"].as_array().map(|a| a.iter().collect()).unwrap_or_default()
}

fn str_of<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field].as_str().unwrap_or("")
}

/// Keyword rules for a sentence's category.
pub fn categorise(sentence: &str) -> &'static str {
    let s = format!(" {} ", textmath::normalize(sentence));
    let has = |words: &[&str]| words.iter().any(|w| s.contains(&format!(" {w} ")));
    if crate::text::promise::binds(sentence) || has(&["will", "ill"]) {
        "commitments"
    } else if has(&["like", "love", "prefer", "enjoy", "hate", "favorite", "favourite", "best", "rather"]) {
        "preferences"
    } else if has(&["name", "named", "live", "am", "im", "born", "work as", "job", "moved", "age", "old", "allergic"]) {
        "identity"
    } else if has(&[
        "yesterday",
        "today",
        "tonight",
        "last",
        "ago",
        "went",
        "visited",
        "broke",
        "broken",
        "leaks",
        "leaked",
        "happened",
        "met",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "weekend",
    ]) {
        "event"
    } else {
        "context"
    }
}

/// Splits text into sentences, keeping their closing punctuation.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if matches!(c, '.' | '!' | '?' | ';' | '\n') {
            let s = current.trim().trim_end_matches([';', '\n']).trim().to_string();
            if !s.is_empty() {
                out.push(s);
            }
            current.clear();
        }
    }
    let rest = current.trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

fn encode(payload: &Value) -> Vec<Value> {
    let mut facts = Vec::new();
    for turn in payload["turns"].as_array().into_iter().flatten() {
        if str_of(turn, "role") != "user" {
            continue;
        }
        // One fact per statement, however short (`I'm vegan.`): compounds are split by the
        // one splitter, and questions and chatter are left out (`text::statements`).
        for c in statements::statements(&[str_of(turn, "text")]) {
            facts.push(json!({"text": c.text, "category": categorise(&c.text), "block": "scratch"}));
        }
    }
    facts
}

fn dedupe(payload: &Value) -> Vec<Value> {
    let mut dropped = HashSet::new();
    let mut keepers = HashSet::new();
    let mut out = Vec::new();
    for pair in payload["candidatePairs"].as_array().into_iter().flatten() {
        let (drop, keep) = (str_of(pair, "dropId"), str_of(pair, "keeperId"));
        if dropped.contains(drop) || dropped.contains(keep) || keepers.contains(drop) {
            continue;
        }
        dropped.insert(drop.to_string());
        keepers.insert(keep.to_string());
        let sim = pair["similarity"].as_f64().unwrap_or(0.0);
        out.push(
            json!({"itemId": drop, "duplicateOf": keep, "reason": format!("restates {keep} (similarity {sim:.3})")}),
        );
    }
    out
}

fn policy(payload: &Value) -> RetentionPolicy {
    // Read from text, as every other policy is: reading it from the `Value` would build
    // serde_json's `Value` deserialiser into the page's bundle for this one call.
    serde_json::from_str(&payload["policy"].to_string()).unwrap_or_default()
}

/// Merge proposals the offline rules make: each of the engine's `candidateMerges` (same
/// block and category, unprotected, sharing two uncommon content tokens) whose facts are
/// the same block and category, unprotected, share at least two content tokens and are
/// neither duplicates nor a conflict; each fact once; the text is both joined.
fn merge(payload: &Value) -> Vec<Value> {
    let policy = policy(payload);
    let list = items(payload);
    let by_id: std::collections::HashMap<&str, &Value> = list.iter().map(|i| (str_of(i, "itemId"), *i)).collect();
    let mut used: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for pair in payload["candidateMerges"].as_array().into_iter().flatten() {
        let (ia, ib) = (str_of(pair, "intoId"), str_of(pair, "fromId"));
        let (Some(a), Some(b)) = (by_id.get(ia), by_id.get(ib)) else { continue };
        let category = str_of(a, "category");
        if used.contains(ia)
            || used.contains(ib)
            || category != str_of(b, "category")
            || policy.is_protected(&category.into())
            || str_of(a, "block") != str_of(b, "block")
        {
            continue;
        }
        let (ta, tb) = (content_tokens(str_of(a, "text")), content_tokens(str_of(b, "text")));
        let sim = textmath::set_similarity(&ta, &tb);
        // Duplicates are Dedupe's, contradictions Supersede's: neither is merged.
        if ta.intersection(&tb).count() < 2
            || textmath::reaches(sim, policy.similarity_threshold)
            || textmath::conflicts(&ta, &tb, policy.similarity_threshold)
        {
            continue;
        }
        // Each fact's day, where its words name a day by it (`said`): a merge of two said
        // on different days writes such a day out.
        let said = |i: &Value| i["said"].as_str().and_then(crate::text::when::parse_iso).unwrap_or(0);
        let merged = prompt::merged((str_of(a, "text"), said(a)), (str_of(b, "text"), said(b)));
        // A merge stays within the policy's word bound, and one speaker's.
        if policy.merge_max_words.is_some_and(|bound| textmath::words(&merged).count() > bound)
            || a["speaker"] != b["speaker"]
        {
            continue;
        }
        used.insert(ia);
        used.insert(ib);
        out.push(json!({"intoId": ia, "fromIds": [ib], "mergedText": merged, "reason": format!("both describe the same {category}")}));
    }
    out
}

fn supersede(payload: &Value) -> Vec<Value> {
    let mut used = HashSet::new();
    let mut out = Vec::new();
    for pair in payload["candidateConflicts"].as_array().into_iter().flatten() {
        let (old, new) = (str_of(pair, "oldId"), str_of(pair, "newId"));
        // One edit per item: a chain of three values is settled over successive Sleeps.
        if used.contains(old) || used.contains(new) {
            continue;
        }
        used.insert(old.to_string());
        used.insert(new.to_string());
        out.push(
            json!({"oldId": old, "newId": new, "reason": format!("{new} states a newer value for the same thing")}),
        );
    }
    out
}

fn promote(payload: &Value) -> Vec<Value> {
    let policy = policy(payload);
    items(payload)
        .into_iter()
        .filter(|i| str_of(i, "block") == "scratch")
        .filter_map(|i| {
            let fact = Item::new_fact(0, Block::Scratch, str_of(i, "category"), str_of(i, "text"), 0);
            let to = policy.promotion_of(&Item { item_id: str_of(i, "itemId").into(), ..fact })?;
            let category = str_of(i, "category");
            // A passing identity (`This week I'm swamped`) goes to episodes: say why.
            let reason = if crate::model::memory::promotion_target(&category.into()) == Some(to) {
                format!("{category} facts belong in {to}")
            } else {
                format!("{category}, but it names a time and does not last: it belongs in {to}")
            };
            Some(json!({"itemId": str_of(i, "itemId"), "toBlock": to, "reason": reason}))
        })
        .collect()
}

/// Forget proposals: facts older than `staleAfterDays` where the policy forgets by age.
/// Passing states and commitments past their date are the engine's own rules.
fn forget(payload: &Value) -> Vec<Value> {
    let policy = policy(payload);
    let Some(days) = policy.stale_after_days else { return Vec::new() };
    items(payload)
        .into_iter()
        .filter(|i| !policy.is_protected(&str_of(i, "category").into()) && i["pinned"] != Value::Bool(true))
        .filter(|i| i["ageDays"].as_f64().unwrap_or(0.0) > days)
        .map(|i| json!({"itemId": str_of(i, "itemId"), "policy": "stale", "reason": format!("{:.0} days old", i["ageDays"].as_f64().unwrap_or(0.0))}))
        .collect()
}

/// The reply to `message` from the memory `lines` (id, text), and the ids it cites: the
/// rules of `llm::first`; a request memory does not answer is declined, saying why.
fn chat(lines: Vec<(String, String)>, message: &str) -> (String, Vec<String>) {
    if !answer::asks(message) {
        return (answer::NOTED.into(), Vec::new());
    }
    if let Some(a) = first::answer(&lines, message) {
        return (a.text, a.cited);
    }
    let request = crate::text::act::turn(message)
        .into_iter()
        .find(|s| matches!(s.reading.act, Act::Question | Act::Request))
        .filter(|s| s.reading.act == Act::Request);
    match request {
        Some(said) => (cannot(said.sentence), Vec::new()),
        None => (NOT_IN_MEMORY.into(), Vec::new()),
    }
}

/// What the offline provider says to a request memory does not answer.
pub fn cannot(request: &str) -> String {
    format!(
        "I'm the offline provider (deterministic rules, no model): I answer from memory, and nothing in memory answers “{}”. Writing, explaining or summarising needs a model: choose one in Settings (or --provider).",
        request.trim().trim_end_matches(['.', '!'])
    )
}

/// The lines of a choose request, by number: `[2] Melanie: "I painted a sunrise." (said
/// 2023-05-08)` as `Melanie: I painted a sunrise.`.
fn option_lines(system: &str) -> Vec<(String, String)> {
    system
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.split_once("] "))
        .map(|(n, text)| {
            let quote = text.find('"').unwrap_or(0);
            let (who, line) = text.split_at(quote);
            let words = crate::llm::context::unquoted(line)
                .map_or_else(|| line.rsplit_once(" (said ").map_or(line, |(t, _)| t).to_string(), |(w, _)| w);
            (n.to_string(), format!("{who}{words}"))
        })
        .collect()
}

/// A question naming only the fact's most distinctive (longest) word (also the quiz's
/// question for a model that only chooses).
pub fn question(fact: &str) -> String {
    let word = textmath::words(fact)
        .filter(|w| !textmath::is_stopword(&textmath::word_token(w)))
        .max_by(|a, b| a.chars().count().cmp(&b.chars().count()).then(b.cmp(a)))
        .unwrap_or("that");
    format!("What do you remember about {word}?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorises_by_keywords() {
        assert_eq!(categorise("I promised Ana I would review her thesis by Friday."), "commitments");
        assert_eq!(categorise("I live in Lisbon."), "identity");
        assert_eq!(categorise("I love green tea."), "preferences");
        assert_eq!(categorise("The kitchen leaks and the kettle is broken."), "event");
        assert_eq!(categorise("My stack is Airflow and Postgres."), "context");
    }

    #[test]
    fn chat_answers_from_memory_or_says_absent() {
        let system = format!(
            "x\n{}\nhuman (about the user, pinned):\nsaid on 2 Dec 2026:\n[1] I live in Lisbon.\nscratch (recent notes):\nsaid on 2 Dec 2026:\n[2] The kettle is broken.\n",
            prompt::MEMORY_HEADER
        );
        let lisbon = chat(prompt::memory_lines(&system), "What do you remember about Lisbon?");
        assert!(lisbon.0.starts_with("From memory: “I live in Lisbon.”"), "{lisbon:?}");
        assert_eq!(lisbon.1, ["m_1"]);
        assert_eq!(chat(prompt::memory_lines(&system), "What do you remember about Saffron?").0, NOT_IN_MEMORY);
        assert_eq!(chat(prompt::memory_lines(&system), "Do I live in Lisbon?").1, ["m_1"]);
        assert_eq!(
            chat(prompt::memory_lines(&system), "Does Ana live in Lisbon?").0,
            NOT_IN_MEMORY,
            "a name memory never mentions"
        );
        assert!(chat(prompt::memory_lines(&system), "I like tea.").0.starts_with("Noted"));
    }

    #[test]
    fn question_names_one_word() {
        assert_eq!(question("The kitchen leaks and the kettle is broken."), "What do you remember about kitchen?");
        assert_eq!(question("<img src=x onerror=alert(1)> is what I typed."), "What do you remember about onerror?");
    }
}
