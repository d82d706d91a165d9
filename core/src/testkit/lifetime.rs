//! A lifetime memory and one day of new facts, for the scale benchmarks
//! (`bench-incremental`, `bench-recall`). Facts are about made-up people and things from a
//! vocabulary that grows with the memory, so two unrelated facts rarely share more than
//! a common verb — as in a real memory, where a new fact relates to a handful of old
//! ones, not to a whole block. A day mixes restatements of old facts, contradictions of
//! them, merge partners and unrelated news, in known numbers.

use crate::model::category::Category;
use crate::model::memory::{Block, Item, Role, Turn};
use crate::model::DAY;
use crate::testkit::synth::Rng;

const VERBS: &[&str] = &[
    "keeps", "borrowed", "repaired", "painted", "ordered", "returned", "stores", "sold", "cleaned", "measured",
    "labelled", "wrapped",
];

/// A made-up word from a vocabulary of `size` (`kalomi17`-like); `capital` for names.
fn word(rng: &mut Rng, size: u64, capital: bool) -> String {
    const SYL: &[&str] = &["ka", "lo", "mi", "ren", "ta", "vo", "sil", "dor", "ne", "pa", "qu", "zim"];
    let n = rng.below(size);
    let w = format!("{}{}{}", SYL[(n % 12) as usize], SYL[((n / 12) % 12) as usize], n / 144);
    if capital {
        let mut c = w.chars();
        c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or(w)
    } else {
        w
    }
}

fn sentence(rng: &mut Rng, vocab: u64, holder: &str, first: &str) -> String {
    let verb = VERBS[rng.below(VERBS.len() as u64) as usize];
    let (b, c, d) = (word(rng, vocab, false), word(rng, vocab, false), word(rng, vocab, false));
    format!("{holder} {verb} the {first} with the {b} at the {c} for {d}.")
}

fn item(n: usize, block: Block, category: &str, text: String, created_at: i64) -> Item {
    Item::new_fact(n as u64, block, category, &text, created_at)
}

/// `n` facts (ids `m_1…`) of a memory that has slept before: 55% identity, preference
/// and commitment facts in human (up to two years old), 25% events in episodes (up to 60
/// days old, so about half are stale), 20% context notes in scratch from the last week.
pub fn memory(n: usize, now: i64, seed: u64) -> Vec<Item> {
    let mut rng = Rng::new(seed);
    let vocab = (n as u64 * 4).max(2_000);
    (1..=n)
        .map(|id| {
            let holder = word(&mut rng, vocab, true);
            let first = word(&mut rng, vocab, false);
            let text = sentence(&mut rng, vocab, &holder, &first);
            let (block, category, age_days) = match rng.below(100) {
                0..=54 => (Block::Human, ["identity", "preferences", "commitments"][rng.below(3) as usize], 730),
                55..=79 => (Block::Episodes, "event", 60),
                _ => (Block::Scratch, "context", 7),
            };
            let age = rng.below(age_days) as i64 * DAY + rng.below(DAY as u64) as i64;
            item(id, block, category, text, now - age)
        })
        .collect()
}

/// One day of new facts and how many of each kind it holds.
#[derive(Clone, Debug, Default)]
pub struct Day {
    pub facts: Vec<Item>,
    /// Restatements of old facts: Dedupe's.
    pub duplicates: usize,
    /// Old scratch notes said again in the negative (`… no longer …`): Supersede's.
    pub contradictions: usize,
    /// Notes sharing a holder and a thing with an old scratch note: Merge's.
    pub partners: usize,
}

