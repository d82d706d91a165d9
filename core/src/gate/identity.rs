//! The referent rule of Supersede: a newer fact replaces an older one only when
//! it speaks of the *same referent* — the speaker, one name, one description (`my cat`,
//! `the gym I go to`) — and gives it a new value of the same role, or ends it. Read from
//! the facts' grammar (`text::frame`, `text::referent`), never from a shared word:
//!
//! - an indefinite (`a book called Emma`, `a colleague named Joost`, `there's a woman …`)
//!   introduces a new one of a kind: it replaces nothing;
//! - two descriptions are one referent only with one possessor, head and restriction (`my
//!   older dog` is not `my younger dog`, `the dentist I see` not `the dentist my son sees`);
//!   one member of a group (`my older sister`) may change what the group's fact said;
//! - the same role: the same verb, or `be` with the same kind of complement — an amount in
//!   the same unit, a name, what it is, where it is;
//! - a new value replaces the old one when the newer clause says so (`now`, `these days`,
//!   `since`, `instead`, `back`, `no longer`), when the role holds one value at a time (a
//!   name, an amount, what a description is, a slot of the policy held by the subject), or
//!   when the older state was said for a while (`this week`, `until June`);
//! - a clause that ends the thing (`sold the Canon`, `the bike was stolen`, `retired`,
//!   `moved to …` of where it was) ends the older fact;
//! - what was past (`studied in Salamanca`) stays true, and what is added (`also`, `too`,
//!   `as well`) replaces nothing.

use crate::model::memory::SupersedeBasis;
use crate::text::cues;
use crate::text::frame::{self, Complement, Frame, Tense};
use crate::text::referent::{Det, Phrase};
use crate::text::{slots, textmath, verbs};
use std::collections::BTreeSet;

mod clauses;
use clauses::{bridged, ends_a_while, felt, resolved};

/// The basis on which the newer fact's clauses (`new`) replace the older fact's first
/// clause (`old[0]`), or the refusal naming the referents and roles at fault.
pub(super) fn basis(
    ids: (&str, &str),
    old: &[Frame],
    new: &[Frame],
    slots: &[String],
) -> Result<SupersedeBasis, String> {
    let (o_id, n_id) = ids;
    let old = resolved(old);
    let Some(o) = old.first() else {
        return Err(format!("{o_id} has no clause with a subject and a verb: nothing in it has a value to replace"));
    };
    let counted = counted(o);
    if let Some(p) = new.iter().flat_map(|n| &n.mentions).find(|p| {
        p.is_new() && p.modifiers.iter().any(|m| m == "new") && !counted.iter().any(|c| same_kind(&p.head, c))
    }) {
        // `I got her a new collar`: a new thing, whatever the older fact says.
        return Err(format!(
            "{n_id} names a new {} (indefinite \"{}\"): \"new\" in {n_id} describes \"{}\", not a new value of {o_id}'s",
            p.head, p.text, p.head
        ));
    }
    if o.tense == Tense::Past {
        return Err(format!(
            "{o_id} tells of the past (\"{}\"): it stays true as said, whatever {n_id} says of now",
            o.text
        ));
    }
    if new.is_empty() {
        return Err(format!("{n_id} has no clause with a subject and a verb: it gives no new value"));
    }
    let mut refusals = Vec::new();
    for n in &resolved(new) {
        match relation(o, n, ids, slots) {
            Ok(b) => return Ok(b),
            Err(r) => refusals.push(r),
        }
    }
    crate::text::order::sort_by_key(&mut refusals, |(rank, _)| *rank);
    Err(refusals.into_iter().next().map(|(_, r)| r).unwrap_or_default())
}

/// A refusal and how much it says: 0 of the same referent, 1 of a new one, 2 of another.
type Refusal = (u8, String);

