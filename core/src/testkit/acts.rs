//! The held-out corpora of talking to the memory (`corpora/README.md`): single user
//! sentences labelled by speech act (`acts.tsv`), whole chat turns with the act of each
//! sentence (`turns.tsv`), and first questions over a small memory (`questions.tsv`) —
//! written by someone who did not read the rules. Each line belongs to a tuning or a test
//! half by the same seeded hash as the other corpora ([`half_of`]): of the sentence, of
//! the turn, of the question and its facts. Rules are written against the tuning half;
//! the test half's figure is the one reported. The development lines of the sentences and
//! the first questions (`acts-dev.tsv`, `questions-dev.tsv`, [`Half::Dev`]) are tuning
//! material, never counted as held out.
//!
//! ```
//! use nocturne_core::testkit::{acts, corpora::Half};
//! assert_eq!(acts::sentences().iter().filter(|s| s.half != Half::Dev).count(), 379);
//! assert_eq!(acts::turns().len(), 81);
//! assert_eq!(acts::questions().iter().filter(|q| q.half != Half::Dev).count(), 179);
//! ```

use super::corpora::{half_of, records, said_alone, Half, Score};
use crate::text::act::{self, Act};

/// One user sentence and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentence {
    /// `statement`, `question`, `request` or `command`.
    pub act: &'static str,
    /// The kind within the act (`fact`, `wh`, `tell`, `forget` …).
    pub kind: &'static str,
    pub sentence: &'static str,
    pub half: Half,
}

/// A chat turn and the act of each of its sentences (`chatter` besides the four).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnCase {
    pub turn: &'static str,
    pub sentences: Vec<(&'static str, &'static str)>,
    pub half: Half,
}

/// A small memory said on one day, a first question asked that day, the facts that
/// answer it (0-based; none for `none`) and the words a right reply holds (any one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub kind: &'static str,
    /// `YYYY-MM-DD`.
    pub said: &'static str,
    pub facts: Vec<&'static str>,
    pub question: &'static str,
    pub answers: Vec<usize>,
    pub must: Vec<&'static str>,
    pub half: Half,
}

const ACTS: &str = include_str!("corpora/acts.tsv");
const ACTS_DEV: &str = include_str!("corpora/acts-dev.tsv");
const TURNS: &str = include_str!("corpora/turns.tsv");
const QUESTIONS: &str = include_str!("corpora/questions.tsv");
const QUESTIONS_DEV: &str = include_str!("corpora/questions-dev.tsv");

/// `acts.tsv`: 379 sentences, halved by the sentence; then `acts-dev.tsv`, development
/// lines ([`Half::Dev`]) that repeat none of them.
pub fn sentences() -> Vec<Sentence> {
    let read = |text: &'static str| {
        records(text).filter(|f| f.len() == 3).map(|f| Sentence {
            act: f[0],
            kind: f[1],
            sentence: f[2],
            half: half_of(f[2]),
        })
    };
    let mut out: Vec<Sentence> = read(ACTS).collect();
    let dev: Vec<Sentence> = read(ACTS_DEV)
        .filter(|d| !out.iter().any(|h| h.sentence == d.sentence))
        .map(|d| Sentence { half: Half::Dev, ..d })
        .collect();
    out.extend(dev);
    out
}

/// `turns.tsv`: 81 turns, halved by the turn.
pub fn turns() -> Vec<TurnCase> {
    records(TURNS)
        .filter(|f| f.len() == 2)
        .map(|f| TurnCase {
            turn: f[0],
            sentences: f[1].split(" | ").filter_map(|s| s.rsplit_once(" => ")).collect(),
            half: half_of(f[0]),
        })
        .collect()
}

/// `questions.tsv`: 179 cases, halved by the question and its facts (`question\tfacts`);
/// then `questions-dev.tsv`, development lines ([`Half::Dev`]) that repeat none of them.
pub fn questions() -> Vec<Question> {
    let mut out = read_questions(QUESTIONS);
    let dev: Vec<Question> = read_questions(QUESTIONS_DEV)
        .into_iter()
        .filter(|d| !out.iter().any(|h| h.question == d.question && h.facts == d.facts))
        .map(|d| Question { half: Half::Dev, ..d })
        .collect();
    out.extend(dev);
    out
}

fn read_questions(text: &'static str) -> Vec<Question> {
    let list = |field: &'static str| -> Vec<&'static str> {
        if field == "-" {
            Vec::new()
        } else {
            field.split(" | ").collect()
        }
    };
    records(text)
        .filter(|f| f.len() == 6)
        .map(|f| Question {
            kind: f[0],
            said: f[1],
            facts: f[2].split(" | ").collect(),
            question: f[3],
            answers: list(f[4])
                .iter()
                .flat_map(|l| l.split(','))
                .filter_map(|n| n.trim().parse::<usize>().ok()?.checked_sub(1))
                .collect(),
            must: list(f[5]),
            half: half_of(&format!("{}\t{}", f[3], f[2])),
        })
        .collect()
}

