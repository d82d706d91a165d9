//! Memory commands said in the chat (`text::act`'s commands: "forget that I'm vegan",
//! "that's wrong, my name is Lena", "erase my address"), each read into the user's own edit
//! of one active fact, or into a question back that changes nothing: when no fact or
//! several match, and always for an erase, which the chat never does without the user's
//! explicit confirmation. Pure: [`plan`] reads, the caller performs each [`Told::Edit`]
//! through its one write path (`flow::edit::UserEdit`, logged with proposer `user`) and
//! [`undo`] says how to take it back.
//!
//! ```
//! use nocturne_core::flow::told::{plan, Told};
//! use nocturne_core::model::memory::{Block, Item};
//! let items = vec![
//!     Item::new_fact(1, Block::Scratch, "preferences", "I'm vegan.", 0),
//!     Item::new_fact(2, Block::Scratch, "context", "I live in Graz.", 0),
//! ];
//! let slots: Vec<String> = vec![];
//! match &plan("Please forget that I'm vegan.", &items, &slots)[0] {
//!     Told::Edit { edit, .. } => assert_eq!(edit.item_id(), "m_1"),
//!     other => panic!("{other:?}"),
//! }
//! assert!(matches!(plan("Forget that I own a boat.", &items, &slots)[0], Told::Ask { .. }));
//! ```

use crate::flow::edit::UserEdit;
use crate::model::category::Category;
use crate::model::memory::{Block, Item, Mutation, Proposer, Refs, Turn, Version};
use crate::model::pass::{MutationKind, Stage};
use crate::store::{Store, StoreError};
use crate::text::act::{self, Act, CommandKind};
use crate::text::slots;
use crate::text::textmath::{content_tokens, normalize};
use std::collections::BTreeSet;

/// What one command sentence of a turn comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Told {
    /// One fact matched: the user's edit to make, and what it does, in words.
    Edit { sentence: String, edit: UserEdit, did: String },
    /// Nothing is changed: what to ask the user (which fact, or to confirm an erase).
    Ask { sentence: String, question: String },
    /// A command the encoder carries out with the turn (remember, remind): nothing here.
    WithTurn { sentence: String, kind: CommandKind },
}

/// How to take back an edit made from the chat.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Undo {
    /// Restore the version before the edit (a forget: the fact active again) — while the
    /// memory's head is still `head`, the edit's own version: later, a restore would undo
    /// what came after too ([`Undo::stale`]).
    Restore { seq: u64, head: u64 },
    /// The user's edit that reverses it (a correction corrected back).
    Edit { edit: UserEdit },
}

impl Undo {
    /// Why this undo can no longer be done as it is, the memory's head being `head` now:
    /// a restore past later changes would undo them too. `None` when it can.
    pub fn stale(&self, head: u64) -> Option<String> {
        match self {
            Undo::Restore { seq, head: made } if *made != head => Some(format!(
                "the memory changed after this edit (v{made}, now v{head}): restoring v{seq} would undo those \
                 changes too; restore it from the history if that is what you want"
            )),
            _ => None,
        }
    }
}

/// What a command said in the chat did, as the chat shows it under the turn.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Carried {
    /// The sentence the user said.
    pub sentence: String,
    /// What it did (`forgot m_3 “I'm vegan.”`) or what it asks back.
    pub said: String,
    /// Whether the memory changed.
    pub changed: bool,
    /// How to undo it, when it changed something.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<Undo>,
}

/// Each memory command of the user's turn `text`, read against the memory's `items` (every
/// row; only active facts match) under the policy's one-value `slots`.
pub fn plan(text: &str, items: &[Item], slots: &[String]) -> Vec<Told> {
    let active: Vec<&Item> = items.iter().filter(|i| i.active).collect();
    act::turn(text)
        .into_iter()
        .filter_map(|s| match s.reading.act {
            Act::Command(kind) => Some(one(s.sentence.trim(), kind, &active, slots)),
            _ => None,
        })
        .collect()
}