/// How one clause of the newer fact (`n`) stands to the older fact's clause (`o`).
fn relation(o: &Frame, n: &Frame, (o_id, n_id): (&str, &str), slots: &[String]) -> Result<SupersedeBasis, Refusal> {
    if n.existential || n.subject.is_new() {
        return Err((1, new_one(n_id, o_id, &n.subject)));
    }
    let things: Vec<&Phrase> = std::iter::once(&o.subject).chain(&o.mentions).collect();
    // What the older fact named, taken up and ended (`I sold the Canon`, `The bike was
    // stolen`, `I moved the rubber plant to the bedroom`), whoever the subject.
    if let Some((verb, thing)) = ends_a_thing(o, n, &things) {
        return Ok(SupersedeBasis::Ended { thing, verb });
    }
    if let Some(basis) = renamed(o, n).or_else(|| count_changed(o, n)) {
        return Ok(basis);
    }
    let amounts = matches!((&o.complement, &n.complement), (Complement::Amount { unit: a, .. }, Complement::Amount { unit: b, .. }) if a == b && !a.is_empty());
    if amounts
        && related(&o.subject, &n.subject)
        && n.tense == Tense::Present
        && differs(o, n, &Role::Amount(Vec::new()))
    {
        return Ok(SupersedeBasis::Role { referent: o.subject.describe(), role: "amount".into() });
    }
    if o.existential || o.subject.is_new() || !(o.subject.same(&n.subject) || n.subject.member_of(&o.subject)) {
        if o.existential || o.subject.is_new() {
            return Err((1, format!(
                "{o_id} introduces {} (indefinite) and {n_id} does not take it up to end it: a new one is not a new value of another",
                o.subject.text
            )));
        }
        if let Some(basis) = bridged(o, n).and_then(|(o, n)| relation(&o, &n, (o_id, n_id), slots).ok()) {
            return Ok(basis);
        }
        return Err(other_referent(o, n, (o_id, n_id)));
    }
    if n.subject.text.is_empty() {
        return Err((
            1,
            format!("{n_id} has no subject of its own: a fragment states no change of {}", o.subject.describe()),
        ));
    }
    same_referent(o, n, (o_id, n_id), slots)
}

/// Why two clauses about different referents replace nothing, in the words that say it:
/// a pronoun that points at something the older fact does not name; a change stated of
/// something else; two holders of one kind of value.
fn other_referent(o: &Frame, n: &Frame, (o_id, n_id): (&str, &str)) -> Refusal {
    let (was, is) = (o.subject.describe(), n.subject.describe());
    if n.subject.det == Det::Pronoun {
        return (
            2,
            format!(
                "{n_id} is about what \"{}\" points at, which {o_id} does not name: nothing shows it is {was}",
                n.subject.text.to_lowercase()
            ),
        );
    }
    if let Some(cue) = n.change.first().cloned().or_else(|| frame::ending(n)) {
        return (2, format!(
            "{n_id} states a change (\"{cue}\") of something else: {o_id} is about {was} and {n_id} about {is}, and a change (\"{cue}\") stated of one is not a change of the other"
        ));
    }
    (2, format!("{o_id} and {n_id} have different holders ({was}; {is}): a value of one is not a value of the other"))
}

/// `n_id` names a new X.
fn new_one(n_id: &str, o_id: &str, p: &Phrase) -> String {
    let kind = if p.head.is_empty() { "one".to_string() } else { p.head.clone() };
    format!("{n_id} names a new {kind} (indefinite \"{}\"), not a new value of {o_id}'s", p.text)
}

