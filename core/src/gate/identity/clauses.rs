//! How the clauses of two facts are lined up before the referent rule compares them: a
//! later clause's pronoun read as the subject it points back at, a name said to be one's
//! favourite read as the favourite's value, one of the speaker's
//! things told of the speaker, a while a later event ends, and what a clause of feeling or
//! thinking holds (`I feel like I could write a movie`).

use super::{object, relation, Refusal};
use crate::model::memory::SupersedeBasis;
use crate::text::frame::{self, Complement, Frame};
use crate::text::referent::{Det, Phrase};

/// The clauses of one fact with a later clause's `he`, `she`, `it` or `they` read as the
/// earlier clause's subject it points back at (`My mum was discharged yesterday and she's
/// home now`): one the same number, a name or a description, the only one before it.
pub(super) fn resolved(frames: &[Frame]) -> Vec<Frame> {
    let mut out: Vec<Frame> = frames.to_vec();
    for k in 1..out.len() {
        let p = &out[k].subject;
        if p.det != Det::Pronoun || !["he", "she", "it", "they"].contains(&p.text.to_lowercase().as_str()) {
            continue;
        }
        let plural = p.plural;
        let before: Vec<&Phrase> = out[..k]
            .iter()
            .map(|f| &f.subject)
            .filter(|s| matches!(s.det, Det::Name | Det::Possessive | Det::Definite) && s.plural == plural)
            .collect();
        if let [only] = before.as_slice() {
            out[k].subject = (*only).clone();
        }
    }
    out.into_iter().map(inverted).collect()
}

/// `Radiohead are my favourite band` told the way round it means: `my favourite band` is
/// Radiohead. A name said to be the one description that picks one of a kind (`favourite`,
/// `best`, `only`, `go-to`) is that description's value, as in `My favourite band is IDLES`.
fn inverted(f: Frame) -> Frame {
    const ONE_OF: &[&str] = &["favourite", "favorite", "fave", "best", "only", "go-to", "main", "usual"];
    let picks = |p: &Phrase| {
        matches!(p.det, Det::Possessive | Det::Definite) && p.modifiers.iter().any(|m| ONE_OF.contains(&m.as_str()))
    };
    if !(f.copula && f.verb == "be" && f.subject.det == Det::Name && !f.negated) {
        return f;
    }
    let Some(described) = f.mentions.first().filter(|p| picks(p)).cloned() else { return f };
    let name = f.subject.name.clone();
    Frame {
        subject: described,
        complement: Complement::Name(name.clone()),
        mentions: vec![f.subject.clone()],
        value: name,
        ..f
    }
}

/// The two clauses told of one of the speaker's things where one tells it of the speaker
/// (`I pay £45 a month for my phone contract` / `My phone contract is down to £22`,
/// `my daily step goal is 8000` / `bumped my daily step goal to 10k`): that clause with the
/// thing as its subject; the same of a thing `they` did something to (`The road … is closed
/// this week` / `They reopened the road …`). `None` when neither clause names the other's thing.
pub(super) fn bridged(o: &Frame, n: &Frame) -> Option<(Frame, Frame)> {
    let owned = |p: &Phrase| p.det == Det::Possessive && p.possessor.first().is_some_and(|w| w == "my" || w == "our");
    let with_subject = |f: &Frame, thing: &Phrase| {
        let m = f.mentions.iter().find(|m| m.same(thing))?;
        Some(Frame { subject: m.clone(), ..f.clone() })
    };
    if o.subject.det == Det::Speaker && owned(&n.subject) {
        return Some((with_subject(o, &n.subject)?, n.clone()));
    }
    if n.subject.det == Det::Speaker && owned(&o.subject) {
        return Some((o.clone(), with_subject(n, &o.subject)?));
    }
    // `They reopened the road outside our house`: no one in particular did it to the thing.
    let anyone = n.subject.det == Det::Pronoun && n.subject.text.eq_ignore_ascii_case("they");
    if anyone && matches!(o.subject.det, Det::Definite | Det::Possessive | Det::Name) {
        n.mentions.iter().find(|m| m.same(&o.subject) || m.takes_up(&o.subject))?;
        return Some((o.clone(), Frame { subject: o.subject.clone(), ..n.clone() }));
    }
    None
}

/// Whether `n`, an event, ends the state `o` said for a while: a return (`flew home`,
/// `came back`, `was discharged`, `reopened`, `recovered`) or the end of what `o` names
/// (`finished the antibiotics`).
pub(super) fn ends_a_while(o: &Frame, n: &Frame) -> bool {
    if !n.event {
        return false;
    }
    let home = n.value.iter().any(|v| v == "home") || n.change.iter().any(|c| c == "back");
    let returning = ["reopen", "discharge", "release", "recover", "return"].contains(&n.verb.as_str())
        || home && ["fly", "come", "go", "get", "head", "drive", "move", "be"].contains(&n.verb.as_str());
    let ended = ["finish", "end", "complete", "stop", "leave"].contains(&n.verb.as_str())
        && object(n).is_some_and(|p| o.value.contains(&p.head));
    returning || ended
}

/// Two clauses of one verb of feeling or thinking compared by what is felt: by their clauses
/// when both say one (`I feel like I could write a movie` / `I feel like I can't stop writing
/// now`), about different things when only one does (`I feel like a different person now`);
/// `None` when neither does.
pub(super) fn felt(
    o: &Frame,
    n: &Frame,
    (o_id, n_id): (&str, &str),
    slots: &[String],
) -> Option<Result<SupersedeBasis, Refusal>> {
    if o.verb != n.verb {
        return None;
    }
    match (embedded(o), embedded(n)) {
        (Some(eo), Some(en)) => Some(relation(&eo, &en, (o_id, n_id), slots)),
        (Some(c), None) | (None, Some(c)) => Some(Err((0, format!(
            "{o_id} and {n_id} are not about the same thing: one says what {} feels or thinks of \"{}\", the other not; each can hold with the other",
            o.subject.describe(),
            c.text
        )))),
        (None, None) => None,
    }
}

/// What `f` says is felt, thought or said, as a clause of its own: `I always feel like I
/// could write a whole movie` → `I could write a whole movie`. Two such facts are about what
/// their clauses are about: a new feeling about another thing (`I feel like I can't stop
/// writing now`) changes nothing of the first. `None` when `f`'s verb takes no clause or
/// no clause with a subject and a verb follows it.
fn embedded(f: &Frame) -> Option<Frame> {
    const TAKES_A_CLAUSE: &[&str] = &["feel", "think", "believe", "reckon", "guess", "suppose", "say", "wish"];
    if !TAKES_A_CLAUSE.contains(&f.verb.as_str()) {
        return None;
    }
    let words: Vec<&str> = f.text.split_whitespace().collect();
    let verb = words.iter().position(|w| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        crate::text::verbs::forms(bare).is_some_and(|forms| forms.lemma == f.verb)
    })?;
    let mut from = verb + 1;
    while words.get(from).is_some_and(|w| matches!(w.to_lowercase().as_str(), "like" | "that" | "as" | "if")) {
        from += 1;
    }
    let clause = frame::frames(&words.get(from..)?.join(" ")).into_iter().next()?;
    (!clause.subject.text.is_empty() && !clause.verb.is_empty()).then_some(clause)
}