fn one(sentence: &str, kind: CommandKind, active: &[&Item], slots: &[String]) -> Told {
    let ask = |question: String| Told::Ask { sentence: sentence.to_string(), question };
    match kind {
        CommandKind::Remember | CommandKind::Remind => Told::WithTurn { sentence: sentence.to_string(), kind },
        CommandKind::Forget | CommandKind::Erase => {
            let Some(about) = object(sentence) else {
                return ask(format!("Which fact should I {}? Nothing was changed.", kind.as_str()));
            };
            match matching(&about, active).as_slice() {
                [] => ask(format!("No fact in memory says “{about}”. Nothing was changed.")),
                [fact] if kind == CommandKind::Forget => Told::Edit {
                    sentence: sentence.to_string(),
                    edit: UserEdit::Forget {
                        item_id: fact.item_id.clone(),
                        reason: format!("the user said in the chat: “{sentence}”"),
                    },
                    did: format!("forgot {} “{}”", fact.item_id, fact.text),
                },
                [fact] => ask(format!(
                    "Erase removes {} “{}” from every version for good, and the chat never does it unasked: \
                     confirm it with Erase in Memory (or `nocturne erase {}`). Nothing was changed.",
                    fact.item_id, fact.text, fact.item_id
                )),
                several => ask(which(kind, several)),
            }
        }
        CommandKind::Correct => {
            let Some(text) = correction(sentence) else {
                return ask("What should the fact say instead? Say “that's wrong, …” with the right words. \
                            Nothing was changed."
                    .to_string());
            };
            match corrected(&text, active, slots).as_slice() {
                [] => ask(format!("No fact in memory is what “{text}” corrects. Nothing was changed.")),
                [fact] => Told::Edit {
                    sentence: sentence.to_string(),
                    edit: UserEdit::Correct { item_id: fact.item_id.clone(), text: text.clone() },
                    did: format!("corrected {} “{}” to “{text}”", fact.item_id, fact.text),
                },
                several => ask(which(kind, several)),
            }
        }
    }
}

/// The question an ambiguous command asks: each fact it could mean, by id.
fn which(kind: CommandKind, facts: &[&Item]) -> String {
    let listed: Vec<String> = facts.iter().take(5).map(|f| format!("{} “{}”", f.item_id, f.text)).collect();
    format!(
        "{} facts match; which should I {}? {}. Nothing was changed.",
        facts.len(),
        kind.as_str(),
        listed.join("; ")
    )
}

/// Words that name the command, not what it is about.
const LEAD: &[&str] = &[
    "please",
    "can",
    "could",
    "would",
    "will",
    "you",
    "just",
    "kindly",
    "forget",
    "delete",
    "erase",
    "remove",
    "wipe",
    "purge",
    "clear",
    "drop",
    "ignore",
    "scratch",
    "strike",
    "get",
    "rid",
    "of",
    "about",
    "that",
    "the",
    "fact",
    "i",
    "said",
    "told",
    "mentioned",
    "what",
    "from",
    "your",
    "memory",
    "notes",
    "also",
    "and",
    "ok",
    "okay",
];

/// What a forget or erase is about: the words after its verb and `that`, `about`, `what I
/// said about` (`Please forget that I'm vegan.` → `I'm vegan`).
fn object(sentence: &str) -> Option<String> {
    let body = sentence.trim().trim_end_matches(['.', '!', '?']);
    let words: Vec<&str> = body.split_whitespace().collect();
    let verb = words.iter().position(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        matches!(w.as_str(), "forget" | "delete" | "erase" | "remove" | "wipe" | "purge" | "clear" | "drop" | "ignore")
    })?;
    let mut k = verb + 1;
    // `that` opening a clause is dropped; `that I'm vegan` keeps `I'm vegan`.
    while k < words.len() {
        let w = words[k].trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase();
        if !matches!(
            w.as_str(),
            "that" | "about" | "what" | "the" | "fact" | "i" | "said" | "told" | "you" | "mentioned"
        ) || w == "i" && words.get(k + 1).is_some_and(|n| !matches!(n.to_lowercase().as_str(), "said" | "told"))
        {
            break;
        }
        k += 1;
    }
    let rest = words[k..].join(" ");
    let rest = rest.trim_matches(|c: char| c == ',' || c.is_whitespace());
    let content: BTreeSet<String> = content_tokens(rest).into_iter().filter(|t| !LEAD.contains(&t.as_str())).collect();
    (!content.is_empty()).then(|| rest.to_string())
}

