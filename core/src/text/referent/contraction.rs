//! What a noun's `'s` is: the possessive (`my mum's birthday`) or `is` / `has` cut short
//! (`my mum's in hospital`, `my brother's got 6 points`), read from what follows it.

use super::{Word, DEFINITE, INDEFINITE, POSSESSIVE, PREPOSITIONS};
use crate::text::verbs::{self, Form};

/// `My mum's in hospital`, `Jun's over the flu`, `My mobile's 07700 900318`: a noun's `'s`
/// before what can only follow a verb (a number, a determiner, a preposition, a negation,
/// `been`/`got`, a gerund with its object) is `is` or `has`, cut off like a pronoun's;
/// before a noun it stays the possessive (`my mum's birthday`, `my brother's wedding is`).
pub(super) fn contract_is(words: Vec<Word>) -> Vec<Word> {
    let mut out = Vec::with_capacity(words.len());
    for (k, t) in words.iter().enumerate() {
        let stem = (!t.mark).then(|| t.lower.strip_suffix("'s")).flatten().filter(|s| !s.is_empty());
        if let (Some(stem), Some(next)) = (stem, words.get(k + 1)) {
            if subject_at(&words, k) && predicate_follows(next, words.get(k + 2)) {
                let cut = t.text.len() - (t.lower.len() - stem.len());
                out.push(Word::new(&t.text[..cut], false));
                out.push(Word::new("'s", false));
                continue;
            }
        }
        out.push(t.clone());
    }
    out
}

/// Whether the phrase ending at `k` can be a clause's subject: not the object of a
/// preposition (`I've heard about Harry Potter's a lot`, a plural mistyped).
fn subject_at(words: &[Word], k: usize) -> bool {
    let mut j = k;
    while j > 0 && words[j - 1].cap && !words[j - 1].mark {
        j -= 1;
    }
    if j > 0 && (words[j - 1].is(DEFINITE) || words[j - 1].is(POSSESSIVE)) {
        j -= 1;
    }
    !(j > 0 && words[j - 1].is(PREPOSITIONS))
}

/// Whether `next` (and the word after it) can only open what a verb says, not a noun a
/// possessive owns.
fn predicate_follows(next: &Word, after: Option<&Word>) -> bool {
    if next.mark {
        return next.lower == "£" || next.lower == "$" || next.lower == "€";
    }
    if next.lower.starts_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    #[rustfmt::skip]
    const VERBAL: &[&str] = &[
        "a", "an", "the", "not", "never", "been", "got", "gone", "still", "just", "always", "now", "back", "home",
        "out", "away", "up", "down", "really", "so", "very", "finally", "already", "definitely", "no", "off", "over",
    ];
    if next.is(VERBAL) || next.is(PREPOSITIONS) {
        return true;
    }
    // `Sam's building a shed` (a gerund and its object), not `Sam's building is old`.
    let gerund = verbs::forms(&next.lower).is_some_and(|f| f.is(Form::Gerund));
    let object = |a: &Word| {
        [PREPOSITIONS, INDEFINITE, DEFINITE, POSSESSIVE, &["me", "us", "him", "her", "them", "it"]]
            .iter()
            .any(|l| a.is(l))
    };
    gerund && after.is_some_and(object)
}
