//! The words of a sentence as [`super::read`] sees them — lowercase, contractions opened,
//! chat spellings read as their words, what double quotes hold set aside — and the word
//! classes its grammar tests them against (auxiliaries, modals, wh-words, subjects,
//! openers, verbs of feeling).

use crate::text::verbs::{self, Form};

/// A word, lowercase, with contractions opened (`what's` → `what` `'s`, `u` → `you`), and
/// the mark that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct W {
    pub(super) w: String,
    /// A `,`, `:` or `;` follows the word.
    pub(super) pause: bool,
}

/// Heads whose `'s`, `'re`, `'m`, `'ve`, `'ll`, `'d` is an auxiliary.
const HEADS: &[&str] = &[
    "i", "you", "he", "she", "we", "they", "it", "that", "there", "what", "who", "where", "when", "how", "why", "here",
    "let",
];

/// Chat spellings read as their words.
const SPELLINGS: &[(&str, &[&str])] = &[
    ("u", &["you"]),
    ("ur", &["your"]),
    ("abt", &["about"]),
    ("pls", &["please"]),
    ("plz", &["please"]),
    ("im", &["i", "'m"]),
    ("ive", &["i", "'ve"]),
    ("whats", &["what", "'s"]),
    ("whens", &["when", "'s"]),
    ("wheres", &["where", "'s"]),
    ("whos", &["who", "'s"]),
    ("hows", &["how", "'s"]),
    ("thats", &["that", "'s"]),
    ("youve", &["you", "'ve"]),
    ("youre", &["you", "'re"]),
    ("dont", &["don't"]),
    ("doesnt", &["doesn't"]),
    ("didnt", &["didn't"]),
    ("cant", &["can't"]),
    ("wont", &["won't"]),
    ("isnt", &["isn't"]),
    ("arent", &["aren't"]),
    ("wasnt", &["wasn't"]),
    ("havent", &["haven't"]),
    ("hasnt", &["hasn't"]),
    ("couldnt", &["couldn't"]),
    ("wouldnt", &["wouldn't"]),
    ("shouldnt", &["shouldn't"]),
    ("cannot", &["can't"]),
];

