//! `nocturne bench-worth`, `nocturne bench-split` and `nocturne bench-acts`: the labelled
//! corpora through the rules, each half apart. The held-out test half's figure is the one that counts; its
//! misses are counted, never printed, so nobody tunes a rule on them by reading.

use crate::error::CliError;
use nocturne_core::testkit::corpora::{self, Half, Score};
use nocturne_core::testkit::{acts, worth};

/// Statements about a person kept, test half: at least this share.
pub const PERSON_TARGET: f64 = 0.97;
/// Compounds split into exactly the expected pieces, test half: at least this share.
pub const SPLIT_TARGET: f64 = 0.95;
/// Sentences read as their own act, test half: at least this share.
pub const ACT_TARGET: f64 = 0.97;
/// First questions answered by the offline provider with the right citation, test half:
/// at least this share.
pub const FIRST_TARGET: f64 = 0.90;

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
pub fn worth(misses: bool) -> Result<(), CliError> {
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
        Err(format!("off target: {}", off.join("; ")).into())
    }
}

/// Turns whose pieces keep their pronouns' referents, test half: at least this share.
pub const REFERENTS_TARGET: f64 = 0.90;

/// The compounds through the one splitter, then the referents corpus through the splitter
/// and `text::antecedent`. Off target: either test half under its target ([`SPLIT_TARGET`],
/// [`REFERENTS_TARGET`]).
pub fn split(misses: bool) -> Result<(), CliError> {
    let score = corpora::split_score();
    print(&score, "split", misses);
    let referents = corpora::referents_score();
    print(&referents, "referents", misses);
    let mut off = Vec::new();
    let share = score.total(Half::Test).share();
    if share < SPLIT_TARGET {
        off.push(format!("compounds split exactly {share:.3} < {SPLIT_TARGET} on the test half"));
    }
    let kept = referents.total(Half::Test).share();
    if kept < REFERENTS_TARGET {
        off.push(format!("turns keeping their referents {kept:.3} < {REFERENTS_TARGET} on the test half"));
    }
    if off.is_empty() {
        Ok(())
    } else {
        Err(format!("off target: {}", off.join("; ")).into())
    }
}

/// The speech-act corpora: each sentence's act (and each command's kind), the questions,
/// requests and commands that must store nothing (the offline encoder's proposals and a
/// word-for-word one, through the Encode gate), the acts of whole turns, and the first
/// questions answered by the offline provider. Off target: the test half's acts under
/// [`ACT_TARGET`], any request or command stored, or first questions under [`FIRST_TARGET`].
pub fn acts(misses: bool) -> Result<(), CliError> {
    let read = acts::act_score();
    print(&read, "acts", misses);
    print(&acts::command_score(), "command-kind", misses);
    let stored = acts::stored_score();
    print(&stored, "nothing-stored", misses);
    print(&acts::turn_score(), "turns", misses);
    let first = pollster::block_on(acts::question_score());
    print(&first, "first-questions", misses);
    let mut off = Vec::new();
    let answered = first.total(Half::Test).share();
    if answered < FIRST_TARGET {
        off.push(format!("first questions answered {answered:.3} < {FIRST_TARGET} on the test half"));
    }
    let share = read.total(Half::Test).share();
    if share < ACT_TARGET {
        off.push(format!("sentences read as their act {share:.3} < {ACT_TARGET} on the test half"));
    }
    for group in ["request/stored", "command/stored"] {
        let t = stored.groups.get(&(Half::Test, group)).copied().unwrap_or_default();
        if t.right < t.lines {
            off.push(format!("{} of {} {group} lines stored a fact on the test half", t.lines - t.right, t.lines));
        }
    }
    if off.is_empty() {
        Ok(())
    } else {
        Err(format!("off target: {}", off.join("; ")).into())
    }
}