/// The active facts `about` names: those holding each of its content words (else, those
/// holding most of them, at least two and half: `my address at 4 Elm Road` names `I live
/// at 4 Elm Road`); when one of them says exactly `about`, that one.
fn matching<'a>(about: &str, active: &[&'a Item]) -> Vec<&'a Item> {
    let wanted = content_tokens(about);
    let held = |i: &Item| content_tokens(&i.text).intersection(&wanted).count();
    let mut found: Vec<&Item> = active.iter().copied().filter(|i| held(i) == wanted.len()).collect();
    if found.is_empty() {
        let most = active.iter().map(|i| held(i)).max().unwrap_or(0);
        if most >= 2 && 2 * most >= wanted.len() {
            found = active.iter().copied().filter(|i| held(i) == most).collect();
        }
    }
    let exact: Vec<&Item> = found.iter().copied().filter(|i| normalize(&i.text) == normalize(about)).collect();
    if exact.len() == 1 {
        return exact;
    }
    found
}

/// The right words a correction gives: after `that's wrong,`, `no,`, `actually,`,
/// `correction:` (`That's wrong, my name is Lena.` → `My name is Lena.`).
fn correction(sentence: &str) -> Option<String> {
    let body = sentence.trim();
    let cut = body.find([',', ':', ';', '—']).map(|k| (k, body[k..].chars().next().map_or(1, char::len_utf8)))?;
    let rest = body[cut.0 + cut.1..].trim();
    // `, not Lana` after the right words is the wrong value, not part of the fact.
    let rest = rest.split(", not ").next().unwrap_or(rest).trim().trim_end_matches(['.', '!']);
    if content_tokens(rest).is_empty() {
        return None;
    }
    let mut chars = rest.chars();
    let first = chars.next()?;
    Some(format!("{}{}.", first.to_uppercase(), chars.as_str()))
}

/// The active facts `text` corrects: those filling one of its one-value slots for the same
/// holder; else those sharing a content word with it that it does not change (`My partner
/// is Tomas` corrects `My partner is Tom`).
fn corrected<'a>(text: &str, active: &[&'a Item], slots: &[String]) -> Vec<&'a Item> {
    let same_slot: Vec<&Item> =
        active.iter().copied().filter(|i| slots::shared_slot(&i.text, text, slots).is_some()).collect();
    if !same_slot.is_empty() {
        return same_slot;
    }
    // `my name is Lena` corrects `I'm Lana`: a name said of the speaker.
    let words = content_tokens(text);
    if words.contains("name") {
        let named: Vec<&Item> = active.iter().copied().filter(|i| names_speaker(&i.text)).collect();
        if !named.is_empty() {
            return named;
        }
    }
    active
        .iter()
        .copied()
        .filter(|i| {
            let theirs = content_tokens(&i.text);
            let shared = theirs.intersection(&words).count();
            shared > 0 && shared < words.len().max(theirs.len()) && normalize(&i.text) != normalize(text)
        })
        .collect()
}

/// `I'm Lana`, `My name is Lana`, `Call me Lana`: the fact names the speaker.
fn names_speaker(text: &str) -> bool {
    let ws: Vec<String> = text.split_whitespace().map(|w| w.replace('\u{2019}', "'")).collect();
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase();
    let named = ws.windows(2).any(|p| {
        let lead = bare(&p[0]);
        (lead == "i'm" || lead == "me" && ws.iter().any(|w| bare(w) == "call"))
            && p[1].chars().next().is_some_and(char::is_uppercase)
            && p[1] != "I"
    });
    named || text.to_lowercase().contains("my name is")
}

