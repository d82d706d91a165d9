//! The engine's candidate search on memories built to break it (`testkit::adversarial`):
//! its work stays linear in the memory, what its bounds leave is counted, the pairs that
//! matter are still found, and with no bounds it would not stay linear (the planted
//! fault, so the bound checked here can fail).

use nocturne_core::flow::pair_search::{self, Bounds, Work};
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::model::DAY;
use nocturne_core::store::{Commit, MemStore, Store};
use nocturne_core::testkit::adversarial::{self, Shape, Silent};
use nocturne_core::testkit::synth;
use nocturne_core::text::textmath;

const NOW: i64 = 1_767_225_600;
const FACTS: usize = 3_000;
/// Index entries and pairs a deep search may examine per fact: the bounds' own scale
/// (1,024 entries for duplicates, 256 per conflict basis), far below the 3,000 a fact
/// would meet with none.
const PER_FACT: u64 = 700;

fn deep_search(items: &[Item], bounds: &Bounds) -> Work {
    let active: Vec<&Item> = items.iter().collect();
    let policy = synth::bench_policy(items.len());
    let mut work = Work::default();
    work.add(pair_search::duplicates(&active, policy.similarity_threshold, bounds).1);
    work.add(pair_search::conflicts(&active, &policy, &[], None, bounds).1);
    work.add(pair_search::merges(&active, &policy, None, bounds).1);
    work
}

#[test]
fn regression_a_memory_that_repeats_itself_costs_linear_work_and_says_what_it_left() {
    for shape in Shape::ALL {
        let items = adversarial::facts(shape, FACTS, 1, NOW, 5);
        let work = deep_search(&items, &Bounds::default());
        assert!(work.examined <= PER_FACT * FACTS as u64, "{}: {} examined", shape.name(), work.examined);
        assert!(work.left > 0, "{}: every one of these memories meets a bound, and says so", shape.name());
    }
    // The planted fault: the same search with no bounds is quadratic on one of them.
    let items = adversarial::facts(Shape::OneSlot, FACTS, 1, NOW, 5);
    let unbounded = deep_search(&items, &Bounds::NONE);
    assert!(unbounded.examined > PER_FACT * FACTS as u64, "{} examined", unbounded.examined);
    assert_eq!(unbounded.left, 0);
}

#[test]
fn one_statement_said_thousands_of_times_still_yields_its_duplicates_and_its_change() {
    let mut items = adversarial::facts(Shape::OneSlot, FACTS, 1, NOW, 5);
    let mut moved = Item::new_fact(FACTS as u64 + 1, Block::Human, "identity", "I now live in Reykjavik.", NOW + DAY);
    moved.source_turn = None;
    items.push(moved);
    let active: Vec<&Item> = items.iter().collect();
    let policy = RetentionPolicy { max_active_facts: Some(10 * FACTS), ..Default::default() };
    let bounds = Bounds::default();
    let (dups, _) = pair_search::duplicates(&active, policy.similarity_threshold, &bounds);
    // "I now live in Ghent." has the same content tokens: one group with the plain copies.
    let ghent = textmath::content_tokens("I live in Ghent.");
    let in_group = |id: &str| active.iter().any(|i| i.item_id == id && textmath::content_tokens(&i.text) == ghent);
    let group = items.iter().filter(|i| textmath::content_tokens(&i.text) == ghent).count();
    assert!(group > bounds.pairs.partners + 1, "the test needs a group larger than the bound");
    let drops: std::collections::HashSet<&str> =
        dups.iter().filter(|d| in_group(&d.drop_id)).map(|d| d.drop_id.as_str()).collect();
    assert_eq!(drops.len(), group - 1, "every copy but one keeper is paired with a keeper");
    let (conflicts, _) = pair_search::conflicts(&active, &policy, &[], None, &bounds);
    let newest = format!("m_{}", FACTS + 1);
    assert!(conflicts.iter().any(|c| c.new_id == newest), "the move to Reykjavik replaces an older city");
    // Each fact: its nearest slot-mates on either side, and its most similar for a stated change.
    assert!(conflicts.len() <= (FACTS + 1) * 3 * bounds.conflict_partners, "{} conflict candidates", conflicts.len());
}

#[test]
fn a_day_on_each_adversarial_memory_is_an_incremental_sleep_of_bounded_work() {
    for shape in Shape::ALL {
        let store = MemStore::new();
        let items = adversarial::facts(shape, FACTS, 1, NOW, 5);
        pollster::block_on(store.commit(Commit { at: NOW, label: Some("seed".into()), items, ..Default::default() }))
            .unwrap();
        pollster::block_on(store.set_policy(synth::bench_policy(FACTS + 100))).unwrap();
        pollster::block_on(sleep::sleep(&store, &Silent, &SleepOptions::new(NOW).deep(), &mut |_| {})).unwrap();
        let next = pollster::block_on(store.meta()).unwrap().next_item as usize;
        let day = adversarial::facts(shape, 100, next, NOW + DAY, 6);
        pollster::block_on(store.commit(Commit {
            at: NOW + DAY,
            label: Some("day".into()),
            created: day,
            ..Default::default()
        }))
        .unwrap();
        let report =
            pollster::block_on(sleep::sleep(&store, &Silent, &SleepOptions::new(NOW + DAY).dry(), &mut |_| {}))
                .unwrap();
        assert_eq!(report.fresh, Some(100), "{}", shape.name());
        let examined: u64 = report.passes.iter().map(|p| p.search.examined).sum();
        // Dedupe covers the whole memory (the engine's duplicate rule); the other passes only the day.
        assert!(examined <= 1_100 * FACTS as u64 + 2_000 * 100, "{}: {examined} examined", shape.name());
    }
}

#[test]
fn regression_a_statement_said_fifty_times_is_deduplicated_in_one_sleep_without_a_model() {
    // The engine's duplicate rule once took one drop per keeper per Sleep: fifty Sleeps.
    let store = MemStore::new();
    let items: Vec<Item> =
        (1..=50).map(|n| Item::new_fact(n, Block::Human, "preferences", "I keep a cat.", NOW - n as i64)).collect();
    pollster::block_on(store.commit(Commit { at: NOW, label: Some("seed".into()), items, ..Default::default() }))
        .unwrap();
    let report = pollster::block_on(sleep::sleep(&store, &Silent, &SleepOptions::new(NOW), &mut |_| {})).unwrap();
    assert_eq!(report.active_after, 1, "{} left active", report.active_after);
    let dedupe = &report.passes[0];
    assert_eq!(dedupe.event.enforced, 49);
    assert!(dedupe.mutations.iter().filter(|m| m.accepted).all(|m| m.refs.duplicate_of.as_deref() == Some("m_50")));
}
