//! The date resolver's table (`text::when`): expressions said on Wednesday 2026-12-02 at
//! noon UTC, each with the date or range it must resolve to, or `?` for an expression left
//! unresolved as ambiguous, or `-` for a text with no date in it. Run natively
//! (`core/tests/when.rs`) and in Chromium (`tests/browser.rs`).

use crate::text::when::{resolve, Day, Resolution};

/// (text, expected): `2026-12-04`, `2026-12-07..2026-12-13`, `?` (ambiguous) or `-` (none).
pub const TABLE: &[(&str, &str)] = &[
    ("I will review her thesis by Friday.", "2026-12-04"),
    ("I promised Ana I would review her thesis by Friday.", "2026-12-04"),
    ("I went to the cinema on Friday.", "2026-11-27"),
    ("I have yoga on Monday.", "2026-12-07"),
    ("I had lunch with Rui on Monday.", "2026-11-30"),
    ("The plumber comes on Wednesday.", "2026-12-02"),
    ("I was there on Thu.", "2026-11-26"),
    ("I called my mother yesterday.", "2026-12-01"),
    ("I am tired today.", "2026-12-02"),
    ("I fly to Faro tomorrow.", "2026-12-03"),
    ("We have a concert tonight.", "2026-12-02"),
    ("I ran this morning.", "2026-12-02"),
    ("I moved house the day before yesterday.", "2026-11-30"),
    ("The parcel arrives the day after tomorrow.", "2026-12-04"),
    ("I met Ana 3 days ago.", "2026-11-29"),
    ("I started the job two weeks ago.", "2026-11-18"),
    ("I sold the car a month ago.", "2026-11-02"),
    ("We moved here a year ago.", "2025-12-02"),
    ("I quit smoking six months ago.", "2026-06-02"),
    ("The results come in 3 days.", "2026-12-05"),
    ("I will see you in 10 days.", "2026-12-12"),
    ("I start the new job in two weeks.", "2026-12-16"),
    ("The lease ends in a month.", "2027-01-02"),
    ("I will visit Japan in a year.", "2027-12-02"),
    ("I start a course next week.", "2026-12-07..2026-12-13"),
    ("I was ill last week.", "2026-11-23..2026-11-29"),
    ("I am busy this week.", "2026-11-30..2026-12-06"),
    ("We hiked last weekend.", "2026-11-28..2026-11-29"),
    ("We go camping this weekend.", "2026-12-05..2026-12-06"),
    ("My parents visit next weekend.", "2026-12-12..2026-12-13"),
    ("I was in Ghent last month.", "2026-11-01..2026-11-30"),
    ("I move next month.", "2027-01-01..2027-01-31"),
    ("The budget is due this month.", "2026-12-01..2026-12-31"),
    ("I graduated last year.", "2025-01-01..2025-12-31"),
    ("I will retire next year.", "2027-01-01..2027-12-31"),
    ("I bought a flat this year.", "2026-01-01..2026-12-31"),
    ("I went to Japan in June.", "2026-06-01..2026-06-30"),
    ("I will go to Japan in June.", "2027-06-01..2027-06-30"),
    ("The wedding is in December.", "2026-12-01..2026-12-31"),
    ("I was in Porto in March.", "2026-03-01..2026-03-31"),
    ("We met last June.", "2026-06-01..2026-06-30"),
    ("We travel next June.", "2027-06-01..2027-06-30"),
    ("The exam is on the 14th.", "2026-12-14"),
    ("Rent was paid on the 1st.", "2026-12-01"),
    ("I will pay it by the 1st.", "2027-01-01"),
    ("The deadline is 2026-12-18.", "2026-12-18"),
    ("My flight is on 2027-01-05.", "2027-01-05"),
    ("The party is on 4 December.", "2026-12-04"),
    ("The party is on December 4th.", "2026-12-04"),
    ("I visited Porto on 4 November.", "2026-11-04"),
    ("We married on 12 March 2019.", "2019-03-12"),
    ("The launch is on March 3, 2027.", "2027-03-03"),
    ("Her birthday is on the 5th of January.", "2027-01-05"),
    ("The course starts Jan 10.", "2027-01-10"),
    ("Dinner was on Sept 9.", "2026-09-09"),
    ("I paid the bill on 25/12/2025.", "2025-12-25"),
    ("The meeting is on 12/25/2026.", "2026-12-25"),
    ("I fixed it last Friday.", "2026-11-27"),
    ("Let's go this Friday.", "2026-12-04"),
    ("We should meet next Monday.", "2026-12-07"),
    ("The meeting is on 4/12/2026.", "?"),
    ("I'll call you soon.", "?"),
    ("I met her the other day.", "?"),
    ("I saw it a while ago.", "?"),
    ("We should meet next Friday.", "?"),
    ("We go skiing in the winter.", "?"),
    ("One day I will sail around the world.", "?"),
    ("The conference ends on 2026-02-30.", "?"),
    ("I like green tea.", "-"),
    ("My flat has 3 rooms.", "-"),
    ("You may borrow my bike.", "-"),
];

/// When the table's texts were said: Wednesday 2026-12-02, 12:00 UTC.
pub fn said_at() -> i64 {
    Day::from_ymd(2026, 12, 2).map_or(0, |d| d.start() + 12 * 3600)
}

/// Every row that resolves otherwise than the table says, described.
pub fn mismatches() -> Vec<String> {
    TABLE
        .iter()
        .filter_map(|(text, want)| {
            let got = match resolve(text, said_at()) {
                Resolution::None => "-".to_string(),
                Resolution::Ambiguous { .. } => "?".to_string(),
                Resolution::Resolved { when, .. } => when.to_string(),
            };
            (got != *want).then(|| format!("{text:?}: want {want}, got {got}"))
        })
        .collect()
}
