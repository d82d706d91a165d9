//! Memories built to break a candidate search, for `nocturne bench-candidates` and its
//! tests: every fact from a handful of words, one slot said over and over, one person
//! named in every fact. The benchmarks' own memories (`synth`, `lifetime`) never show
//! what these do: nearly every pair of facts shares most of its words.

use crate::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use crate::model::memory::{Block, Item};
use crate::model::DAY;
use crate::testkit::synth::Rng;

/// The shape of an adversarial memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `I repaired the thesis with Bolt in Bruges on day 9999.`: four verbs, four
    /// things, four names, four cities, and the day.
    FewWords,
    /// `I live in Porto.`, said 10,000 times over a dozen cities, one in ten with `now`.
    OneSlot,
    /// `Melanie painted the kalo17 with the mire3.`: one name in every fact.
    SamePerson,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::FewWords, Shape::OneSlot, Shape::SamePerson];

    /// The shape's name in benchmark output.
    pub fn name(self) -> &'static str {
        match self {
            Shape::FewWords => "few-words",
            Shape::OneSlot => "one-slot",
            Shape::SamePerson => "same-person",
        }
    }
}

const VERBS: &[&str] = &["repaired", "painted", "cleaned", "moved"];
const THINGS: &[&str] = &["thesis", "bike", "desk", "lamp"];
const NAMES: &[&str] = &["Bolt", "Ana", "Rui", "Mia"];
const CITIES: &[&str] =
    &["Bruges", "Ghent", "Porto", "Lyon", "Turin", "Leeds", "Graz", "Split", "Cork", "Bergen", "Tartu", "Brno"];

fn pick<'a>(rng: &mut Rng, list: &[&'a str]) -> &'a str {
    list[rng.below(list.len() as u64) as usize]
}

fn text(shape: Shape, rng: &mut Rng, n: usize, vocab: u64) -> String {
    match shape {
        Shape::FewWords => format!(
            "I {} the {} with {} in {} on day {n}.",
            pick(rng, VERBS),
            pick(rng, THINGS),
            pick(rng, NAMES),
            pick(rng, CITIES)
        ),
        Shape::OneSlot => {
            let now = if rng.below(10) == 0 { " now" } else { "" };
            format!("I{now} live in {}.", pick(rng, CITIES))
        }
        Shape::SamePerson => {
            let word =
                |rng: &mut Rng| format!("{}{}", pick(rng, &["ka", "lo", "mi", "re", "ta", "vo"]), rng.below(vocab));
            format!("Melanie {} the {} with the {}.", pick(rng, VERBS), word(rng), word(rng))
        }
    }
}

/// `count` facts of `shape` with ids from `m_{first}`, said over the year before `now`
/// (the last of them the newest), spread over the blocks as a slept memory's would be:
/// half in human, a quarter in episodes, the rest in scratch.
pub fn facts(shape: Shape, count: usize, first: usize, now: i64, seed: u64) -> Vec<Item> {
    let mut rng = Rng::new(seed);
    let vocab = (count as u64 * 2).max(500);
    (0..count)
        .map(|k| {
            let n = first + k;
            let (block, category) = match (shape, rng.below(4)) {
                // A slot is a durable fact about a person: every copy is identity.
                (Shape::OneSlot, _) => (Block::Human, "identity"),
                (_, 0 | 1) => (Block::Human, "preferences"),
                (_, 2) => (Block::Episodes, "event"),
                _ => (Block::Scratch, "context"),
            };
            let age = ((count - k) as i64 * 365 * DAY) / count.max(1) as i64;
            Item::new_fact(n as u64, block, category, &text(shape, &mut rng, n, vocab), now - age)
        })
        .collect()
}

/// A model that proposes nothing: every pass gets an empty list, every chat the same
/// line. What a stub endpoint does — so a Sleep's cost is the engine's alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Provider for Silent {
    fn label(&self) -> String {
        "silent (proposes nothing)".into()
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        let text = match request.task {
            Task::Propose(pass) => format!("{{\"{}\":[]}}", pass.proposal_key()),
            Task::Chat => "Nothing to add.".into(),
            Task::QuizQuestion => "{\"question\":\"What do you remember?\"}".into(),
        };
        Ok(Completion { text, prompt_tokens: 0, completion_tokens: 0, truncated: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::textmath::content_tokens;

    #[test]
    fn each_shape_is_what_it_says() {
        let few = facts(Shape::FewWords, 200, 1, 0, 1);
        let words: std::collections::BTreeSet<String> =
            few.iter().flat_map(|i| content_tokens(&i.text)).filter(|t| !t.starts_with(char::is_numeric)).collect();
        assert!(words.len() <= 25, "{words:?}");
        let slot = facts(Shape::OneSlot, 200, 1, 0, 1);
        assert!(slot.iter().all(|i| i.text.contains("live in") && i.block == Block::Human));
        assert!(slot.iter().any(|i| i.text.contains(" now ")));
        let person = facts(Shape::SamePerson, 200, 1, 0, 1);
        assert!(person.iter().all(|i| i.text.starts_with("Melanie ")));
        assert_eq!(few[199].item_id, "m_200");
        assert!(few[0].created_at < few[199].created_at);
    }
}