/// `o` and `n` speak of one referent (or `n` of one member of `o`'s group).
fn same_referent(
    o: &Frame,
    n: &Frame,
    (o_id, n_id): (&str, &str),
    slots: &[String],
) -> Result<SupersedeBasis, Refusal> {
    let who = o.subject.describe();
    if let Some(a) = &n.additive {
        return Err((0, format!("{n_id} adds to what {o_id} says of {who} (\"{a}\"): both hold")));
    }
    if let Some(verb) = frame::ending(n).filter(|v| n.event && ends(o, n, v)) {
        let thing = if n.mentions.is_empty() || intransitive(&n.verb) { who } else { n.mentions[0].text.clone() };
        return Ok(SupersedeBasis::Ended { thing, verb });
    }
    if let Some(phrase) = o.bounded.as_ref().filter(|_| ends_a_while(o, n)) {
        // `My husband is in Singapore until the 20th` / `My husband flew home last night`.
        return Ok(SupersedeBasis::While { phrase: phrase.clone() });
    }
    if o.negated && !n.negated && affirms(o, n) {
        // `I'm not seeing anyone` / `I'm seeing someone I met at salsa`: what was denied holds.
        return Ok(SupersedeBasis::Polarity);
    }
    if o.negated {
        return Err((0, format!("{o_id} says what does not hold of {who}: {n_id}'s value does not undo it")));
    }
    if let Some(verdict) = felt(o, n, (o_id, n_id), slots) {
        return verdict;
    }
    let role = role(o, n).ok_or_else(|| {
        (0, format!(
            "{o_id} and {n_id} are not about the same thing: {o_id} says \"{}\" of {who}, {n_id} \"{}\"; each can hold with the other",
            o.text, n.text
        ))
    })?;
    if n.negated {
        let cue = n.change.iter().find(|c| matches!(c.as_str(), "anymore" | "any more" | "no longer"));
        return match cue {
            Some(cue) => Ok(SupersedeBasis::Change { cue: cue.clone() }),
            None => Err((0, format!("{n_id} says what does not hold of {who}, not that {o_id} stopped holding"))),
        };
    }
    // `I have a book called Emma now`: a named one of a kind is a new one, never a new value
    // (what `be` says is a value: `the landlord is a company called Keystone`).
    if let Some(p) = object(n).filter(|p| !n.copula && p.is_new() && !p.name.is_empty()) {
        return Err((1, new_one(n_id, o_id, p)));
    }
    if n.tense == Tense::Past {
        return Err((0, format!("{n_id} tells of the past (\"{}\"), not of what holds of {who} now", n.text)));
    }
    if !differs(o, n, &role) {
        return Err((0, format!("{n_id} gives {who} the value {o_id} gives: a restatement, not a change")));
    }
    // `new` of a description is a change only against the one that was not new.
    let renewed = |c: &&String| !(*c == "new" && o.subject.modifiers.iter().any(|m| m == "new"));
    if o.occasion != n.occasion && !n.change.iter().any(|c| renewed(&c)) {
        let when = |f: &Frame| if f.occasion.is_empty() { "always".to_string() } else { f.occasion.join(", ") };
        return Err((
            0,
            format!("{o_id} and {n_id} hold on different occasions ({} / {}): both can be true", when(o), when(n)),
        ));
    }
    if let Some(cue) = n.change.iter().find(renewed) {
        return Ok(SupersedeBasis::Change { cue: cue.clone() });
    }
    if let Some(slot) = subject_slot(o, n, slots) {
        return Ok(SupersedeBasis::Slot { slot });
    }
    if let Some(role) = one_value(o, &role) {
        return Ok(SupersedeBasis::Role { referent: who, role });
    }
    if let Some(phrase) = &o.bounded {
        return Ok(SupersedeBasis::While { phrase: phrase.clone() });
    }
    let what = match &role {
        Role::Verb(v) => format!("\"{v}\""),
        r => r.describe(&who),
    };
    Err((0, format!("{what} can hold several values at once and the newer fact states no change ({n_id} of {who})")))
}

/// What a clause says of its subject, for comparing two clauses.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Role {
    /// An amount of one unit (`£… a month`, `… minutes`, an age).
    Amount(Vec<String>),
    /// Its name.
    Name,
    /// What it is (`is a silver Honda Jazz`, `is Oskar`).
    Identity,
    /// How it is (`is single`, `is really slow`).
    Property,
    /// Where it is or stays (`is on Dock Street`, `lives in Bristol`, `is staying at …`).
    Place,
    /// What it does, by the verb (`supports`, `works`).
    Verb(String),
    /// A state, told two ways (`is single` / `is in a relationship`).
    State,
    /// A role a person holds one of at a time (`relationship status`, `shift pattern`).
    Status(&'static str),
}

impl Role {
    fn describe(&self, who: &str) -> String {
        match self {
            Role::Amount(unit) if unit.is_empty() => format!("the number {who} is"),
            Role::Amount(unit) => format!("{who}'s amount in {}", unit.join(" ")),
            Role::Name => format!("{who}'s name"),
            Role::Identity => format!("what {who} is"),
            Role::Property => format!("how {who} is"),
            Role::Place => format!("where {who} is"),
            Role::Verb(v) => format!("what {who} does (\"{v}\")"),
            Role::State => format!("how {who} is"),
            Role::Status(s) => format!("{who}'s {s}"),
        }
    }
}

/// Verbs that say where someone or something is.
const LOCATING: &[&str] = &["live", "stay", "sleep", "be", "base", "locate", "sit"];

