//! Single-valued slots: predicates that hold one value at a time for one holder (where
//! one lives, one's job, a name, an age, a favourite …). A newer fact replaces an older
//! one only when both fill the same slot for the same holder — `I keep a cat` does not
//! replace `I keep a bearded dragon`, but `I live in Porto` replaces `I live in Lisbon`.
//! The list itself lives in the retention policy, so a user can add their own; these are
//! its defaults.
//!
//! ```
//! use nocturne_core::text::slots::{shared_slot, slot_fill};
//! let slots = ["live in".to_string(), "called".to_string()];
//! assert_eq!(shared_slot("I live in Lisbon.", "I live in Porto.", &slots), Some("live in"));
//! assert_eq!(shared_slot("My brother lives in Ghent.", "My sister lives in Ghent.", &slots), None);
//! assert_eq!(slot_fill("My dog is called Rex.", "called").unwrap().holder, ["dog"]);
//! ```

use super::polarity::{is_cue_token, is_negated};
use super::textmath::{is_stopword, tokens};

/// The default single-valued slots, as phrases (matched on normalized, stemmed tokens, so
/// `lives in` fills `live in`).
pub const DEFAULT_SLOTS: &[&str] = &[
    "live in",
    "live at",
    "based in",
    "work as",
    "work at",
    "work for",
    "job is",
    "called",
    "named",
    "name is",
    "years old",
    "age is",
    "favourite",
    "favorite",
    "phone number",
    "address is",
    "email is",
    "manager is",
    "boss is",
    "partner is",
    "married to",
    "birthday is",
];

/// How a text fills one slot: who holds it (the content tokens before the slot phrase,
/// numbers aside; empty means the user, since `I`, `my` and `user` are stopwords) and the
/// value (the content tokens after it, and any number before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotFill {
    pub holder: Vec<String>,
    pub value: Vec<String>,
}

/// Where `text` fills `slot`, if it does: the first occurrence of the slot's tokens.
pub fn slot_fill(text: &str, slot: &str) -> Option<SlotFill> {
    fill_in(&tokens(text), &tokens(slot))
}

/// Every slot of `slots` that `text` fills, as `(index in slots, fill)`, tokenizing the
/// text once: what the engine indexes facts by (slot and holder).
pub fn fills(text: &str, slots: &[String]) -> Vec<(usize, SlotFill)> {
    let words = tokens(text);
    slots.iter().enumerate().filter_map(|(n, slot)| fill_in(&words, &tokens(slot)).map(|f| (n, f))).collect()
}

fn fill_in(words: &[String], phrase: &[String]) -> Option<SlotFill> {
    if phrase.is_empty() || phrase.len() > words.len() {
        return None;
    }
    let at = (0..=words.len() - phrase.len()).find(|&i| words[i..i + phrase.len()] == *phrase)?;
    let content =
        |ts: &[String]| ts.iter().filter(|t| !is_stopword(t) && !is_cue_token(t)).cloned().collect::<Vec<_>>();
    // A number is a value, never a holder (`I am 34 years old`).
    let mut holder = content(&words[..at]);
    let numbers: Vec<String> = holder.iter().filter(|t| t.chars().all(|c| c.is_ascii_digit())).cloned().collect();
    holder.retain(|t| !numbers.contains(t));
    let mut value = numbers;
    value.extend(content(&words[at + phrase.len()..]));
    Some(SlotFill { holder, value })
}

/// The first slot of `slots` that both texts fill for the same holder. Only affirmative
/// facts fill a slot: `I no longer live in Lisbon` and `I live in Porto` can both hold.
pub fn shared_slot<'s>(a: &str, b: &str, slots: &'s [String]) -> Option<&'s str> {
    if is_negated(a) || is_negated(b) {
        return None;
    }
    first_both(a, b, slots, |x, y| x.holder == y.holder).map(|(slot, _, _)| slot)
}

/// The first slot both texts fill, but for different holders: `(slot, holder a, holder b)`.
pub fn slot_with_other_holders<'s>(a: &str, b: &str, slots: &'s [String]) -> Option<(&'s str, String, String)> {
    first_both(a, b, slots, |x, y| x.holder != y.holder)
        .map(|(slot, x, y)| (slot, holder_name(&x.holder), holder_name(&y.holder)))
}

/// The first slot (in `slots` order) both texts fill where `test` holds of the two fills.
fn first_both<'s>(
    a: &str,
    b: &str,
    slots: &'s [String],
    test: impl Fn(&SlotFill, &SlotFill) -> bool,
) -> Option<(&'s str, SlotFill, SlotFill)> {
    let theirs = fills(b, slots);
    fills(a, slots).into_iter().find_map(|(n, x)| {
        let (_, y) = theirs.iter().find(|(m, y)| *m == n && test(&x, y))?;
        Some((slots[n].as_str(), x, y.clone()))
    })
}

/// Who holds a slot, in words: `the user` when no one else is named.
pub fn holder_name(holder: &[String]) -> String {
    if holder.is_empty() {
        "the user".into()
    } else {
        holder.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        DEFAULT_SLOTS.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn one_value_slots_are_shared_by_the_same_holder() {
        let slots = defaults();
        for (a, b, slot) in [
            ("I live in Lisbon.", "I live in Porto.", "live in"),
            ("The user lives in Lisbon.", "I live in Porto.", "live in"),
            ("I work as a nurse.", "I work as a teacher.", "work as"),
            ("My dog is called Rex.", "My dog is called Bolt.", "called"),
            ("I am 34 years old.", "I am 35 years old.", "years old"),
            ("My favourite colour is green.", "My favourite colour is blue.", "favourite"),
            ("My manager is Ana.", "My manager is Rui.", "manager is"),
        ] {
            assert_eq!(shared_slot(a, b, &slots), Some(slot), "{a} / {b}");
        }
    }

    #[test]
    fn many_value_predicates_and_other_holders_share_no_slot() {
        let slots = defaults();
        for (a, b) in [
            ("I keep a bearded dragon.", "I keep a cat."),
            ("I speak Portuguese.", "I speak English."),
            ("I play tennis on Mondays.", "I play chess on Mondays."),
            ("My sister lives in Ghent.", "My brother lives in Ghent."),
            ("My dog is called Rex.", "My cat is called Miso."),
        ] {
            assert_eq!(shared_slot(a, b, &slots), None, "{a} / {b}");
        }
        assert_eq!(
            slot_with_other_holders("My sister lives in Ghent.", "My brother lives in Ghent.", &slots),
            Some(("live in", "sister".to_string(), "brother".to_string()))
        );
    }

    #[test]
    fn defaults_are_unique() {
        let mut d = DEFAULT_SLOTS.to_vec();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), DEFAULT_SLOTS.len());
    }
}
