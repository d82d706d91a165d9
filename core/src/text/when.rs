//! When a fact is about: the date expression in its text (`by Friday`, `yesterday`,
//! `next month`, `in June`, `on the 14th`, `2026-12-04`, `4 December`) resolved against the
//! moment it was said, by pure code — never by a model, so the gates keep checking the
//! user's own words. Days are UTC calendar days. An expression that could mean two dates
//! (`next Friday` said early in the week, `4/12`, `soon`) stays unresolved and says why.
//!
//! ```
//! use nocturne_core::text::when::{resolve, Day, Resolution};
//! // Wednesday 2026-12-02, noon.
//! let said = Day::from_ymd(2026, 12, 2).unwrap().start() + 12 * 3600;
//! let Resolution::Resolved { when, .. } = resolve("I will review her thesis by Friday.", said) else { panic!() };
//! assert_eq!(when.to_string(), "2026-12-04");
//! assert!(matches!(resolve("I will call her soon.", said), Resolution::Ambiguous { .. }));
//! ```

use std::fmt;

pub(super) const DAY_SECS: i64 = 86_400;

/// An ISO-8601 date or date-time (`2024-05-01`, `2024-05-01T14:30:00Z`,
/// `2024-05-01 14:30:00.123+02:00`) as Unix seconds; a bare date is its noon (UTC).
///
/// ```
/// use nocturne_core::text::when::parse_iso;
/// assert_eq!(parse_iso("1970-01-02T00:00:01Z"), Some(86_401));
/// assert_eq!(parse_iso("1970-01-01T02:00:00+02:00"), Some(0));
/// assert_eq!(parse_iso("2024-02-30"), None);
/// ```
pub fn parse_iso(text: &str) -> Option<i64> {
    let t = text.trim();
    let (date, time) = t.split_once(['T', 't', ' ']).map_or((t, None), |(d, r)| (d, Some(r)));
    let mut parts = date.splitn(3, '-');
    let mut num = || parts.next().and_then(|p| p.parse::<i64>().ok());
    let (y, m, d) = (num()?, num()?, num()?);
    let day = Day::from_ymd(y, u32::try_from(m).ok()?, u32::try_from(d).ok()?)?;
    let Some(time) = time else { return Some(day.start() + 12 * 3600) };
    // The offset: `Z`, `+hh:mm`, `+hhmm` or `-hh:mm` (none: UTC).
    let (clock, offset) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else if let Some(at) = time.rfind(['+', '-']) {
        let (c, o) = time.split_at(at);
        let sign = if o.starts_with('-') { -1 } else { 1 };
        let digits = &o[1..];
        let (oh, om) = digits.split_once(':').unwrap_or_else(|| digits.split_at(digits.len().min(2)));
        let om = if om.is_empty() { "0" } else { om };
        (c, sign * (oh.parse::<i64>().ok()? * 3600 + om.parse::<i64>().ok()? * 60))
    } else {
        (time, 0)
    };
    let mut hms = clock.split(':');
    let mut field = || -> Option<i64> {
        match hms.next() {
            None => Some(0),
            Some(p) => p.split(['.', ',']).next().unwrap_or("").parse::<i64>().ok(),
        }
    };
    let (h, mi, s) = (field()?, field()?, field()?);
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(day.start() + h * 3600 + mi * 60 + s - offset)
}

/// A UTC calendar day, as days since 1970-01-01.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Day(pub i64);

impl Day {
    /// The day holding Unix second `secs`.
    pub fn from_unix(secs: i64) -> Day {
        Day(secs.div_euclid(DAY_SECS))
    }

    /// The day of a civil date, if it exists (`2026-02-30` does not).
    pub fn from_ymd(y: i64, m: u32, d: u32) -> Option<Day> {
        if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
            return None;
        }
        // Howard Hinnant's days_from_civil.
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = m as i64;
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Some(Day(era * 146_097 + doe - 719_468))
    }

    /// (year, month, day).
    pub fn ymd(self) -> (i64, u32, u32) {
        let z = self.0 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let y = yoe + era * 400 + i64::from(m <= 2);
        (y, m, d)
    }

    /// 0 = Monday … 6 = Sunday.
    pub fn weekday(self) -> i64 {
        (self.0 + 3).rem_euclid(7)
    }

    /// Unix seconds at the day's start.
    pub fn start(self) -> i64 {
        self.0 * DAY_SECS
    }

    /// The day `days` later (earlier, if negative).
    pub fn plus_days(self, days: i64) -> Day {
        Day(self.0 + days)
    }

    fn plus(self, days: i64) -> Day {
        self.plus_days(days)
    }

    /// The same day of the month `months` later (or earlier), clamped to the month's end.
    fn plus_months(self, months: i64) -> Day {
        let (y, m, d) = self.ymd();
        let total = y * 12 + (m as i64 - 1) + months;
        let (ny, nm) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
        Day::from_ymd(ny, nm, d.min(days_in_month(ny, nm))).unwrap_or(self)
    }
}