/// How to undo `edit`, made as `version` (its seq), given the rows after it.
pub fn undo(edit: &UserEdit, version_seq: u64, items: &[Item]) -> Option<Undo> {
    match edit {
        UserEdit::Forget { .. } => version_seq.checked_sub(1).map(|seq| Undo::Restore { seq, head: version_seq }),
        UserEdit::Correct { item_id, .. } => {
            let old = items.iter().find(|i| &i.item_id == item_id)?;
            let new = old.superseded_by.clone()?;
            Some(Undo::Edit { edit: UserEdit::Correct { item_id: new, text: old.text.clone() } })
        }
        UserEdit::Pin { item_id } => Some(Undo::Edit { edit: UserEdit::Unpin { item_id: item_id.clone() } }),
        UserEdit::Unpin { item_id } => Some(Undo::Edit { edit: UserEdit::Pin { item_id: item_id.clone() } }),
    }
}

/// Each memory command of the turn `text` carried out on `store`: every [`Told::Edit`]
/// made by `apply` (the caller's one write path; `flow::edit::apply` where there is no
/// other), every question asked back with nothing changed. Commands the encoder carries
/// out with the turn (remember, remind) are left to it. An edit `apply` refuses ends
/// nothing: it is said, and the next command is read.
///
/// `turn` is what recording the turn logged (`TurnOutcome::encoded`): each fact the user's
/// `remind me to …` or `remember that …` kept is said first, its undo a forget.
///
/// Only a turn that forgets, erases or corrects reads the whole memory (to find the fact it
/// means); any other reads the facts its turn kept, by id — a chat turn's cost does not
/// grow with the memory's lifetime.
pub async fn carry_out<S: Store, E: std::fmt::Display>(
    store: &S,
    text: &str,
    turn: &[Mutation],
    apply: impl AsyncFn(&UserEdit) -> Result<Version, E>,
) -> Result<Vec<Carried>, StoreError> {
    let meta = store.meta().await?;
    let kept: Vec<String> = own_kept(turn).map(|m| m.item_id.clone()).collect();
    let mut out =
        if kept.is_empty() { Vec::new() } else { kept_said(turn, &store.item_states(&kept, meta.head).await?) };
    let edits = act::turn(text).iter().any(|s| {
        matches!(s.reading.act, Act::Command(CommandKind::Forget | CommandKind::Erase | CommandKind::Correct))
    });
    if !edits {
        return Ok(out);
    }
    let told = plan(text, &store.items().await?, &meta.policy.single_valued_slots);
    for t in told {
        let carried = match t {
            Told::WithTurn { .. } => continue,
            Told::Ask { sentence, question } => Carried { sentence, said: question, changed: false, undo: None },
            Told::Edit { sentence, edit, did } => match apply(&edit).await {
                Ok(version) => {
                    let edited = store.item_states(&[edit.item_id().to_string()], version.seq).await?;
                    let undo = undo(&edit, version.seq, &edited);
                    Carried { sentence, said: format!("{did} (your edit, {})", version.label), changed: true, undo }
                }
                Err(why) => Carried { sentence, said: format!("not done: {why}"), changed: false, undo: None },
            },
        };
        out.push(carried);
    }
    Ok(out)
}

/// What the user's own commands (remember, remind) kept with the turn, as logged.
fn own_kept(turn: &[Mutation]) -> impl Iterator<Item = &Mutation> {
    turn.iter().filter(|m| m.proposer == Proposer::User && m.kind == MutationKind::Add && m.accepted)
}

