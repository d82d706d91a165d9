//! The meaning rule Supersede adds to the word measures (`text::textmath`), as a pure function the
//! engine also uses to choose its candidates: on what basis a newer fact may replace an
//! older one. (Polarity itself is a text measure: `text::polarity`.)
//!
//! Everything the rule reads of one fact is a [`Reading`], made once: the gate reads two
//! facts per proposal, the engine's candidate search reads each fact once for a whole
//! memory and then judges many pairs of them.

use crate::model::memory::{Item, SupersedeBasis, Turn};
use crate::model::policy::RetentionPolicy;
use crate::text::polarity;
use crate::text::slots::{self, SlotFill};
use crate::text::state::{self, About};
use crate::text::textmath;
use std::collections::BTreeSet;

/// What the meaning rule reads of one fact.
#[derive(Clone, Debug)]
pub struct Reading<'a> {
    item: &'a Item,
    content: BTreeSet<String>,
    /// The content tokens that say what the fact is about: without the change and
    /// negation cues (`now`, `new`, `no longer`), which say how, not what.
    topic: BTreeSet<String>,
    negated: bool,
    /// The one-value slots the text fills, by their index in the policy's list.
    fills: Vec<(usize, SlotFill)>,
    /// Clauses of the text and of its source turn that state a change.
    changes: Vec<Change>,
    /// Who the text's first clause is about (`None`: no subject with a verb).
    about: Option<About>,
    /// That subject's grammatical person, when a pronoun says it ([`person`]).
    person: Option<usize>,
}

/// A clause that states a change: its tokens and its cues, each with what it is said of.
#[derive(Clone, Debug)]
struct Change {
    tokens: BTreeSet<String>,
    /// `(cue, the content word it describes)`: `new` describes the word after it (`my new
    /// phone`), which must be what the two facts share; other cues (`now`, `moved`) speak
    /// of the whole clause (`None`).
    cues: Vec<(String, Option<String>)>,
}

impl Change {
    fn read(clause: &str) -> Option<Change> {
        let words: Vec<String> = textmath::normalize(clause).split_whitespace().map(String::from).collect();
        let cues: Vec<(String, Option<String>)> = polarity::change_cues(clause)
            .into_iter()
            .map(|cue| {
                let described = (cue == "new").then(|| {
                    let after = words.iter().skip_while(|w| *w != "new").skip(1);
                    after.map(|w| textmath::stem_token(w)).find(|t| !textmath::is_stopword(t)).unwrap_or_default()
                });
                (cue, described)
            })
            .collect();
        (!cues.is_empty()).then(|| Change { tokens: textmath::tokens(clause).into_iter().collect(), cues })
    }

    /// The first cue that speaks of `subject`, if the clause shares it: `I got a new
    /// friend` states no change of `I got a new addition to the family` (`new` describes
    /// `friend`, not what the two share).
    fn cue_about(&self, subject: &[&String]) -> Option<&str> {
        if !subject.iter().any(|s| self.tokens.contains(*s)) {
            return None;
        }
        let about = |d: &Option<String>| d.as_ref().is_none_or(|d| subject.contains(&d));
        self.cues.iter().find(|(_, d)| about(d)).map(|(cue, _)| cue.as_str())
    }
}

impl<'a> Reading<'a> {
    /// Reads `item` under `policy`; `turns` holds its source turn, if it is still there.
    pub fn new(item: &'a Item, policy: &RetentionPolicy, turns: &[Turn]) -> Self {
        let source = item.source_turn.and_then(|i| turns.iter().find(|t| t.index == i)).map(|t| t.text.as_str());
        Reading::with_source(item, policy, source)
    }

    /// [`Reading::new`] with the source turn's text already found.
    pub fn with_source(item: &'a Item, policy: &RetentionPolicy, source: Option<&str>) -> Self {
        let changes = std::iter::once(item.text.as_str())
            .chain(source)
            .flat_map(polarity::clauses)
            .filter_map(Change::read)
            .collect();
        let content = textmath::content_tokens(&item.text);
        let subject = state::about(&item.text);
        Reading {
            item,
            topic: content.iter().filter(|t| !polarity::is_cue_token(t)).cloned().collect(),
            content,
            negated: polarity::is_negated(&item.text),
            fills: slots::fills(&item.text, &policy.single_valued_slots),
            about: subject.map(|(who, _)| who),
            person: subject.and_then(|(_, at)| person(&item.text, at)),
            changes,
        }
    }