/// Month names as a prompt writes them (each one token to a model).
pub(super) const SHORT_MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

impl Day {
    /// The month's name and the year, as words (`may`, `2023`): what a question about a
    /// time names.
    pub fn month_and_year(self) -> [String; 2] {
        let (y, m, _) = self.ymd();
        [MONTHS[(m - 1) as usize].to_string(), y.to_string()]
    }

    /// The day as a person writes it, `8 May 2023`: what a prompt shows (a month name is
    /// one token to a model, `05` two).
    pub fn written(self) -> String {
        let (y, m, d) = self.ymd();
        format!("{d} {} {y}", SHORT_MONTHS[(m - 1) as usize])
    }

    /// The day as a person writes it to someone who knows what day `today` is: `8 May`
    /// in today's year, `8 May 2023` in another — four digits, four tokens, less a line.
    ///
    /// ```
    /// use nocturne_core::text::when::Day;
    /// let day = |y, m, d| Day::from_ymd(y, m, d).expect("a real day");
    /// assert_eq!(day(2023, 5, 8).written_from(day(2023, 7, 23)), "8 May");
    /// assert_eq!(day(2022, 12, 30).written_from(day(2023, 7, 23)), "30 Dec 2022");
    /// ```
    pub fn written_from(self, today: Day) -> String {
        let (y, m, d) = self.ymd();
        if y == today.ymd().0 {
            format!("{d} {}", SHORT_MONTHS[(m - 1) as usize])
        } else {
            self.written()
        }
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

pub(super) fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// A resolved date: one day, or an inclusive range of days (`next week`, `in June`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    Day(Day),
    Range { from: Day, to: Day },
}

impl When {
    /// The first day.
    pub fn first(self) -> Day {
        match self {
            When::Day(d) | When::Range { from: d, .. } => d,
        }
    }

    /// The last day: when a commitment is due, when an event was over.
    pub fn last(self) -> Day {
        match self {
            When::Day(d) | When::Range { to: d, .. } => d,
        }
    }

    fn range(from: Day, to: Day) -> When {
        if from == to {
            When::Day(from)
        } else {
            When::Range { from, to }
        }
    }
}

impl fmt::Display for When {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            When::Day(d) => write!(f, "{d}"),
            When::Range { from, to } => write!(f, "{from}..{to}"),
        }
    }
}

/// What the resolver made of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The text holds no date expression.
    None,
    /// `expression` (as written, lower case) resolved to `when`.
    Resolved { when: When, expression: String },
    /// A date expression that could mean more than one date; `why` says so.
    Ambiguous { expression: String, why: String },
}

impl Resolution {
    /// The date expression found, resolved or not.
    pub fn expression(&self) -> Option<&str> {
        match self {
            Resolution::None => None,
            Resolution::Resolved { expression, .. } | Resolution::Ambiguous { expression, .. } => Some(expression),
        }
    }

    /// The resolved date, if any.
    pub fn when(&self) -> Option<When> {
        match self {
            Resolution::Resolved { when, .. } => Some(*when),
            Resolution::None | Resolution::Ambiguous { .. } => None,
        }
    }
}

const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
/// The months' names, lower case, January first.
pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
/// Words that say a sentence looks ahead: a bare weekday or month means the next one.
const FUTURE: &[&str] = &[
    "will", "would", "ll", "shall", "going", "by", "until", "till", "due", "plan", "planning", "must", "need", "have",
    "has", "promised", "promise", "deadline", "next", "tomorrow", "coming",
];
/// Words that say a sentence looks back: a bare weekday or month means the last one.
const PAST: &[&str] = &[
    "was",
    "were",
    "went",
    "did",
    "had",
    "met",
    "saw",
    "visited",
    "got",
    "came",
    "left",
    "bought",
    "took",
    "made",
    "ran",
    "ate",
    "moved",
    "finished",
    "started",
    "broke",
    "lost",
    "found",
    "spent",
    "yesterday",
    "ago",
    "last",
];
/// Expressions that name no date a user could check.
const VAGUE: &[&str] = &["soon", "later", "someday", "recently", "eventually", "sometime"];