/// `k` new scratch facts said at `now`, ids from `next_id`, over `memory`'s active
/// facts: a tenth restate one, a tenth contradict a scratch note, a tenth are merge
/// partners of a scratch note, the rest are unrelated.
pub fn day(memory: &[Item], k: usize, now: i64, next_id: u64, seed: u64) -> Day {
    let mut rng = Rng::new(seed);
    let vocab = (memory.len() as u64 * 4).max(2_000);
    let active: Vec<&Item> = memory.iter().filter(|i| i.active).collect();
    let mut notes: Vec<&Item> =
        active.iter().copied().filter(|i| i.block == Block::Scratch && i.category == Category::Context).collect();
    let mut out = Day::default();
    let tenth = k / 10;
    for n in 0..k {
        let id = next_id as usize + n;
        let at = now - (k - n) as i64;
        let fact = if n < tenth && !active.is_empty() {
            out.duplicates += 1;
            let old = active[rng.below(active.len() as u64) as usize];
            item(id, Block::Scratch, old.category.as_str(), old.text.clone(), at)
        } else if n < 3 * tenth && !notes.is_empty() {
            let old = notes.swap_remove(rng.below(notes.len() as u64) as usize);
            let words: Vec<&str> = old.text.split(' ').collect();
            let holder = words[0];
            let text = if n < 2 * tenth {
                out.contradictions += 1;
                format!("{holder} no longer {}", words[1..].join(" "))
            } else {
                out.partners += 1;
                let first = words.get(3).copied().unwrap_or("thing");
                sentence(&mut rng, vocab, holder, first)
            };
            item(id, Block::Scratch, "context", text, at)
        } else {
            let holder = word(&mut rng, vocab, true);
            let first = word(&mut rng, vocab, false);
            let category = ["identity", "preferences", "commitments", "event", "context"][rng.below(5) as usize];
            item(id, Block::Scratch, category, sentence(&mut rng, vocab, &holder, &first), at)
        };
        out.facts.push(fact);
    }
    out
}

/// What a recall question is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeKind {
    /// A fact said once.
    Single,
    /// A fact said, then changed: the current value must reach the prompt, the old not.
    Update,
    /// Something never said: the answer is that memory does not hold it.
    Absent,
    /// When something is due or happened: the answer must hold the exact date.
    Temporal,
}

/// One recall question: which block its fact sits in, the question (never holding the
/// answer's value word), the value word that must reach the prompt, and the superseded
/// one that must not.
#[derive(Clone, Debug)]
pub struct Probe {
    pub kind: ProbeKind,
    pub block: Block,
    pub question: String,
    pub value: String,
    pub old_value: Option<String>,
}

/// Planted facts: `facts` to store with the lifetime, `updates` said a day later, and the
/// probes that ask about them.
#[derive(Clone, Debug, Default)]
pub struct Planted {
    pub facts: Vec<Item>,
    pub updates: Vec<Item>,
    pub probes: Vec<Probe>,
}

/// `per_block` facts planted in each block (ids from `next_id`), half of the human ones
/// changed by an update, and `per_block` questions about people never mentioned.
pub fn plant(per_block: usize, next_id: u64, now: i64) -> Planted {
    let mut out = Planted::default();
    let mut id = next_id as usize;
    for n in 0..per_block {
        let name = format!("Yul{n}");
        // Each block's value words are its own, so a probe can tell them apart.
        let said = [
            (
                Block::Persona,
                "identity",
                format!("Xev{n}"),
                "Your codename for project {name} is {value}.",
                "What is your codename for project {name}?",
            ),
            (
                Block::Human,
                "identity",
                format!("Hom{n}"),
                "My friend {name} lives in {value}.",
                "Where does my friend {name} live now?",
            ),
            (
                Block::Episodes,
                "event",
                format!("Pek{n}"),
                "{name} and I hiked up to {value} on a trip.",
                "Where did {name} and I hike up to?",
            ),
            (
                Block::Scratch,
                "context",
                format!("Zup{n}"),
                "The spare key for the {name} shed is under the {value} pot.",
                "Where is the spare key for the {name} shed?",
            ),
        ];
        for (block, category, value, text, question) in said {
            let text = text.replace("{name}", &name).replace("{value}", &value);
            let question = question.replace("{name}", &name);
            let updated = block == Block::Human && n % 2 == 0;
            out.facts.push(item(id, block, category, text, now - (n as i64 % 10 + 1) * DAY));
            id += 1;
            let (kind, current, old_value) = if updated {
                let new_value = format!("Wob{n}");
                out.updates.push(item(
                    0,
                    Block::Scratch,
                    category,
                    format!("My friend {name} lives in {new_value} now."),
                    now + DAY,
                ));
                (ProbeKind::Update, new_value, Some(value.clone()))
            } else {
                (ProbeKind::Single, value.clone(), None)
            };
            out.probes.push(Probe { kind, block, question, value: current, old_value });
        }
        // Dated: a promise said a few days ago "by Friday", and an outing "last weekend".
        let said = now - (n as i64 % 4 + 1) * DAY;
        let day = crate::text::when::Day::from_unix(said);
        let friday = day.plus_days((4 - day.weekday()).rem_euclid(7));
        let saturday = day.plus_days(-day.weekday() - 2);
        let thing = format!("Kel{n}");
        let dated = [
            (
                Block::Human,
                "commitments",
                format!("I promised {name} I would return the {thing} drill by Friday."),
                format!("When is the {thing} drill for {name} due?"),
                friday.to_string(),
            ),
            (
                Block::Episodes,
                "event",
                format!("{name} and I went kayaking on the {thing} river last weekend."),
                format!("When did {name} and I go kayaking on the {thing} river?"),
                format!("{saturday}..{}", saturday.plus_days(1)),
            ),
        ];
        for (block, category, text, question, value) in dated {
            out.facts.push(item(id, block, category, text, said));
            id += 1;
            out.probes.push(Probe { kind: ProbeKind::Temporal, block, question, value, old_value: None });
        }
        out.probes.push(Probe {
            kind: ProbeKind::Absent,
            block: Block::Human,
            question: format!("Where does my friend Qor{n} live now?"),
            value: String::new(),
            old_value: None,
        });
    }
    for u in out.updates.iter_mut() {
        u.item_id = format!("m_{id}");
        id += 1;
    }
    out
}