/// The role both clauses fill, if one: the same verb with the same kind of complement, or
/// an amount in one unit however said (`costs £25` / `is £30`).
fn role(o: &Frame, n: &Frame) -> Option<Role> {
    if let (Some(a), Some(b)) = (frame::status(o), frame::status(n)) {
        if a == b {
            return Some(Role::Status(a));
        }
    }
    // Where someone is for a while, and where they are now (`working from home this week`
    // / `back in the office`).
    if o.bounded.is_some()
        && matches!(o.complement, Complement::Place(_))
        && matches!(n.complement, Complement::Place(_))
    {
        return Some(Role::Place);
    }
    if let (Complement::Amount { unit: a, .. }, Complement::Amount { unit: b, .. }) = (&o.complement, &n.complement) {
        let same_verb = o.verb == n.verb || o.copula || n.copula;
        return (a == b && same_verb).then(|| Role::Amount(a.clone()));
    }
    if matches!(o.complement, Complement::Naming(_))
        && (matches!(n.complement, Complement::Naming(_)) || n.verb == "rename")
    {
        return Some(Role::Name);
    }
    let place = |f: &Frame| matches!(f.complement, Complement::Place(_)) && LOCATING.contains(&f.verb.as_str());
    if place(o) && place(n) {
        return Some(Role::Place);
    }
    if o.copula && n.copula && o.verb == "be" && n.verb == "be" {
        let what = |c: &Complement| matches!(c, Complement::Name(_) | Complement::Thing(_) | Complement::Naming(_));
        return match (&o.complement, &n.complement) {
            (a, b) if what(a) && what(b) => Some(Role::Identity),
            (Complement::Property, Complement::Property) => Some(Role::Property),
            // `is the children's ward` / `is maternity now`: what it is, told as a thing or
            // as a word; `is single` / `is in a relationship`, said for a while. One value
            // only when the newer clause says it changed or the older one held for a while.
            (a, Complement::Property) | (Complement::Property, a) if what(a) => Some(Role::State),
            (Complement::Place(_) | Complement::Property, Complement::Place(_) | Complement::Property)
                if o.bounded.is_some() =>
            {
                Some(Role::State)
            }
            _ => None,
        };
    }
    if o.copula && n.copula && o.verb != n.verb {
        // Two states told by participles (`is married` / `is divorced`).
        return Some(Role::State);
    }
    let kind = |c: &Complement| std::mem::discriminant(c);
    (o.verb == n.verb && o.particle == n.particle && !o.verb.is_empty() && kind(&o.complement) == kind(&n.complement))
        .then(|| Role::Verb(o.verb.clone()))
}

/// Whether `n` gives a value `o` does not: a word of its own, another amount or name.
fn differs(o: &Frame, n: &Frame, role: &Role) -> bool {
    if matches!(role, Role::Status(s) if cues::one_status(s)) {
        // `married to Emi` / `married with two kids`: one status, more said of it.
        return frame::status_words(o) != frame::status_words(n);
    }
    match (&o.complement, &n.complement) {
        (Complement::Amount { number: a, .. }, Complement::Amount { number: b, .. }) => a != b,
        (Complement::Naming(a), Complement::Naming(b)) | (Complement::Name(a), Complement::Name(b)) => a != b,
        // `My favourite season is autumn` / `… spring`: a time word is no value token, but
        // it is what the clause names.
        _ if o.value.is_empty() && n.value.is_empty() => {
            let heads = |f: &Frame| f.mentions.iter().map(|m| m.head.clone()).collect::<Vec<_>>();
            heads(o) != heads(n)
        }
        _ => n.value.iter().any(|t| !o.value.contains(t)),
    }
}

/// Whether `n` says, with the verb `o` denied, what `o` denied: the same value (`I don't
/// drive` / `I drive now`) or one where `o` denied any (`not seeing anyone` / `seeing
/// someone`), not another value (`I don't eat meat` / `I eat fish`).
fn affirms(o: &Frame, n: &Frame) -> bool {
    let any = ["anyone", "anybody", "anything", "any"];
    o.verb == n.verb
        && !o.verb.is_empty()
        && (o.value.iter().any(|v| any.contains(&v.as_str())) || o.value.iter().all(|v| n.value.contains(v)))
}

/// Why the role holds one value at a time, if it does: a name or an amount of one
/// referent; what a description is (`my car is …`, `the plumber we use is …`); anything
/// of a description that picks one of a kind (`my favourite …`, `the only …`); or a slot
/// of the policy the subject itself fills (`live in`, `work as`).
fn one_value(o: &Frame, role: &Role) -> Option<String> {
    let known = o.subject.is_known();
    match role {
        Role::Status(s) if cues::one_status(s) => return Some(s.to_string()),
        Role::Name if known => return Some("name".into()),
        Role::Amount(unit) if known => {
            return Some(if unit.is_empty() { "number".into() } else { format!("amount in {}", unit.join(" ")) })
        }
        Role::Identity if matches!(o.subject.det, Det::Definite | Det::Possessive) => return Some("identity".into()),
        _ => {}
    }
    let exclusive = ["favourite", "favorite", "best", "only", "main", "go-to", "usual", "current"];
    if let Some(m) = o.subject.modifiers.iter().find(|m| exclusive.contains(&m.as_str()) || m.ends_with("est")) {
        if o.copula {
            return Some(format!("\"{m}\""));
        }
    }
    None
}

