//! The words that say how a clause stands in time and what it tells, for
//! `text::frame`: a change (`now`, `these days`, `since`, `back`, `no longer`), an addition
//! (`also`, `too`, `as well`, `a second`), a while (`this week`, `at the moment`, `until
//! June`), an occasion (`on Saturdays`); the verbs that end a thing (`sold`, `retired`,
//! `moved`); and the roles a person holds one of at a time however they are told — whom
//! one is with, one's shifts, one's diet.
//!
//! ```
//! use nocturne_core::text::{cues, referent::words};
//! let c = cues::read(&words("I'm on nights at the moment."));
//! assert_eq!(c.bounded.as_deref(), Some("at the moment"));
//! assert_eq!(cues::read(&words("I support Arsenal these days.")).change, ["these days"]);
//! assert_eq!(cues::ending("give", Some("up"), false).as_deref(), Some("give up"));
//! ```

use super::referent::{self, Word, AUXILIARIES};
use super::verbs;

/// Periods an amount or a while is counted in (`a month`, `for a week`).
pub const PERIODS: &[&str] = &["day", "week", "month", "year", "night", "hour", "session", "term", "fortnight"];

/// Words that tell when, never what (`week`, `monday`, `last`, `summer`).
#[rustfmt::skip]
pub const TIME_WORDS: &[&str] = &[
    "today", "tonight", "yesterday", "tomorrow", "last", "next", "ago", "week", "weekend", "month", "year", "morning",
    "evening", "night", "afternoon", "moment", "day", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "spring", "summer", "autumn", "fall", "winter", "christmas", "easter",
    "lately", "recently", "currently", "nowaday", "term", "time", "while", "most", "everi", "every",
];

/// The days of the week (`on Saturdays` is an occasion; `on nights` a shift).
const WEEKDAYS: &[&str] = &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// Whether a token tells when (`week`, `monday`, `2019`).
pub fn time_word(token: &str) -> bool {
    TIME_WORDS.contains(&token) || token.chars().all(|c| c.is_ascii_digit()) && token.len() == 4
}

/// Whether a token is a cue's own word (`now`, `anymore`, `also`), not what is said.
pub fn cue_word(token: &str) -> bool {
    ["now", "anymore", "longer", "instead", "since", "these", "back", "also", "too", "well", "again", "day"]
        .contains(&token)
}

/// Verbs whose clause says a thing stopped being as it was, by lemma (`sell`, `break`,
/// `retire`, `move`), with the particle some need (`give up`, `pass away`, `split up`).
#[rustfmt::skip]
pub const ENDING: &[&str] = &[
    "sell", "trade", "swap", "lose", "break", "steal", "die", "escape", "leave", "quit", "retire", "finish", "end",
    "close", "divorce", "graduate", "move", "rename", "replace", "switch", "change", "stop", "cancel", "crash",
    "relocate", "sack", "fire", "dump", "marry", "qualify", "turn", "double", "halve", "drop", "rise", "raise",
    "write off", "give up", "give away", "pass away", "split up", "break up", "put down", "come back", "go up",
    "go down", "shoot up", "give", "hit", "separate", "emigrate",
];

/// Phrasal verbs that name no ending although their verb alone would (`ended up winning`:
/// came to win; `it turned out fine`; `a fire broke out`).
const NOT_ENDING: &[&str] = &["end up", "turn out", "turn up", "break out", "hit up"];

/// The ending verb of a clause with `verb` and `particle` (`sold`, `gave up`), or `come
/// home` when it goes `home`.
pub fn ending(verb: &str, particle: Option<&str>, home: bool) -> Option<String> {
    if matches!(verb, "come" | "go" | "get") && home {
        return Some(format!("{verb} home"));
    }
    let with = particle.map(|p| format!("{verb} {p}"));
    if with.as_deref().is_some_and(|v| NOT_ENDING.contains(&v)) {
        return None;
    }
    with.filter(|v| ENDING.contains(&v.as_str())).or_else(|| ENDING.contains(&verb).then(|| verb.to_string()))
}

/// Whether `back` after the word `before` (followed by `next`) says a return, a change of
/// where or how one is (`moved back to Porto`, `went back`, `cut back on sugar`), not a
/// phrasal verb's particle that says none (`give back`, `call back`, `look back`).
fn returned(before: &str, next: &str) -> bool {
    let Some(verb) = verbs::forms(before) else { return false };
    matches!(verb.lemma, "go" | "come" | "move" | "get" | "head" | "fly" | "switch" | "change" | "return")
        || matches!(next, "to" | "at" | "in" | "into" | "home" | "on" | "from" | "with")
}

/// A role a person holds one of at a time, told in many words: whom one is with
/// (`single`, `married`, `has a girlfriend`), one's shifts (`works nights`, `on day shifts`),
/// one's diet (`vegetarian`, `eats dry food`). `None` when the clause tells of none of these.
/// Read from the clause's `value` tokens, its `verb` and the `heads` of what it names.
pub fn status(value: &[String], verb: &str, heads: &[&str]) -> Option<&'static str> {
    let said: Vec<&str> = value.iter().map(String::as_str).chain(std::iter::once(verb)).collect();
    let any = |words: &[&str]| said.iter().any(|w| words.contains(w));
    let partner = ["girlfriend", "boyfriend", "partner", "wife", "husband", "fiancé", "fiancée", "fiance", "fiancee"];
    if any(RELATIONSHIP) || (verb == "have" && heads.iter().any(|h| partner.contains(h))) {
        return Some("relationship status");
    }
    if any(&["shift", "night", "nightshift", "earlies", "lates"]) && matches!(verb, "work" | "be" | "do") {
        return Some("shift pattern");
    }
    if any(DIETS) || (matches!(verb, "eat" | "be") && any(&["meat", "fish", "food"])) {
        return Some("diet");
    }
    None
}