/// The conversation `items` came from: a user turn saying each fact and the assistant's
/// acknowledgement, already encoded (the encoder's cursor past them), as a memory that has
/// lived for years carries it.
pub fn transcript(items: &[Item]) -> (Vec<Turn>, Option<u32>) {
    let mut turns = Vec::with_capacity(items.len() * 2);
    for item in items {
        let index = turns.len() as u32;
        let said = |index, role, text: &str| Turn {
            index,
            role,
            text: text.into(),
            at: item.created_at,
            speaker: None,
            memory: None,
            source: None,
            provenance: None,
        };
        turns.push(said(index, Role::User, &item.text));
        turns.push(said(index + 1, Role::Assistant, "Noted."));
    }
    let n = turns.len() as u32;
    (turns, Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::textmath::content_tokens;

    #[test]
    fn a_day_holds_what_it_says() {
        let memory = memory(2_000, 1_000_000_000, 3);
        let day = day(&memory, 100, 1_000_000_000, 2_001, 4);
        assert_eq!((day.facts.len(), day.duplicates, day.contradictions, day.partners), (100, 10, 10, 10));
        let texts: Vec<&str> = memory.iter().map(|i| i.text.as_str()).collect();
        assert!(day.facts[..10].iter().all(|f| texts.contains(&f.text.as_str())));
        assert!(day.facts[10..20].iter().all(|f| f.text.contains(" no longer ")));
        let old: Vec<_> = memory.iter().map(|o| content_tokens(&o.text)).collect();
        for f in &day.facts[20..30] {
            let best = old.iter().map(|o| o.intersection(&content_tokens(&f.text)).count()).max().unwrap_or(0);
            assert!(best >= 2, "{} shares two tokens with an old note", f.text);
        }
        let unrelated = &day.facts[30..];
        // A shared verb is common; two shared names or things would make them partners.
        let verbs: std::collections::BTreeSet<String> = VERBS.iter().flat_map(|v| content_tokens(v)).collect();
        let things = |t: &str| -> std::collections::BTreeSet<String> {
            content_tokens(t).into_iter().filter(|w| !verbs.contains(w)).collect()
        };
        let old: Vec<_> = memory.iter().map(|o| things(&o.text)).collect();
        let related =
            unrelated.iter().filter(|f| old.iter().any(|o| o.intersection(&things(&f.text)).count() >= 2)).count();
        assert!(related <= 2, "{related} 'unrelated' facts resemble an old one");
    }
}