fn month_of(word: &str) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| *m == word || (word.len() == 3 && m[..3] == *word) || (word == "sept" && *m == "september"))
        .map(|i| i as u32 + 1)
}

fn weekday_of(word: &str) -> Option<i64> {
    WEEKDAYS.iter().position(|d| *d == word || (word.len() == 3 && d.starts_with(word))).map(|i| i as i64)
}

fn number(word: &str) -> Option<i64> {
    const WORDS: [&str; 13] =
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    match word {
        "a" | "an" => Some(1),
        _ => word.parse().ok().or_else(|| WORDS.iter().position(|w| *w == word).map(|i| i as i64)),
    }
}

/// `14th`, `1st`, `22nd`, `3rd`, `14` → 14 (a day of the month).
fn ordinal(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !["", "st", "nd", "rd", "th"].contains(&suffix) {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

pub(super) fn tokens(text: &str) -> Vec<String> {
    // `we're` is not `were`, nor `we'll` `well`: a contraction's auxiliary is read as one.
    text.to_lowercase()
        .replace('’', "'")
        .replace("'re ", " are ")
        .replace("'ll ", " will ")
        .replace('\'', "")
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '/'))
        .map(|t| t.trim_matches('-').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Which way a bare weekday, month or day of the month points.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lean {
    Ahead,
    Back,
}

pub(super) fn lean(words: &[String]) -> Lean {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(FUTURE) {
        Lean::Ahead
    } else if has(PAST) {
        Lean::Back
    } else {
        Lean::Ahead
    }
}

/// The date expression of `text`, said at Unix second `said_at`, resolved.
pub fn resolve(text: &str, said_at: i64) -> Resolution {
    let words = tokens(text);
    let today = Day::from_unix(said_at);
    let lean = lean(&words);
    for i in 0..words.len() {
        if let Some(found) = at(&words, i, today, lean) {
            return found;
        }
    }
    Resolution::None
}

fn resolved(when: When, words: &[String]) -> Option<Resolution> {
    Some(Resolution::Resolved { when, expression: words.join(" ") })
}

fn ambiguous(words: &[String], why: &str) -> Option<Resolution> {
    Some(Resolution::Ambiguous { expression: words.join(" "), why: why.to_string() })
}

/// A date expression starting at word `i`, if there is one.
pub(super) fn at(words: &[String], i: usize, today: Day, lean: Lean) -> Option<Resolution> {
    let w = words[i].as_str();
    let next = words.get(i + 1).map(String::as_str);
    let span = |n: usize| &words[i..(i + n).min(words.len())];
    match w {
        "today" | "tonight" => return resolved(When::Day(today), span(1)),
        "yesterday" => return resolved(When::Day(today.plus(-1)), span(1)),
        "tomorrow" => return resolved(When::Day(today.plus(1)), span(1)),
        "this" if matches!(next, Some("morning" | "afternoon" | "evening")) => {
            return resolved(When::Day(today), span(2))
        }
        "the" if next == Some("day") => {
            return match (words.get(i + 2).map(String::as_str), words.get(i + 3).map(String::as_str)) {
                (Some("before"), Some("yesterday")) => resolved(When::Day(today.plus(-2)), span(4)),
                (Some("after"), Some("tomorrow")) => resolved(When::Day(today.plus(2)), span(4)),
                _ => None,
            }
        }
        "the" if next == Some("other") && words.get(i + 2).is_some_and(|w| w == "day") => {
            return ambiguous(span(3), "\"the other day\" names no particular day")
        }
        "a" if next == Some("while") && words.get(i + 2).is_some_and(|w| w == "ago") => {
            return ambiguous(span(3), "\"a while ago\" names no particular day")
        }
        w if VAGUE.contains(&w) => return ambiguous(span(1), &format!("\"{w}\" names no particular day")),
        "one" if next == Some("day") => return ambiguous(span(2), "\"one day\" names no particular day"),
        "in" | "within" => {
            if let (Some(n), Some(unit)) = (next.and_then(number), words.get(i + 2)) {
                if let Some(when) = offset(today, n, unit) {
                    return resolved(when, span(3));
                }
            }
            if next == Some("the")
                && words
                    .get(i + 2)
                    .is_some_and(|w| ["summer", "winter", "spring", "autumn", "fall"].contains(&w.as_str()))
            {
                return ambiguous(span(3), "a season is months long and differs by hemisphere");
            }
        }
        "next" | "last" | "this" | "coming" => {
            if let Some(found) = relative(words, i, today) {
                return Some(found);
            }
        }
        _ => {}
    }
    // `N days ago`, `two weeks ago`.
    if let (Some(n), Some(unit), Some("ago")) = (number(w), next, words.get(i + 2).map(String::as_str)) {
        if let Some(when) = offset(today, -n, unit) {
            return resolved(when, span(3));
        }
    }
    if let Some(found) = written_date(words, i, today, lean) {
        return Some(found);
    }
    if let Some(d) = weekday_of(w) {
        let prev = i.checked_sub(1).map(|p| words[p].as_str());
        if matches!(prev, Some("next" | "last" | "this" | "coming")) {
            return None; // handled as a relative expression at the previous word
        }
        let ahead = (d - today.weekday()).rem_euclid(7);
        let day = match lean {
            Lean::Ahead => today.plus(ahead),
            Lean::Back => today.plus(-((today.weekday() - d).rem_euclid(7))),
        };
        return resolved(When::Day(day), span(1));
    }
    None
}

/// `3 days`, `2 weeks`, `a month`, `one year` from `today` (negative `n`: ago).
fn offset(today: Day, n: i64, unit: &str) -> Option<When> {
    let unit = unit.trim_end_matches('s');
    Some(When::Day(match unit {
        "day" => today.plus(n),
        "week" => today.plus(7 * n),
        "fortnight" => today.plus(14 * n),
        "month" => today.plus_months(n),
        "year" => today.plus_months(12 * n),
        _ => return None,
    }))
}

/// `next week`, `last month`, `this year`, `last weekend`, `next Friday`, `last June`.
fn relative(words: &[String], i: usize, today: Day) -> Option<Resolution> {
    let which = words[i].as_str();
    let what = words.get(i + 1)?.as_str();
    let span = &words[i..i + 2];
    let step: i64 = match which {
        "next" | "coming" => 1,
        "last" => -1,
        _ => 0,
    };
    let monday = today.plus(-today.weekday());
    match what {
        "week" => {
            let from = monday.plus(7 * step);
            resolved(When::range(from, from.plus(6)), span)
        }
        "weekend" => {
            // The Saturday of this calendar week (Monday to Sunday), then a week either way.
            let from = monday.plus(5 + 7 * step);
            resolved(When::range(from, from.plus(1)), span)
        }
        "month" => {
            let (y, m, _) = today.ymd();
            let first = Day::from_ymd(y, m, 1)?.plus_months(step);
            let (fy, fm, _) = first.ymd();
            resolved(When::range(first, Day::from_ymd(fy, fm, days_in_month(fy, fm))?), span)
        }
        "year" => {
            let y = today.ymd().0 + step;
            resolved(When::range(Day::from_ymd(y, 1, 1)?, Day::from_ymd(y, 12, 31)?), span)
        }
        w => {
            if let Some(d) = weekday_of(w) {
                let ahead = (d - today.weekday()).rem_euclid(7);
                return match which {
                    "last" => resolved(When::Day(today.plus(-((today.weekday() - d - 1).rem_euclid(7) + 1))), span),
                    "this" => resolved(When::Day(monday.plus(d)), span),
                    // `next Friday` on a Wednesday: this Friday or the one after? Either.
                    _ if ahead > 0 && today.weekday() < d => ambiguous(
                        span,
                        &format!("\"{which} {w}\" said before {w} of the same week could mean either {w}"),
                    ),
                    _ => resolved(When::Day(today.plus(if ahead == 0 { 7 } else { ahead })), span),
                };
            }
            let m = month_of(w)?;
            let (y, cm, _) = today.ymd();
            let year = match which {
                "next" | "coming" => {
                    if m > cm {
                        y
                    } else {
                        y + 1
                    }
                }
                "last" => {
                    if m < cm {
                        y
                    } else {
                        y - 1
                    }
                }
                _ => y,
            };
            month_range(year, m, span)
        }
    }
}

fn month_range(year: i64, m: u32, span: &[String]) -> Option<Resolution> {
    resolved(When::range(Day::from_ymd(year, m, 1)?, Day::from_ymd(year, m, days_in_month(year, m))?), span)
}

/// The year a month-and-day without one falls in, leaning ahead or back from `today`.
fn year_for(today: Day, m: u32, d: u32, lean: Lean) -> i64 {
    let (y, _, _) = today.ymd();
    let this = Day::from_ymd(y, m, d.min(days_in_month(y, m)));
    match (lean, this) {
        (Lean::Ahead, Some(day)) if day < today => y + 1,
        (Lean::Back, Some(day)) if day > today => y - 1,
        _ => y,
    }
}

/// ISO (`2026-12-04`), slashed (`25/12/2026`), written (`4 December`, `December 4th,
/// 2026`, `4th of Dec`), a month alone (`in June`, `June 2027`) and a day of the month
/// (`on the 14th`).
fn written_date(words: &[String], i: usize, today: Day, lean: Lean) -> Option<Resolution> {
    let w = words[i].as_str();
    let get = |k: usize| words.get(i + k).map(String::as_str);
    let year_at = |k: usize| get(k).and_then(|y| y.parse::<i64>().ok()).filter(|y| (1900..=2200).contains(y));
    if let Some(res) = numeric_date(w, words, i, today, lean) {
        return Some(res);
    }
    // `4 December [2026]`, `4th of December`.
    if let Some(d) = ordinal(w) {
        let mk = if get(1) == Some("of") { 2 } else { 1 };
        if let Some(m) = get(mk).and_then(month_of) {
            let year = year_at(mk + 1).unwrap_or_else(|| year_for(today, m, d, lean));
            let n = if year_at(mk + 1).is_some() { mk + 2 } else { mk + 1 };
            return Day::from_ymd(year, m, d).and_then(|day| resolved(When::Day(day), &words[i..i + n]));
        }
    }
    // `December 4[th][, 2026]`, `June [2027]`.
    if let Some(m) = month_of(w) {
        // `may` is also a verb: only a month when a day or year follows, or `in` precedes.
        let prev = i.checked_sub(1).map(|p| words[p].as_str());
        if let Some(d) = get(1).and_then(ordinal) {
            let year = year_at(2).unwrap_or_else(|| year_for(today, m, d, lean));
            let n = if year_at(2).is_some() { 3 } else { 2 };
            return Day::from_ymd(year, m, d).and_then(|day| resolved(When::Day(day), &words[i..i + n]));
        }
        if let Some(y) = year_at(1) {
            return month_range(y, m, &words[i..i + 2]);
        }
        if matches!(prev, Some("in" | "during" | "since" | "until" | "by")) {
            let (y, cm, _) = today.ymd();
            let year = match lean {
                Lean::Ahead if m < cm => y + 1,
                Lean::Back if m > cm => y - 1,
                _ => y,
            };
            return month_range(year, m, &words[i..i + 1]);
        }
    }
    // `on the 14th`.
    let month_follows = get(2) == Some("of") && get(3).and_then(month_of).is_some();
    if w == "the" && i > 0 && matches!(words[i - 1].as_str(), "on" | "by" | "until") && !month_follows {
        let d = get(1).filter(|t| t.ends_with(|c: char| c.is_ascii_alphabetic())).and_then(ordinal)?;
        let (y, m, _) = today.ymd();
        let this = Day::from_ymd(y, m, d);
        let day = match (lean, this) {
            (Lean::Ahead, Some(day)) if day >= today => day,
            (Lean::Ahead, _) => Day::from_ymd(y, m, 1)?.plus_months(1).plus(d as i64 - 1),
            (Lean::Back, Some(day)) if day <= today => day,
            (Lean::Back, _) => Day::from_ymd(y, m, 1)?.plus_months(-1).plus(d as i64 - 1),
        };
        return resolved(When::Day(day), &words[i..i + 2]);
    }
    None
}

/// `2026-12-04`, `25/12/2026`, `12/25/2026`; `4/12` and `4/12/2026` are ambiguous.
fn numeric_date(w: &str, words: &[String], i: usize, today: Day, lean: Lean) -> Option<Resolution> {
    let span = &words[i..i + 1];
    if let [y, m, d] = w.split('-').collect::<Vec<_>>()[..] {
        if y.len() == 4 {
            let (y, m, d) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
            return match Day::from_ymd(y, m, d) {
                Some(day) => resolved(When::Day(day), span),
                None => ambiguous(span, "no such date"),
            };
        }
    }
    let parts: Vec<&str> = w.split('/').collect();
    if parts.len() < 2
        || parts.len() > 3
        || parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let (a, b): (u32, u32) = (parts[0].parse().ok()?, parts[1].parse().ok()?);
    let year: Option<i64> = parts.get(2).and_then(|y| y.parse().ok()).map(|y: i64| if y < 100 { 2000 + y } else { y });
    let (d, m) = match (a > 12, b > 12) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        (false, false) if a == b => (a, b),
        _ => return ambiguous(span, "day and month could be either way round"),
    };
    let year = year.unwrap_or_else(|| year_for(today, m, d, lean));
    Day::from_ymd(year, m, d).and_then(|day| resolved(When::Day(day), span))
}