/// A policy slot both clauses fill with their subject as its holder: the slot's words in
/// the subject (`my phone number`) or its first word the verb (`lives in`).
fn subject_slot(o: &Frame, n: &Frame, slots: &[String]) -> Option<String> {
    slots.iter().find(|slot| held(o, slot) && held(n, slot)).cloned()
}

/// Whether `f`'s subject holds `slot`: the slot's words in the subject (`my phone
/// number`), or its verb the clause's with the rest of its words after it (`lives on my
/// own in a studio` holds `live in`).
fn held(f: &Frame, slot: &str) -> bool {
    let words: Vec<String> = textmath::tokens(slot);
    let Some(first) = words.first() else { return false };
    let lemma = |w: &str| verbs::forms(w).map_or(w.to_string(), |v| v.lemma.to_string());
    if lemma(first) == f.verb || *first == f.verb {
        let after: Vec<String> = textmath::tokens(&f.text);
        return words[1..].iter().all(|w| after.contains(w));
    }
    let subject = textmath::tokens(&f.subject.text);
    let content: Vec<&String> = words.iter().filter(|w| !textmath::is_stopword(w)).collect();
    !content.is_empty() && content.iter().all(|w| subject.contains(w)) && slots::slot_fill(&f.text, slot).is_some()
}

/// Verbs of ending that take no object of their own (`retired`, `passed away`).
fn intransitive(verb: &str) -> bool {
    ["retire", "die", "graduate", "escape", "break", "close", "emigrate", "pass"].contains(&verb)
}

/// Whether `n`'s ending verb ends what `o` says of the same referent: a move ends where it
/// was; a change of amount its amount; a turn its age; an end of a thing `o` names (`left
/// the docks`, `gave up keto`, `quit volleyball`); a subject's own end (`retired`, `passed
/// away`, `graduated`) ends what it was.
fn ends(o: &Frame, n: &Frame, verb: &str) -> bool {
    let moving = ["move", "relocate", "emigrate", "come back", "go back", "move out"];
    if moving.contains(&verb) {
        // Moving to where the older fact already puts it ends nothing (`I live in a flat in
        // Porto` / `I moved to Porto for my master's`).
        if n.mentions.iter().any(|d| d.det == Det::Name && o.mentions.iter().any(|m| m.name == d.name)) {
            return false;
        }
        let located = matches!(o.complement, Complement::Place(_)) || LOCATING.contains(&o.verb.as_str());
        return located
            && (o.copula || LOCATING.contains(&o.verb.as_str()) || o.mentions.iter().any(|m| m.det == Det::Name));
    }
    let amounts = ["turn", "double", "halve", "rise", "go up", "go down", "drop", "hit", "shoot up", "raise"];
    if amounts.contains(&verb) {
        return matches!(o.complement, Complement::Amount { .. });
    }
    if ["change", "switch", "replace", "rename"].contains(&verb) {
        return true;
    }
    if let Some(object) = object(n).filter(|_| !intransitive(&n.verb)) {
        return o.mentions.iter().any(|m| object.takes_up(m)) || o.value.contains(&object.head);
    }
    o.copula || o.verb == "be" || n.particle.is_some() && o.value.iter().any(|v| n.value.contains(v))
}

/// A thing `o` named (its subject or a mention) that `n` takes up definitely and ends
/// (`I sold the Canon`, `The bike was stolen`, `My aunt gave the parrot to …`): the verb
/// and the thing.
fn ends_a_thing(o: &Frame, n: &Frame, things: &[&Phrase]) -> Option<(String, String)> {
    let verb = frame::ending(n)?;
    if ["change", "switch", "turn", "double", "halve", "rise", "go up", "go down", "hit"].contains(&verb.as_str()) {
        return None;
    }
    if !n.event {
        return None;
    }
    // The thing ended: the subject (`The bike was stolen`) or the direct object (`sold the
    // Canon`), never where something went (`moved to Porto`).
    for p in std::iter::once(&n.subject).chain(object(n)) {
        let Some(t) = things.iter().find(|t| p.det != Det::Speaker && p.takes_up(t)) else { continue };
        // A move ends where a thing was only when the older fact said where it was.
        let relocation = ["move", "relocate"].contains(&verb.as_str());
        if relocation
            && !o.mentions.iter().any(|m| !std::ptr::eq(m, *t))
            && !matches!(o.complement, Complement::Place(_))
        {
            continue;
        }
        return Some((verb, p.text.clone()));
    }
    None
}

