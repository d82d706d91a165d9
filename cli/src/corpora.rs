//! `nocturne bench-worth` and `nocturne bench-split`: the labelled corpora through the
//! rules, each half apart. The held-out test half's figure is the one that counts; its
//! misses are counted, never printed, so nobody tunes a rule on them by reading.

use nocturne_core::testkit::corpora::{self, Half, Score};
use nocturne_core::testkit::worth;

/// Statements about a person kept, test half: at least this share.
pub const PERSON_TARGET: f64 = 0.97;
/// Compounds split into exactly the expected pieces, test half: at least this share.
pub const SPLIT_TARGET: f64 = 0.95;

fn print(score: &Score, name: &str, misses: bool) {
    for line in score.lines(name) {
        println!("{line}");
    }
    if misses {
        for (half, miss) in score.misses.iter().filter(|(h, _)| *h != Half::Test) {
            println!("  miss ({}): {miss}", half.name());
        }
    }
}

/// The worth corpus, then the person and chatter corpora through the offline encoder and
/// the Encode gate. Off target (an error): the worth corpus's own targets, or the person
/// corpus's test half under [`PERSON_TARGET`].
pub fn worth(misses: bool) -> Result<(), String> {
    let s = worth::score(worth::STATEMENTS);
    println!("{}", s.line());
    for miss in &s.misses {
        println!("  miss: {miss}");
    }
    let person = corpora::person_score();
    print(&person, "person", misses);
    print(&corpora::chatter_score(), "chatter", misses);
    let kept = person.total(Half::Test).share();
    let mut off = Vec::new();
    if !s.meets_targets() {
        off.push("the worth corpus".to_string());
    }
    if kept < PERSON_TARGET {
        off.push(format!("person statements kept {kept:.3} < {PERSON_TARGET} on the test half"));
    }
    if off.is_empty() {
        Ok(())
    } else {
        Err(format!("off target: {}", off.join("; ")))
    }
}

/// The compounds through the one splitter. Off target: the test half under [`SPLIT_TARGET`].
pub fn split(misses: bool) -> Result<(), String> {
    let score = corpora::split_score();
    print(&score, "split", misses);
    let share = score.total(Half::Test).share();
    if share < SPLIT_TARGET {
        return Err(format!("off target: compounds split exactly {share:.3} < {SPLIT_TARGET} on the test half"));
    }
    Ok(())
}
