//! The meaning rule Supersede adds to the word measures (`text::textmath`), as a pure function the
//! engine also uses to choose its candidates: on what basis a newer fact may replace an
//! older one. (Polarity itself is a text measure: `text::polarity`.)
//!
//! Everything the rule reads of one fact is a [`Reading`], made once: the gate reads two
//! facts per proposal, the engine's candidate search reads each fact once for a whole
//! memory and then judges many pairs of them.

use crate::model::memory::{Item, SupersedeBasis, Turn};
use crate::model::policy::RetentionPolicy;
use crate::text::frame::{self, Frame};
use crate::text::polarity;
use crate::text::slots::{self, SlotFill};
use crate::text::textmath;
use std::collections::BTreeSet;

/// What the meaning rule reads of one fact.
#[derive(Clone, Debug)]
pub struct Reading<'a> {
    item: &'a Item,
    content: BTreeSet<String>,
    negated: bool,
    /// The one-value slots the text fills, by their index in the policy's list.
    fills: Vec<(usize, SlotFill)>,
    /// Whether a clause of the text or of its source turn states a change.
    changes: bool,
    /// Each clause of the fact read: its referent, role and value (`text::frame`).
    frames: Vec<Frame>,
}

impl<'a> Reading<'a> {
    /// Reads `item` under `policy`; `turns` holds its source turn, if it is still there.
    pub fn new(item: &'a Item, policy: &RetentionPolicy, turns: &[Turn]) -> Self {
        let source = item.source_turn.and_then(|i| turns.iter().find(|t| t.index == i)).map(|t| t.text.as_str());
        Reading::with_source(item, policy, source)
    }

    /// [`Reading::new`] with the source turn's text already found.
    pub fn with_source(item: &'a Item, policy: &RetentionPolicy, source: Option<&str>) -> Self {
        let frames = frame::frames(&item.text);
        let cued = std::iter::once(item.text.as_str()).chain(source).flat_map(polarity::clauses);
        let changes = frames.iter().any(|f| !f.change.is_empty() || frame::ending(f).is_some())
            || cued.into_iter().any(|c| !polarity::change_cues(c).is_empty());
        Reading {
            item,
            content: textmath::content_tokens(&item.text),
            negated: polarity::is_negated(&item.text),
            fills: slots::fills(&item.text, &policy.single_valued_slots),
            changes,
            frames,
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
        self.changes
    }
}

/// On what basis `new` may supersede `old` (both already checked to be live, in one block,
/// `new` the later): the same statement with opposite polarity; or the same referent with a
/// new value of one role, or its end (`gate::identity`). `Err` is the refusal, in words a
/// user understands.
pub fn supersede_basis(
    old: &Item,
    new: &Item,
    policy: &RetentionPolicy,
    turns: &[Turn],
) -> Result<SupersedeBasis, NoBasis> {
    basis(&Reading::new(old, policy, turns), &Reading::new(new, policy, turns), policy)
}

/// [`supersede_basis`] over two readings.
pub fn basis(old: &Reading<'_>, new: &Reading<'_>, policy: &RetentionPolicy) -> Result<SupersedeBasis, NoBasis> {
    basis_or_why(old, new, policy).map_err(NoBasis)
}

/// Why a newer fact may not replace an older one, in words a user understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoBasis(pub String);

impl std::fmt::Display for NoBasis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoBasis {}

/// The words, where the Supersede gate writes its refusal.
impl From<NoBasis> for String {
    fn from(why: NoBasis) -> String {
        why.0
    }
}

fn basis_or_why(old: &Reading<'_>, new: &Reading<'_>, policy: &RetentionPolicy) -> Result<SupersedeBasis, String> {
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
        // Words shared are not a value shared: `… rate is £7 an hour` / `… £7.50 an hour`,
        // `Spirited Away is my favourite film` / `Past Lives has replaced Spirited Away as
        // my favourite film` restate the older's words around a new value.
        let ids = (old.item.item_id.as_str(), new.item.item_id.as_str());
        if let Ok(basis) = super::identity::basis(ids, &old.frames, &new.frames, &policy.single_valued_slots) {
            return Ok(basis);
        }
        return Err(format!(
            "similarity {sim:.3} reaches the threshold {threshold} and each clause of {} keeps the polarity of the clause of {} it restates: a duplicate, which is Dedupe's job",
            new.item.item_id, old.item.item_id
        ));
    }
    // The same referent with a new value of the same role, or its end (`gate::identity`).
    let ids = (old.item.item_id.as_str(), new.item.item_id.as_str());
    super::identity::basis(ids, &old.frames, &new.frames, &policy.single_valued_slots)
}

/// Whether two facts are about one thing that is more than the speaker (a merge of them
/// stays one fact: `gate::identity::one_thing`); [`NotOneThing`] names what each is about.
pub fn one_thing(a: &Item, b: &Item) -> Result<(), NotOneThing> {
    let (fa, fb) = (frame::frames(&a.text), frame::frames(&b.text));
    super::identity::one_thing((&a.item_id, &fa, a.created_at), (&b.item_id, &fb, b.created_at)).map_err(NotOneThing)
}

/// Why two facts are not about one thing, in words a user understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotOneThing(pub String);

impl std::fmt::Display for NotOneThing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotOneThing {}