/// Each fact the user's own command kept with the turn, as the chat shows it.
fn kept_said(turn: &[Mutation], items: &[Item]) -> Vec<Carried> {
    own_kept(turn)
        .filter_map(|m| {
            let item = items.iter().find(|i| i.item_id == m.item_id)?;
            let due = match (item.is_commitment(), item.when()) {
                (true, Some(when)) => format!(", due {}", when.last()),
                (true, None) => ", with no date its words name".to_string(),
                _ => String::new(),
            };
            let what = if item.is_commitment() { "a reminder" } else { "a fact" };
            Some(Carried {
                sentence: m
                    .reason
                    .trim_start_matches("the user said in the chat: ")
                    .trim_matches(['“', '”'])
                    .to_string(),
                said: format!("kept {} “{}” as {what}{due} (your edit)", item.item_id, item.text),
                changed: true,
                undo: Some(Undo::Edit {
                    edit: UserEdit::Forget { item_id: item.item_id.clone(), reason: "undone from the chat".into() },
                }),
            })
        })
        .collect()
}

/// What a chat turn's `remind me to …` and `remember that …` keep: each the user's own fact
/// (proposer `user`, no gate judges the user's word) in scratch, dated by the turn, ids from
/// `first_id`. A reminder is a commitment in the user's words, its due date resolved by
/// code from them (`Item::when`), so it falls due like any other; what `remember that`
/// keeps is the clause after it. Pure, so a device replaying the turn keeps the same.
pub fn kept_by_command(turn: &Turn, first_id: u64, now: i64) -> (Vec<Item>, Vec<Mutation>) {
    let mut items = Vec::new();
    let mut log = Vec::new();
    for said in act::turn(&turn.text) {
        let (text, category) = match said.reading.act {
            Act::Command(CommandKind::Remind) => (from_word(said.sentence, &["remind"]), Category::Commitments),
            Act::Command(CommandKind::Remember) => {
                let clause = from_word(said.sentence, &["remember", "note", "memorize", "memorise"])
                    .and_then(|s| after_verb(&s));
                let category = clause.as_deref().map_or("context", crate::llm::offline::categorise);
                (clause, category.into())
            }
            _ => continue,
        };
        let Some(text) = text.filter(|t| !content_tokens(t).is_empty()) else { continue };
        let mut item = Item::new_fact(first_id + items.len() as u64, Block::Scratch, category.as_str(), &text, now);
        item.source_turn = Some(turn.index);
        item.speaker = turn.speaker.clone();
        item.valid_from = Some(now);
        log.push(Mutation {
            id: 0,
            seq: 0,
            pass: Stage::User,
            kind: MutationKind::Add,
            item_id: item.item_id.clone(),
            refs: Refs { source_turn: Some(turn.index), ..Default::default() },
            accepted: true,
            reason: format!("the user said in the chat: “{}”", said.sentence.trim()),
            rejection_reason: None,
            policy: None,
            proposer: Proposer::User,
            at: now,
        });
        items.push(item);
    }
    (items, log)
}

/// `sentence` from the first of `verbs` on, as a sentence (`Can you remind me to call the
/// vet tomorrow?` → `Remind me to call the vet tomorrow.`).
fn from_word(sentence: &str, verbs: &[&str]) -> Option<String> {
    let at = sentence
        .char_indices()
        .map(|(k, _)| k)
        .filter(|k| *k == 0 || sentence[..*k].ends_with(char::is_whitespace))
        .find(|k| {
            let word = sentence[*k..].split_whitespace().next().unwrap_or("");
            verbs.contains(&word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase().as_str())
        })?;
    let rest = sentence.get(at..)?.trim().trim_end_matches(['.', '!', '?']).trim();
    let mut chars = rest.chars();
    let first = chars.next()?;
    Some(format!("{}{}.", first.to_uppercase(), chars.as_str()))
}

/// `Remember that my PIN changed.` → `My PIN changed.`: the clause after the verb and `that`.
fn after_verb(sentence: &str) -> Option<String> {
    let mut words = sentence.split_whitespace();
    words.next()?;
    let rest: Vec<&str> = words.collect();
    let skip = usize::from(rest.first().is_some_and(|w| w.eq_ignore_ascii_case("that")));
    let clause = rest[skip..].join(" ");
    let mut chars = clause.chars();
    let first = chars.next()?;
    Some(format!("{}{}", first.to_uppercase(), chars.as_str()))
}