/// A count the older fact states, changed by the newer: `my mum's only grandchild` / `my
/// mum has a second grandchild`; `I've got no brothers` / `I have a half-brother now`; `I've
/// never had a car` / `I bought a car`. A plain `I have a …` states no count: a second one
/// adds to it.
fn count_changed(o: &Frame, n: &Frame) -> Option<SupersedeBasis> {
    let who = n.subject.describe();
    // `only` of a description whose possessor is the newer subject, and a second of its kind.
    let only = o.subject.modifiers.iter().any(|m| m == "only");
    let owner = o.subject.possessor.last().cloned().unwrap_or_default();
    let holder =
        n.subject.name.contains(&owner) || n.subject.head == owner || (owner == "my" && n.subject.det == Det::Speaker);
    let kind = |p: &Phrase| same_kind(&p.head, &o.subject.head);
    if only && holder && n.additive.is_some() && n.mentions.iter().any(kind) {
        return Some(SupersedeBasis::Role { referent: o.subject.describe(), role: "count".into() });
    }
    // A number of a kind (`I only have one bike`, `we have two cars`, `the one credit
    // card`), and one more of it (`another`, `a second`, `a new one`).
    let counted = counted(o);
    let more = |m: &Phrase| {
        n.additive.as_deref().is_some_and(|a| a.starts_with("a ") || a == "another")
            || m.is_new() && m.modifiers.iter().any(|w| w == "new")
    };
    if let Some(kind) = counted.iter().find(|c| n.mentions.iter().any(|m| more(m) && same_kind(&m.head, c))) {
        if o.subject.same(&n.subject) {
            return Some(SupersedeBasis::Role { referent: who, role: format!("number of {kind}") });
        }
    }
    // None (`no brothers`, `never had a car`) and now one of the kind.
    let acquiring = ["have", "buy", "get", "adopt", "inherit", "find"];
    let had = |f: &Frame| f.verb == "have" || acquiring.contains(&f.verb.as_str());
    if o.negated && !n.negated && o.subject.same(&n.subject) && o.verb == "have" && had(n) {
        let heads: Vec<&String> = o.mentions.iter().map(|m| &m.head).collect();
        if n.mentions.iter().any(|m| heads.iter().any(|h| same_kind(&m.head, h))) {
            return Some(SupersedeBasis::Role { referent: who, role: "count".into() });
        }
    }
    None
}

/// The kinds `o` states a number of: the unit of a count it has and what it has (`two
/// sewing machines`: `sewing`, `machine`), a thing said to be the one (`the one credit card`).
fn counted(o: &Frame) -> Vec<String> {
    let numbered = |p: &Phrase| p.modifiers.iter().any(|m| m == "one" || m == "only");
    let mut out: Vec<String> = o.mentions.iter().filter(|p| numbered(p)).map(|p| p.head.clone()).collect();
    // A count had (`have two`, `keep three`), not an amount paid or spent on a thing.
    let had = ["have", "own", "keep", "get"].contains(&o.verb.as_str());
    if let (Complement::Amount { unit, .. }, true) = (&o.complement, had) {
        out.extend(unit.first().cloned());
        out.extend(o.mentions.iter().map(|p| p.head.clone()));
    }
    out.retain(|h| !h.is_empty());
    out
}

/// Whether two head nouns name one kind (`brother` and `half-brother`, `grandchild`).
fn same_kind(a: &str, b: &str) -> bool {
    !a.is_empty() && (a == b || a.rsplit('-').next() == Some(b) || b.rsplit('-').next() == Some(a))
}