/// The words of a clause that say its [`status`] (`married`; `nights`): two clauses with
/// the same say the same of it, whatever else they add.
pub fn status_words(value: &[String], verb: &str, heads: &[&str]) -> Vec<String> {
    let lists = [RELATIONSHIP, DIETS, &["shift", "night", "day", "early", "late", "earlies", "lates"]];
    let verb = verb.to_string();
    let said = value.iter().chain(std::iter::once(&verb));
    let mut out: Vec<String> = said.filter(|w| lists.iter().any(|l| l.contains(&w.as_str()))).cloned().collect();
    out.extend(heads.iter().filter(|_| verb == "have").map(|h| h.to_string()));
    super::order::sort(&mut out);
    out.dedup();
    out
}

/// Whether a [`status`] holds one value at a time whatever is said: whom one is with and
/// one's shifts do; a diet may be told two ways at once (`vegetarian`, `on the keto diet`).
pub fn one_status(status: &str) -> bool {
    status != "diet"
}

/// Words of whom one is with.
#[rustfmt::skip]
const RELATIONSHIP: &[&str] = &[
    "single", "married", "marry", "engaged", "engage", "divorced", "divorce", "separated", "separate", "widowed",
    "widow", "relationship", "dating",
];
/// Words of what one eats.
const DIETS: &[&str] = &["vegan", "vegetarian", "veggie", "pescatarian", "keto", "paleo", "carnivore", "diet"];

/// How a clause stands in time, by its words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cues {
    /// Words that say it changed (`now`, `these days`, `since`, `back`, `no longer`).
    pub change: Vec<String>,
    /// A word that adds rather than replaces (`also`, `too`, `as well`, `a second`).
    pub additive: Option<String>,
    /// A while it is said to last (`this week`, `at the moment`, `until June`).
    pub bounded: Option<String>,
    /// The occasions it is said for (`saturday` of `on Saturdays`).
    pub occasion: Vec<String>,
}

/// The cues of a clause's words `w`: a change, an addition, a while, an occasion.
pub fn read(w: &[Word]) -> Cues {
    let mut f = Cues::default();
    let lower: Vec<&str> = w.iter().map(|t| t.lower.as_str()).collect();
    for (k, t) in lower.iter().enumerate() {
        let next = lower.get(k + 1).copied().unwrap_or("");
        let before = if k > 0 { lower[k - 1] } else { "" };
        let change = match *t {
            "now"
                if !matches!(
                    before,
                    "right" | "just" | "for" | "by" | "until" | "till" | "from" | "ages" | "while"
                ) && !PERIODS.contains(&before.trim_end_matches('s')) =>
            {
                Some("now")
            }
            "days" if before == "these" => Some("these days"),
            "nowadays" | "anymore" | "instead" => Some(*t),
            "more" if before == "any" => Some("any more"),
            "longer" if before == "no" => Some("no longer"),
            "since" if k > 0 => Some("since"),
            "back" if k == 0 || w[k - 1].is(AUXILIARIES) || returned(before, next) => Some("back"),
            "new" if !matches!(next, "year" | "years") => None,
            _ => None,
        };
        f.change.extend(change.map(String::from));
        let additive = match *t {
            "also" | "another" | "either" | "extra" => Some(t.to_string()),
            "second" | "third" | "fourth" if matches!(before, "a" | "an") => Some(format!("a {t}")),
            "too" if w.get(k + 1).is_none_or(|n| n.mark || n.is(&["lol", "now", "though"])) => Some(t.to_string()),
            "well" if before == "as" && !matches!(next, "as") => Some("as well".to_string()),
            _ => None,
        };
        f.additive = f.additive.take().or(additive);
        let bounded = match *t {
            "this" | "these"
                if matches!(
                    next,
                    "week"
                        | "weekend"
                        | "month"
                        | "year"
                        | "term"
                        | "summer"
                        | "winter"
                        | "spring"
                        | "autumn"
                        | "semester"
                ) =>
            {
                Some(format!("{t} {next}"))
            }
            "moment" if before == "the" => Some("at the moment".to_string()),
            "until" | "till" => Some(format!("{t} {next}")),
            "for" if next == "now" => Some("for now".to_string()),
            "for"
                if matches!(next, "a" | "the")
                    && lower.get(k + 2).is_some_and(|n| PERIODS.contains(n) || *n == "while") =>
            {
                Some(format!("for {next} {}", lower[k + 2]))
            }
            _ => None,
        };
        f.bounded = f.bounded.take().or(bounded);
        // `on Saturdays`, `on weekends`, `during the week`, `every morning`, `most nights`.
        if matches!(*t, "on" | "during" | "every" | "most" | "at") {
            let when = if next == "the" { lower.get(k + 2).copied().unwrap_or("") } else { next };
            let token = referent::words(when).first().map(Word::token).unwrap_or_default();
            let day = WEEKDAYS.contains(&token.as_str()) || token == "weekend";
            let named = matches!(*t, "on" | "at") && day && when.ends_with('s');
            if TIME_WORDS.contains(&token.as_str()) && (named || matches!(*t, "during" | "every" | "most")) {
                f.occasion.push(token);
            }
        }
    }
    f
}