/// The label of an act as the corpora write it: `statement`, …, `command` (the command's
/// kind apart).
fn label(act: Act) -> &'static str {
    act.name()
}

/// Each sentence of `acts.tsv` through the act rule: right when the act is the label's.
/// Grouped by `act/kind`.
pub fn act_score() -> Score {
    let mut score = Score::default();
    for s in sentences() {
        let reading = act::read(s.sentence);
        let right = label(reading.act) == s.act;
        score.add(s.half, group(s.act, s.kind), right, || {
            format!("{}/{} {:?}: read as {reading}", s.act, s.kind, s.sentence)
        });
    }
    score
}

/// The command lines of `acts.tsv`: right when the rule reads the command's own kind
/// (`forget`, `remind` …), which decides what is done.
pub fn command_score() -> Score {
    let mut score = Score::default();
    for s in sentences().into_iter().filter(|s| s.act == "command") {
        let reading = act::read(s.sentence);
        let right = matches!(reading.act, Act::Command(k) if k.as_str() == s.kind);
        score
            .add(s.half, group("command", s.kind), right, || format!("{} {:?}: read as {reading}", s.kind, s.sentence));
    }
    score
}

/// Every question, request and command of `acts.tsv` said alone as a user turn, proposed as
/// a fact two ways — by the offline encoder, and word for word as a model might — through
/// the Encode gate: right when nothing is stored.
pub fn stored_score() -> Score {
    let mut score = Score::default();
    for s in sentences().into_iter().filter(|s| s.act != "statement") {
        let kept = super::corpora::kept_from(s.sentence);
        let verbatim = verbatim_kept(s.sentence);
        let right = kept.is_empty() && verbatim.is_empty();
        score.add(s.half, group(s.act, "stored"), right, || {
            format!("{} {:?}: stored {kept:?} (offline), {verbatim:?} (word for word)", s.act, s.sentence)
        });
    }
    score
}

/// What the Encode gate keeps when a model proposes `text`, said alone as a user turn, as
/// a fact word for word.
pub fn verbatim_kept(text: &str) -> Vec<String> {
    let proposal = serde_json::json!({"text": text, "category": "context", "block": "scratch"});
    let (items, _) = crate::flow::chat::judge_facts(&[said_alone(text)], &[proposal], 1, 0);
    items.into_iter().map(|i| i.text).collect()
}

/// Each sentence of `turns.tsv` as the turn is read (`text::act::turn`): right when the
/// turn is cut into the labelled sentences and this one gets its label — `chatter` when
/// it is read as a statement that `text::worth` refuses, `statement` when it is one that
/// `text::worth` keeps.
pub fn turn_score() -> Score {
    let mut score = Score::default();
    for t in turns() {
        let said = act::turn(t.turn);
        for (k, (sentence, want)) in t.sentences.iter().enumerate() {
            let got = said.get(k).filter(|s| s.sentence.trim() == sentence.trim() || said.len() == t.sentences.len());
            let read = got.map(|s| {
                let worth = crate::text::worth::informative(s.sentence).is_ok();
                match s.reading.act {
                    Act::Statement if !worth => "chatter",
                    other => label(other),
                }
            });
            let right = read == Some(*want);
            score.add(t.half, group("turn", want), right, || {
                let how = got.map_or("cut elsewhere".to_string(), |s| s.reading.to_string());
                format!("{want} {sentence:?} in {:?}: read as {} ({how})", t.turn, read.unwrap_or("-"))
            });
        }
    }
    score
}

/// Each case of `questions.tsv`: its facts said as chat turns on `said` (the offline
/// encoder, the Encode gate), then the question asked that day through the chat path with
/// the offline provider. Right when the reply cites only facts from the answering turns
/// (at least one) and holds one of the `must` words (whole words, any case); for `none`,
/// when it says it is not in memory and cites nothing.
pub async fn question_score() -> Score {
    let mut score = Score::default();
    for q in questions() {
        let (right, what) = ask(&q).await;
        score.add(q.half, group("first", q.kind), right, || {
            format!("{} {:?} over {:?}: {what}", q.kind, q.question, q.facts)
        });
    }
    score
}