/// `We renamed our cat Mochi` of `Our cat is called Pixel`: a new name of the referent the
/// older fact names.
fn renamed(o: &Frame, n: &Frame) -> Option<SupersedeBasis> {
    if n.verb != "rename" || !matches!(o.complement, Complement::Naming(_)) {
        return None;
    }
    let object = n.mentions.first()?;
    let unnamed = Phrase { name: Vec::new(), ..object.clone() };
    unnamed.same(&o.subject).then(|| SupersedeBasis::Role { referent: o.subject.describe(), role: "name".into() })
}

/// Descriptions of one thing told with one more word (`our mortgage` / `our mortgage
/// payment`), for an amount in one unit.
fn related(a: &Phrase, b: &Phrase) -> bool {
    let owner = |p: &Phrase| {
        p.possessor.iter().map(|w| if w == "our" { "my".to_string() } else { w.clone() }).collect::<Vec<_>>()
    };
    a.is_known()
        && b.is_known()
        && owner(a) == owner(b)
        && !a.head.is_empty()
        && (b.modifiers.contains(&a.head) || a.modifiers.contains(&b.head))
}

/// The thing a clause's verb acts on: its direct object (`sold the Canon`), or the object
/// of a phrasal verb's preposition (`split up with his girlfriend`); never a place or a
/// time (`moved to Porto`, `married in June`).
fn object(n: &Frame) -> Option<&Phrase> {
    let direct = matches!(n.complement, Complement::Thing(_) | Complement::Name(_));
    let phrasal = n.particle.is_some() && matches!(n.complement, Complement::Place(_));
    n.mentions.first().filter(|_| direct || phrasal)
}

/// `Err` when two facts each introduce a new one of one kind and describe it in words the
/// other lacks (`a photo of a bench …` / `a photo of a circle of shoes …`, `a book called
/// Dune` / `a book called Emma`): an indefinite brings in a new thing, so these are two
/// photos or two books, and one fact of both would say there was one. A description that
/// only adds to the other's (`a dog` / `a dog named Rex`) may be one thing told twice.
pub(super) fn two_of_a_kind(a: (&str, &[Frame]), b: (&str, &[Frame])) -> Result<(), String> {
    let (Some((pa, da)), Some((pb, db))) = (introduced(a.1), introduced(b.1)) else {
        return Ok(());
    };
    if kind(&pa.head) != kind(&pb.head) || da.is_subset(&db) || db.is_subset(&da) {
        return Ok(());
    }
    Err(format!(
        "{} and {} each introduce a new {} (indefinite \"{}\" / \"{}\"), described apart: two of a kind, not one fact",
        a.0, b.0, pa.head, pa.text, pb.text
    ))
}

/// The kind a head noun names, where several words name one: a picture is a `photo`,
/// `photograph`, `pic`, `snapshot`, `image` — or, as image captioners write it, `a
/// photography of`.
fn kind(head: &str) -> &str {
    const PICTURE: &[&str] =
        &["photo", "photograph", "photography", "picture", "pic", "snapshot", "snap", "image", "selfie"];
    if PICTURE.contains(&head) {
        "picture"
    } else {
        head
    }
}

/// The thing a fact's first clause introduces (its first phrase after the verb, when
/// indefinite) and the words that describe it: its own marks and the heads of the phrases
/// after it (`of a bench in a locker`).
fn introduced(frames: &[Frame]) -> Option<(&Phrase, BTreeSet<String>)> {
    let f = frames.first()?;
    let p = f.mentions.first().filter(|p| p.det == Det::Indefinite && !p.head.is_empty())?;
    let after = f.mentions[1..].iter().filter(|m| !m.head.is_empty()).map(|m| m.head.clone());
    Some((p, p.marks().into_iter().cloned().chain(after).collect()))
}

/// Whether `text` opens on a gerund that is its subject: `Starting a business takes courage`
/// (a finite verb follows it), not `Starting a new job today!` (the speaker's, said short).
fn gerund_subject(text: &str) -> bool {
    use crate::text::verbs::{forms, Form};
    let clause = text.split([',', ';', '-', '–', '—', '.', '!', '?']).next().unwrap_or("");
    let ws: Vec<String> = clause.split_whitespace().map(|w| w.to_lowercase().replace('’', "'")).collect();
    let opens = ws.first().is_some_and(|w| w.ends_with("ing") && forms(w).is_some_and(|f| f.is(Form::Gerund)));
    opens
        && ws.iter().skip(2).any(|w| {
            matches!(w.as_str(), "is" | "was" | "can" | "will" | "has" | "isn't" | "wasn't" | "makes" | "takes")
                || w.ends_with('s') && forms(w).is_some_and(|f| f.is(Form::Third))
        })
}