    /// Whether the fact is a negated statement (`text::polarity`).
    pub fn negated(&self) -> bool {
        self.negated
    }

    /// The one-value slots the text fills: `(index in the policy's list, fill)`.
    pub fn fills(&self) -> &[(usize, SlotFill)] {
        &self.fills
    }

    /// Whether a clause of the fact or of its source turn states a change at all.
    pub fn states_a_change(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// On what basis `new` may supersede `old` (both already checked to be live, in one block,
/// `new` the later): the same statement with opposite polarity; or, for two facts that
/// conflict (`textmath::conflicts`), a one-value slot they share or a change the user
/// stated. `Err` is the refusal, in words a user understands.
pub fn supersede_basis(
    old: &Item,
    new: &Item,
    policy: &RetentionPolicy,
    turns: &[Turn],
) -> Result<SupersedeBasis, String> {
    basis(&Reading::new(old, policy, turns), &Reading::new(new, policy, turns), policy)
}

/// [`supersede_basis`] over two readings.
pub fn basis(old: &Reading<'_>, new: &Reading<'_>, policy: &RetentionPolicy) -> Result<SupersedeBasis, String> {
    let threshold = policy.similarity_threshold;
    let (a, b) = (&old.content, &new.content);
    let sim = textmath::set_similarity(a, b);
    if textmath::reaches(sim, threshold) {
        // `And you're part of that.` is not the opposite of `… part of my life, not just a hobby`.
        if let Some(why) = crate::gate::dedupe::only_a_mention(&old.item.text, &new.item.text) {
            return Err(format!(
                "{} and {} are not one statement said both ways: {why}",
                old.item.item_id, new.item.item_id
            ));
        }
        // Polarity is a clause's: `Keep going after your dreams.` restates the first clause
        // of `Keep going for your dreams and don't quit.`, whose `not` is the other clause's.
        if polarity::keeps_polarity(&new.item.text, &[old.item.text.as_str()], "", "").is_err() {
            return Ok(SupersedeBasis::Polarity);
        }
        return Err(format!(
            "similarity {sim:.3} reaches the threshold {threshold} and each clause of {} keeps the polarity of the clause of {} it restates: a duplicate, which is Dedupe's job",
            new.item.item_id, old.item.item_id
        ));
    }
    // What the two are about, and whether they differ in value, counts the topic words:
    // `I'm always up for new books` and `I love this new script` share only a cue.
    let (a, b) = (&old.topic, &new.topic);
    let subject: Vec<&String> = a.intersection(b).collect();
    if !textmath::conflicts(a, b, threshold) {
        return Err(format!(
            "{} and {} are not about the same thing: they share {} of {} content tokens ({}), not half of the smaller fact with a value each",
            old.item.item_id,
            new.item.item_id,
            subject.len(),
            a.len().min(b.len()),
            if subject.is_empty() {
                "none".to_string()
            } else {
                subject.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            }
        ));
    }
    let slot_name = |n: usize| policy.single_valued_slots[n].clone();
    let both = |same: bool| {
        old.fills.iter().find_map(|(n, x)| {
            let (_, y) = new.fills.iter().find(|(m, y)| m == n && (x.holder == y.holder) == same)?;
            Some((*n, x, y))
        })
    };
    // Only affirmative facts fill a slot: `I no longer live in Lisbon` and `I live in Porto` can both hold.
    if !old.negated && !new.negated {
        if let Some((n, _, _)) = both(true) {
            return Ok(SupersedeBasis::Slot { slot: slot_name(n) });
        }
    }
    // A slot names its holder: a change stated about someone else replaces nothing here.
    if let Some((n, x, y)) = both(false) {
        return Err(format!(
            "both fill \"{}\", but for different holders ({}; {}): a change for one is not a change for the other",
            slot_name(n),
            slots::holder_name(&x.holder),
            slots::holder_name(&y.holder)
        ));
    }
    // A cue counts only in a clause that shares the subject, and `new` only of what is shared.
    if let Some(cue) = new.changes.iter().find_map(|c| c.cue_about(&subject)) {
        return stated_change(old, new, &subject, cue);
    }
    let described = new
        .changes
        .iter()
        .filter(|c| subject.iter().any(|s| c.tokens.contains(*s)))
        .flat_map(|c| &c.cues)
        .find_map(|(_, d)| d.as_ref().filter(|d| !d.is_empty()));
    if let Some(word) = described {
        return Err(format!(
            "\"new\" in {} describes \"{word}\", not what the two share ({}): a new thing is not a change of an old one",
            new.item.item_id,
            subject.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    let predicate = textmath::tokens(&new.item.text).into_iter().find(|t| subject.contains(&t)).unwrap_or_default();
    Err(format!("\"{predicate}\" can hold several values at once and the newer fact states no change"))
}

/// The change basis once a clause of `new` states a change (`cue`) of what the two share
/// (`subject`): only if that is what `new` is about.
fn stated_change(
    old: &Reading<'_>,
    new: &Reading<'_>,
    subject: &[&String],
    cue: &str,
) -> Result<SupersedeBasis, String> {
    let b = &new.topic;
    // The change must be of the older fact's matter, not of a word the two happen to
    // share: a newer fact states a new value of a thing when half of what it is about is
    // that thing (`My new phone is a Pixel.`); a long one that mentions a word of a short
    // older one (`Game changer.` / `… a block that totally changed the game`) does not.
    if 2 * subject.len() < b.len() {
        return Err(format!(
            "{} states a change (\"{cue}\") of something else: it shares {} of its {} content tokens with {} ({}), not half",
            new.item.item_id,
            subject.len(),
            b.len(),
            old.item.item_id,
            subject.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    // A change stated of one person is not a change of another: `They've been practicing
    // hard.` is not replaced by `I won't quit, even when it's hard.`
    if let (Some(was), Some(is)) = (old.person, new.person) {
        if was != is {
            return Err(format!(
                "{} is about {} and {} about {}: a change (\"{cue}\") stated of one is not a change of the other",
                old.item.item_id, PERSONS[was], new.item.item_id, PERSONS[is]
            ));
        }
    }
    // Only a statement states a change, and of something it names: not a fragment
    // (`Sending you the recipe now.`), not what `it` points at (`It helped me up my game.`).
    match new.about {
        None => Err(format!(
            "{} has no subject with a verb of its own: a fragment states no change (\"{cue}\")",
            new.item.item_id
        )),
        Some(About::Pointed) => Err(format!(
            "{} is about what \"it\" or \"that\" points at, which {} does not name: \"{cue}\" shows no change of its matter",
            new.item.item_id, old.item.item_id
        )),
        Some(_) => Ok(SupersedeBasis::Change { cue: cue.to_string() }),
    }
}

/// The grammatical persons [`person`] tells apart, by index.
const PERSONS: [&str; 3] = ["the speaker", "the one spoken to", "someone else"];

/// The grammatical person of the subject starting at byte `at` of `text`, when a personal
/// or possessive pronoun says it: 0 for `I`, `we`, `my …`; 1 for `you`, `your …`; 2 for
/// `he`, `she`, `they`, `their …`. `None` for a noun phrase (`the flat`, `a lot`) or a
/// pointer, where the words alone do not say whose it is.
fn person(text: &str, at: usize) -> Option<usize> {
    let word = textmath::normalize(text.get(at..)?).split_whitespace().next()?.to_string();
    match word.as_str() {
        "i" | "we" | "my" | "our" | "im" | "ive" | "id" | "ill" | "were" | "weve" => Some(0),
        "you" | "your" | "youre" | "youve" | "youll" => Some(1),
        "he" | "she" | "they" | "his" | "her" | "their" | "hes" | "shes" | "theyre" | "theyve" => Some(2),
        _ => None,
    }
}