/// One case through the chat path: whether the reply is right, and what it was.
async fn ask(q: &Question) -> (bool, String) {
    use crate::flow::chat;
    use crate::llm::offline::OfflineProvider;
    use crate::store::{MemStore, Store};
    let Some(day) = crate::text::when::parse_iso(q.said) else { return (false, format!("no date {:?}", q.said)) };
    let store = MemStore::new();
    for (k, fact) in q.facts.iter().enumerate() {
        if let Err(e) =
            chat::chat_turn(&store, &OfflineProvider, fact, day + 60 * k as i64, chat::TurnOptions::default()).await
        {
            return (false, format!("the turn {fact:?} failed: {e}"));
        }
    }
    let reply = match chat::reply(&store, &OfflineProvider, q.question, day + 3600, &mut |_| {}).await {
        Ok(r) => r,
        Err(e) => return (false, format!("no reply: {e}")),
    };
    let items = store.items().await.unwrap_or_default();
    // The user turn of fact k is turn 2k (each is followed by its reply).
    let fact_of =
        |id: &String| items.iter().find(|i| &i.item_id == id).and_then(|i| i.source_turn).map(|t| t as usize / 2);
    let cited: Vec<Option<usize>> = reply.memory.cited.iter().map(fact_of).collect();
    let said = |w: &str| holds_word(&reply.text, w);
    let right = if q.kind == "none" {
        cited.is_empty() && reply.text.contains(crate::llm::prompt::NOT_IN_MEMORY)
    } else {
        !cited.is_empty()
            && cited.iter().all(|c| c.is_some_and(|c| q.answers.contains(&c)))
            && (q.must.is_empty() || q.must.iter().any(|w| said(w)))
    };
    let facts: Vec<String> = cited.iter().map(|c| c.map_or("?".into(), |c| (c + 1).to_string())).collect();
    (right, format!("cited facts [{}], replied {:?}", facts.join(","), reply.text))
}

/// `word` (a word or a phrase) in `text` as whole words, any case.
pub fn holds_word(text: &str, word: &str) -> bool {
    let (text, word) = (text.to_lowercase(), word.to_lowercase());
    text.match_indices(&word).any(|(at, _)| {
        let before = text[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = text[at + word.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        before && after
    })
}

/// `act/kind` as a group name that lives as long as the corpus.
fn group(act: &'static str, kind: &'static str) -> &'static str {
    const GROUPS: &[&str] = &[
        "statement/fact",
        "statement/plan",
        "statement/opinion",
        "statement/negated",
        "statement/hard",
        "statement/reported-question",
        "question/wh",
        "question/yes-no",
        "question/indirect",
        "question/no-mark",
        "question/tag",
        "request/tell",
        "request/summarise",
        "request/can-you",
        "request/imperative",
        "request/polite",
        "command/forget",
        "command/correct",
        "command/remember",
        "command/remind",
        "command/erase",
        "question/stored",
        "request/stored",
        "command/stored",
        "turn/statement",
        "turn/question",
        "turn/request",
        "turn/command",
        "turn/chatter",
        "first/name",
        "first/identity",
        "first/about-me",
        "first/pets",
        "first/family",
        "first/work",
        "first/health",
        "first/plans",
        "first/when",
        "first/home",
        "first/preferences",
        "first/none",
    ];
    let name = format!("{act}/{kind}");
    GROUPS.iter().find(|g| **g == name).copied().unwrap_or("other")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_has_its_fields_and_the_halves_are_even_enough() {
        let (s, s_dev): (Vec<Sentence>, Vec<Sentence>) = sentences().into_iter().partition(|s| s.half != Half::Dev);
        let t = turns();
        let (q, dev): (Vec<Question>, Vec<Question>) = questions().into_iter().partition(|q| q.half != Half::Dev);
        assert_eq!((s.len(), s_dev.len(), t.len(), q.len(), dev.len()), (379, 150, 81, 179, 378));
        assert!(s_dev.iter().all(|d| group(d.act, d.kind) != "other"), "every dev sentence has a known act and kind");
        assert!(dev.iter().all(|q| q.answers.iter().all(|a| *a < q.facts.len())));
        assert!(dev.iter().filter(|q| q.kind == "none").all(|q| q.answers.is_empty()));
        assert!(t.iter().all(|t| t.sentences.len() >= 2));
        assert_eq!(t.iter().map(|t| t.sentences.len()).sum::<usize>(), 213);
        assert!(q.iter().all(|q| q.answers.iter().all(|a| *a < q.facts.len())));
        assert!(q.iter().filter(|q| q.kind == "none").all(|q| q.answers.is_empty()));
        let share = |test: usize, of: usize| test as f64 / of as f64;
        for s in [
            share(s.iter().filter(|x| x.half == Half::Test).count(), s.len()),
            share(t.iter().filter(|x| x.half == Half::Test).count(), t.len()),
            share(q.iter().filter(|x| x.half == Half::Test).count(), q.len()),
        ] {
            assert!((0.35..=0.65).contains(&s), "{s}");
        }
    }
}
