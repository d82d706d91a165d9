//! Deterministic synthetic memories for benchmarks: facts built from a fixed vocabulary
//! with realistic shares of exact duplicates (about 8%) and near-duplicates — restatements
//! that add a word (about 8%) — in one of two shapes (see [`Profile`]).

use crate::model::memory::{Block, Item};
use crate::model::DAY;

/// A small, fast, seeded generator (xorshift64*), so every run builds the same memory.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

const SUBJECTS: &[&str] =
    &["The user", "My sister", "Our team", "The landlord", "My doctor", "The neighbour", "My manager", "The cat"];
const VERBS: &[&str] =
    &["keeps", "likes", "visited", "fixed", "bought", "sold", "painted", "cleaned", "moved", "booked", "lost", "found"];
const CATEGORIES: &[&str] =
    &["context", "event", "preferences", "identity", "commitments", "context", "event", "context"];

/// A word from a vocabulary of `size` made-up nouns (`zorvik17`-like, all distinct).
fn noun(rng: &mut Rng, size: u64) -> String {
    const SYL: &[&str] = &["ka", "lo", "mi", "ren", "ta", "vo", "sil", "dor", "ne", "pa", "qu", "zim"];
    let n = rng.below(size);
    format!("{}{}{}", SYL[(n % 12) as usize], SYL[((n / 12) % 12) as usize], n / 144)
}

/// The shape of a synthetic memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// A memory that has slept before: 60% identity/preference/commitment facts in human,
    /// 25% events in episodes (up to 33 days old, so about a tenth are stale), 15% new
    /// facts in scratch from the last week. A Sleep changes a minority of it.
    Consolidated,
    /// Everything in scratch or human, up to 90 days old, mixed categories: nearly every
    /// fact is promoted, merged, dropped or forgotten — the worst case for writes.
    Fresh,
}

/// `n` facts, ids `m_1…`, shaped by `profile`.
pub fn facts(n: usize, now: i64, seed: u64) -> Vec<Item> {
    memory(n, now, seed, Profile::Fresh)
}

/// `n` facts, ids `m_1…`, shaped by `profile`.
pub fn memory(n: usize, now: i64, seed: u64, profile: Profile) -> Vec<Item> {
    let mut rng = Rng::new(seed);
    let vocab = (n as u64 * 3).max(500);
    let mut out: Vec<Item> = Vec::with_capacity(n);
    for i in 0..n {
        let roll = rng.below(100);
        let text = if roll < 8 && !out.is_empty() {
            // An exact duplicate of an earlier fact.
            out[rng.below(out.len() as u64) as usize].text.clone()
        } else if roll < 16 && !out.is_empty() {
            // A near-duplicate: an earlier fact restated with one more word.
            let base = out[rng.below(out.len() as u64) as usize].text.trim_end_matches('.').to_string();
            format!("{base} again.")
        } else {
            let s = SUBJECTS[rng.below(SUBJECTS.len() as u64) as usize];
            let v = VERBS[rng.below(VERBS.len() as u64) as usize];
            format!(
                "{s} {v} the {} with the {} at {}.",
                noun(&mut rng, vocab),
                noun(&mut rng, vocab),
                noun(&mut rng, vocab)
            )
        };
        let (block, category, age_days) = match profile {
            Profile::Fresh => (
                if rng.below(5) == 0 { Block::Human } else { Block::Scratch },
                CATEGORIES[rng.below(CATEGORIES.len() as u64) as usize],
                rng.below(90) as i64,
            ),
            Profile::Consolidated => match rng.below(100) {
                0..=59 => (
                    Block::Human,
                    ["identity", "preferences", "commitments"][rng.below(3) as usize],
                    rng.below(365) as i64,
                ),
                60..=84 => (Block::Episodes, "event", rng.below(34) as i64),
                _ => (Block::Scratch, CATEGORIES[rng.below(CATEGORIES.len() as u64) as usize], rng.below(7) as i64),
            },
        };
        out.push(Item {
            item_id: format!("m_{}", i + 1),
            block,
            text,
            category: category.into(),
            source_turn: Some(i as u32),
            created_at: now - age_days * DAY - rng.below(DAY as u64) as i64,
            updated_at: now,
            active: true,
            valid_from: None,
            valid_to: None,
            superseded_by: None,
            pinned: false,
            speaker: None,
            sources: Vec::new(),
        });
    }
    out
}

/// The policy the benchmarks run under: the defaults with a cap that does not bind, since
/// at the default of 120 the capacity rule would retire every unprotected fact of a large
/// memory, which measures nothing useful.
pub fn bench_policy(facts: usize) -> crate::model::policy::RetentionPolicy {
    crate::model::policy::RetentionPolicy { max_active_facts: Some(2 * facts), ..Default::default() }
}