/// Heads that name no particular thing (`a lot`, `a way`, `the time`) or only a picture of one.
const VAGUE: &[&str] = &["lot", "bit", "way", "thing", "stuff", "time", "photo", "pic", "picture"];

/// Heads that, said with `the`, name what everyone shares (`the world`, `the future`): two
/// statements naming it are not about one thing of the speaker's.
const EVERYONES: &[&str] =
    &["world", "universe", "internet", "sun", "moon", "sky", "earth", "future", "past", "weather", "news"];

/// Whether two facts (`a`, `b`: each id, frames and the day it was said) are about one thing
/// that is more than the speaker, so a merge of them stays one fact: the same subject (`The
/// support group has made me …` / `The support group has given me …`), or a thing one names
/// that the other names again (`I joined a pottery class` / `The pottery class meets on
/// Fridays`). Two events on different days stay two facts.
pub(super) fn one_thing(a: (&str, &[Frame], i64), b: (&str, &[Frame], i64)) -> Result<(), String> {
    let (Some(fa), Some(fb)) = (a.1.first(), b.1.first()) else {
        let id = if a.1.is_empty() { a.0 } else { b.0 };
        return Err(format!("{id} has no clause with a subject and a verb: what it is about cannot be told"));
    };
    if fa.subject.same(&fb.subject) && fa.subject.det != Det::Speaker {
        return Ok(());
    }
    let day = |t: i64| t.div_euclid(86_400);
    if fa.tense == Tense::Past && fb.tense == Tense::Past && day(a.2) != day(b.2) {
        return Err(format!(
            "{} and {} tell of two events said on different days (\"{}\" / \"{}\"): two facts, not one",
            a.0, b.0, fa.text, fb.text
        ));
    }
    let named = |f: &Frame| -> Vec<Phrase> {
        std::iter::once(&f.subject)
            .chain(&f.mentions)
            .filter(|p| {
                !matches!(p.det, Det::Speaker | Det::Pronoun | Det::Bare) && !p.head.is_empty() || p.det == Det::Name
            })
            .filter(|p| {
                !(VAGUE.contains(&p.head.as_str()) || p.det == Det::Definite && EVERYONES.contains(&p.head.as_str()))
            })
            .cloned()
            .collect()
    };
    // `Starting a business takes courage`: a gerund subject says what holds of anyone's; its
    // `a business` is no particular business another fact could name again.
    let particular = |f: &Frame, names: Vec<Phrase>| -> Vec<Phrase> {
        if gerund_subject(&f.text) {
            names.into_iter().filter(|p| p.det != Det::Indefinite).collect()
        } else {
            names
        }
    };
    let (na, nb) = (particular(fa, named(fa)), particular(fb, named(fb)));
    // A thing one statement introduces (`a pottery class`, `two cats`, `Ana`) that the other
    // names again (`the pottery class`) — the later one, when they were said apart: `a trip I
    // took` said after `my trip` is another trip. A description already definite is named
    // again only as itself (`same`): `my days` is not `somebody's day`. A name takes up a
    // thing by its name or head, not by a word describing it (`Harry Potter` is not `a harry
    // potter cover`), and one thing is not several (`my fashion pieces`, `a new piece`).
    let introduces = |p: &Phrase| matches!(p.det, Det::Indefinite | Det::Count | Det::Name);
    let by_name = |later: &Phrase, earlier: &Phrase| {
        later.det != Det::Name || later.name.iter().any(|n| earlier.name.contains(n) || earlier.head == *n)
    };
    let again = |later: &Phrase, earlier: &Phrase| {
        introduces(earlier)
            && later.takes_up(earlier)
            && by_name(later, earlier)
            && (later.plural == earlier.plural || earlier.det == Det::Count)
    };
    let (a_first, b_first) = (a.2 <= b.2, b.2 <= a.2);
    let shared =
        na.iter().find(|x| nb.iter().any(|y| y.same(x) || (a_first && again(y, x)) || (b_first && again(x, y))));
    if shared.is_some() {
        return Ok(());
    }
    let about =
        |f: &Frame| if f.subject.det == Det::Speaker { "the speaker".to_string() } else { f.subject.text.clone() };
    Err(format!(
        "{} and {} are not about one thing: {} is about {}, {} about {}, and neither names a thing the other names again",
        a.0,
        b.0,
        a.0,
        about(fa),
        b.0,
        about(fb)
    ))
}