/// The words of `text` outside double quotes.
pub(super) fn words(text: &str) -> Vec<W> {
    let mut out: Vec<W> = Vec::new();
    let mut quoted = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<W>| {
        if !word.is_empty() {
            push(out, &word.to_lowercase().replace('’', "'"));
            word.clear();
        }
    };
    let chars: Vec<char> = text.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let inner = matches!(c, '\'' | '’' | '-' | '.')
            && !word.is_empty()
            && chars.get(k + 1).is_some_and(|n| n.is_alphanumeric() && (c != '.' || word.len() <= 2));
        if quoted {
            if matches!(c, '"' | '”') {
                quoted = false;
            }
        } else if c.is_alphanumeric() || inner || (c == ';' && word.eq_ignore_ascii_case("tl")) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            match c {
                '"' | '“' | '”' => quoted = true,
                ',' | ':' | ';' | '—' | '–' => {
                    if let Some(last) = out.last_mut() {
                        last.pause = true;
                    }
                }
                _ => {}
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

fn push(out: &mut Vec<W>, lower: &str) {
    let mut add = |w: &str| out.push(W { w: w.to_string(), pause: false });
    if let Some((_, parts)) = SPELLINGS.iter().find(|(s, _)| *s == lower) {
        parts.iter().for_each(|p| add(p));
        return;
    }
    if let Some((head, tail)) = lower.split_once('\'') {
        if HEADS.contains(&head) && matches!(tail, "s" | "re" | "m" | "ve" | "ll" | "d") {
            add(head);
            add(&format!("'{tail}"));
            return;
        }
    }
    add(lower);
}

// ---------------------------------------------------------------------------------------
// Word classes.

#[rustfmt::skip]
const AUX: &[&str] = &[
    "do", "does", "did", "is", "are", "am", "was", "were", "have", "has", "had", "can", "could", "would", "will",
    "should", "shall", "may", "might", "must", "'s", "'re", "'m", "'ve", "'ll", "'d",
];
#[rustfmt::skip]
pub(super) const NEGATED: &[&str] = &[
    "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't", "can't",
    "couldn't", "won't", "wouldn't", "shouldn't", "mustn't", "ain't",
];
pub(super) const MODALS: &[&str] = &["can", "could", "would", "will", "'d", "'ll", "might", "may", "should", "must"];
pub(super) const WH: &[&str] = &["what", "where", "when", "who", "whom", "whose", "which", "why", "how", "whereabouts"];
#[rustfmt::skip]
pub(super) const SUBJECTS: &[&str] = &[
    "i", "you", "we", "he", "she", "they", "it", "there", "this", "that", "these", "those", "my", "our", "your",
    "his", "her", "their", "the", "a", "an", "any", "anyone", "anything", "someone", "something", "everyone",
    "everything", "somebody", "anybody", "nobody", "mine",
];
/// Words that open a message without being its clause.
#[rustfmt::skip]
pub(super) const OPENERS: &[&str] = &[
    "ok", "okay", "also", "so", "and", "but", "oh", "well", "hmm", "um", "uh", "right", "alright", "btw", "anyway",
    "anyways", "lol", "ugh", "yes", "yeah", "yep", "please", "kindly", "just", "hey", "hi", "hello", "hiya", "yo",
    "quickly", "quick", "question", "sorry", "ah", "ooh", "haha", "now", "then", "honestly", "tbh", "hmmm", "hm",
    "wait", "actually", "no", "nope", "oops",
];
/// Adverbs between a modal and its verb (`could you please …`).
pub(super) const SOFTENERS: &[&str] =
    &["please", "possibly", "maybe", "kindly", "just", "also", "quickly", "perhaps", "still"];
/// Verbs of feeling, wanting and knowing: with no subject they are the speaker's (`Love
/// my new job.`, `Need to renew my passport.`), never an imperative.
#[rustfmt::skip]
pub(super) const STATE_VERBS: &[&str] = &[
    "be", "have", "love", "like", "hate", "hope", "miss", "need", "want", "think", "guess", "feel", "wish", "know",
    "bet", "reckon", "mean", "prefer", "enjoy", "seem", "sound", "look", "wonder", "care", "believe", "suppose",
    "imagine", "agree", "appreciate", "get", "wait", "adore", "fancy", "doubt", "dislike", "regret", "go", "come",
];
/// Words that name a summary (`tldr pls`).
pub(super) const SUMMARY_WORDS: &[&str] = &["tldr", "tl;dr", "gist", "summary", "recap", "eli5"];

pub(super) fn is(list: &[&str], w: &str) -> bool {
    list.contains(&w)
}

pub(super) fn aux(w: &str) -> bool {
    is(AUX, w) || is(NEGATED, w)
}

/// The lemma of `w` if it is a verb form (a gerund's too), else `w` itself.
pub(super) fn lemma(w: &str) -> &str {
    match verbs::forms(w) {
        Some(f) if !f.lemma.is_empty() => f.lemma,
        _ => w,
    }
}

/// `w` is a verb's base form (`tell`, `summarise`), by the verb table.
pub(super) fn base_verb(w: &str) -> bool {
    verbs::forms(w).is_some_and(|f| f.is(Form::Base))
}

/// A subject can start at `k`: a pronoun, a determiner, or a name.
pub(super) fn subject_at(ws: &[W], k: usize, caps: &[bool]) -> bool {
    let Some(w) = ws.get(k) else { return false };
    is(SUBJECTS, &w.w) || caps.get(k).copied().unwrap_or(false)
}

/// Which words were capitalised in `sentence` past its first, by position among
/// [`words`]' (a name can be a subject: `Does Ana …`).
pub(super) fn capitals(sentence: &str, n: usize) -> Vec<bool> {
    let mut out: Vec<bool> = unquoted(sentence)
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '\'' | '’' | '-')))
        .filter(|w| !w.is_empty())
        .enumerate()
        .map(|(k, w)| k > 0 && w != "I" && w.chars().next().is_some_and(char::is_uppercase))
        .collect();
    out.resize(n, false);
    out
}

/// `text` without what it quotes.
pub(super) fn unquoted(text: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' | '“' | '”' => quoted = !quoted && c != '”',
            _ if !quoted => out.push(c),
            _ => {}
        }
    }
    out
}
