//! Dates written out: a fact's relative date expressions (`yesterday`, `last week`, `on
//! Friday`) as the days they name, resolved by `text::when` against when the fact was
//! said — what a merged fact keeps when its sources were said on different days, so no
//! merge leaves a `yesterday` whose anchor it lost.

use super::when::{at, days_in_month, lean, tokens, Day, Resolution, When, DAY_SECS, SHORT_MONTHS};

/// `text` with each date expression whose day hangs on when it was said (`yesterday`,
/// `last week`, `on Friday`, `in June`) written as the day it names, said at `said_at`
/// (`on 29 Nov 2026`, `in the week of 16 Nov 2026`, `in Nov 2026`): what a fact keeps when
/// it leaves the day it was said (a merge of facts said on different days). Expressions
/// with a year, and those that could mean two days, stay as written.
///
/// ```
/// use nocturne_core::text::dated::absolute;
/// use nocturne_core::text::when::Day;
/// let said = Day::from_ymd(2026, 11, 30).unwrap().start() + 12 * 3600;
/// assert_eq!(absolute("Yesterday I went to a bar called Zuni.", said), "On 29 Nov 2026 I went to a bar called Zuni.");
/// assert_eq!(absolute("I saw her last week.", said), "I saw her in the week of 23 Nov 2026.");
/// assert_eq!(absolute("I moved here in 2019.", said), "I moved here in 2019.");
/// ```
pub fn absolute(text: &str, said_at: i64) -> String {
    rewrite(text, said_at).0
}

/// The date expressions of `text` whose day hangs on when it was said, as written
/// (lower case) with the day each names said at `said_at`.
///
/// ```
/// use nocturne_core::text::dated::relative;
/// use nocturne_core::text::when::Day;
/// let said = Day::from_ymd(2026, 11, 30).unwrap().start();
/// let found = relative("Last week I went to a restaurant called Nopa.", said);
/// assert_eq!(found[0].0, "last week");
/// assert!(relative("I moved here in 2019.", said).is_empty());
/// ```
pub fn relative(text: &str, said_at: i64) -> Vec<(String, When)> {
    rewrite(text, said_at).1
}

/// [`absolute`] and [`relative`] in one reading.
fn rewrite(text: &str, said_at: i64) -> (String, Vec<(String, When)>) {
    let mut found = Vec::new();
    let words = tokens(text);
    let spans = token_spans(text);
    if words.len() != spans.len() {
        return (text.to_string(), found);
    }
    let (today, lean) = (Day::from_unix(said_at), lean(&words));
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while i < words.len() {
        let Some(Resolution::Resolved { when, expression }) = at(&words, i, today, lean) else {
            i += 1;
            continue;
        };
        let n = expression.split(' ').count().max(1);
        let dated = expression.split(' ').any(|w| w.len() == 4 && w.parse::<i64>().is_ok_and(|y| y > 1900));
        if !dated {
            found.push((expression.clone(), when));
            let after_preposition = i > 0
                && ["on", "by", "until", "till", "since", "from", "in", "before", "after"]
                    .contains(&words[i - 1].as_str());
            let (start, end) = (spans[i].0, spans[i + n - 1].1);
            let mut written = written_when(when, !after_preposition);
            if start == 0 {
                let mut chars = written.chars();
                written = chars.next().map_or(String::new(), |c| c.to_uppercase().chain(chars).collect());
            }
            out.push_str(&text[copied..start]);
            out.push_str(&written);
            copied = end;
        }
        i += n;
    }
    out.push_str(&text[copied..]);
    (out, found)
}

/// A resolved date as a person writes it, without a preposition (`29 Nov 2026`, `the week
/// of 23 Nov 2026`).
pub fn written(when: When) -> String {
    written_when(when, false)
}

/// A resolved date as words: `on 29 Nov 2026`, `in the week of 23 Nov 2026`, `in Nov 2026`,
/// `in 2026`, `between … and …` (`lead`: with its preposition).
fn written_when(when: When, lead: bool) -> String {
    let (words, preposition) = match when {
        When::Day(d) => (d.written(), "on"),
        When::Range { from, to } => {
            let (fy, fm, fd) = from.ymd();
            let (ty, tm, td) = to.ymd();
            let span = to.start() - from.start();
            if fd == 1 && (fm, tm, td) == (1, 12, 31) && fy == ty {
                (fy.to_string(), "in")
            } else if fd == 1 && fm == tm && fy == ty && td == days_in_month(ty, tm) {
                (format!("{} {fy}", SHORT_MONTHS[(fm - 1) as usize]), "in")
            } else if span == 6 * DAY_SECS && from.weekday() == 0 {
                (format!("the week of {}", from.written()), "in")
            } else if span == DAY_SECS && from.weekday() == 5 {
                (format!("the weekend of {}", from.written()), "on")
            } else {
                (format!("{} and {}", from.written(), to.written()), "between")
            }
        }
    };
    if lead || preposition == "between" {
        format!("{preposition} {words}")
    } else {
        words
    }
}

/// Where each of [`tokens`]' words is in `text`, as byte ranges.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let part = |c: char| c.is_alphanumeric() || c == '-' || c == '/' || c == '\'' || c == '’';
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (part(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = &text[s..i];
                let trimmed = word.trim_matches('-');
                if trimmed.chars().any(|c| c.is_alphanumeric()) {
                    let lead = word.len() - word.trim_start_matches('-').len();
                    out.push((s + lead, s + lead + trimmed.len()));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}
