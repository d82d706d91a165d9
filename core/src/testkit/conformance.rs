//! The store conformance suite: the same checks, unchanged, for every backend. Each check
//! takes a fresh, empty store and returns a message naming what broke.
//!
//! ```
//! use nocturne_core::store::MemStore;
//! use nocturne_core::testkit::conformance;
//! for name in conformance::CHECKS {
//!     pollster::block_on(conformance::check(name, &MemStore::new())).unwrap();
//! }
//! ```

use crate::model::memory::{Block, Item, Mutation, Proposer, Refs};
use crate::model::pass::{MutationKind, PassKind};
use crate::model::policy::RetentionPolicy;
use crate::store::diff;
use crate::store::{Commit, Store};
use crate::text::order;

/// Every check, by name.
pub const CHECKS: &[&str] = &[
    "empty_store_is_empty",
    "commit_writes_versions_with_active_counts",
    "versions_are_immutable",
    "restore_reproduces_a_version_exactly_as_a_new_version",
    "restore_can_itself_be_undone",
    "nothing_is_ever_deleted",
    "diff_sorts_kept_changed_forgotten_added_and_refused",
    "storage_grows_with_changes_not_store_size",
    "mutations_get_increasing_ids_and_their_version",
    "commit_without_label_writes_no_version",
    "policy_round_trips",
    "unknown_version_is_an_error",
    "a_commit_planned_against_an_old_head_is_refused",
    "creating_an_item_that_exists_is_refused",
    "erase_rewrites_every_row_that_holds_the_words",
    "a_turn_written_where_another_writer_wrote_is_refused",
    "a_row_the_reader_refuses_is_never_written",
    "words_and_mentions_find_what_reading_everything_finds",
    "a_prompt_shortlist_keeps_the_whole_memorys_statistics",
    "a_prompt_from_the_shortlist_finds_what_reading_every_fact_finds",
];

/// A conformance check's result: `Err` names what broke.
pub type Conformance = Result<(), Broken>;

/// What a backend got wrong, in words: the check's expectation and what the backend did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken(pub String);

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Broken {}

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(Broken(format!($($msg)+)));
        }
    };
}

// After `ensure!`, which the shortlist checks use too.
mod shortlist;

use shortlist::{
    a_prompt_from_the_shortlist_finds_what_reading_every_fact_finds,
    a_prompt_shortlist_keeps_the_whole_memorys_statistics,
};
pub use shortlist::{large_memory, shortlist_statistics_agree};

fn e<E: std::fmt::Display>(err: E) -> Broken {
    Broken(err.to_string())
}

/// A fact for the checks.
pub fn fact(n: u64, block: Block, text: &str, at: i64) -> Item {
    Item {
        item_id: format!("m_{n}"),
        block,
        text: text.into(),
        category: "context".into(),
        source_turn: Some(0),
        created_at: at,
        updated_at: at,
        active: true,
        valid_from: Some(at),
        valid_to: None,
        superseded_by: None,
        pinned: false,
        speaker: None,
        sources: Vec::new(),
    }
}

fn mutation(pass: PassKind, item_id: &str, accepted: bool) -> Mutation {
    Mutation {
        id: 0,
        seq: 0,
        pass: pass.into(),
        kind: MutationKind::Forget,
        item_id: item_id.into(),
        refs: Refs::default(),
        accepted,
        reason: "test".into(),
        rejection_reason: (!accepted).then(|| "refused in a test".to_string()),
        policy: accepted.then(|| "stale".to_string()),
        proposer: Proposer::Model,
        at: 0,
    }
}

fn commit(label: &str, items: Vec<Item>) -> Commit {
    Commit { at: 1000, label: Some(label.into()), items, ..Default::default() }
}

async fn seed<S: Store>(store: &S) -> Conformance {
    let items = vec![
        fact(1, Block::Scratch, "I live in Lisbon.", 100),
        fact(2, Block::Scratch, "The kettle is broken.", 100),
        fact(3, Block::Scratch, "I keep a bearded dragon.", 100),
    ];
    store.commit(commit("turn:0", items)).await.map_err(e)?;
    Ok(())
}

fn sorted(mut items: Vec<Item>) -> Vec<Item> {
    order::sort_by(&mut items, |a, b| a.item_id.cmp(&b.item_id));
    items
}

/// Runs the check called `name` against `store`, which must be empty.
pub async fn check<S: Store>(name: &str, store: &S) -> Conformance {
    match name {
        "empty_store_is_empty" => empty_store_is_empty(store).await,
        "commit_writes_versions_with_active_counts" => commit_writes_versions_with_active_counts(store).await,
        "versions_are_immutable" => versions_are_immutable(store).await,
        "restore_reproduces_a_version_exactly_as_a_new_version" => {
            restore_reproduces_a_version_exactly_as_a_new_version(store).await
        }
        "restore_can_itself_be_undone" => restore_can_itself_be_undone(store).await,
        "nothing_is_ever_deleted" => nothing_is_ever_deleted(store).await,
        "diff_sorts_kept_changed_forgotten_added_and_refused" => {
            diff_sorts_kept_changed_forgotten_added_and_refused(store).await
        }
        "storage_grows_with_changes_not_store_size" => storage_grows_with_changes_not_store_size(store).await,
        "mutations_get_increasing_ids_and_their_version" => mutations_get_increasing_ids_and_their_version(store).await,
        "commit_without_label_writes_no_version" => commit_without_label_writes_no_version(store).await,
        "policy_round_trips" => policy_round_trips(store).await,
        "unknown_version_is_an_error" => unknown_version_is_an_error(store).await,
        "a_commit_planned_against_an_old_head_is_refused" => {
            a_commit_planned_against_an_old_head_is_refused(store).await
        }
        "creating_an_item_that_exists_is_refused" => creating_an_item_that_exists_is_refused(store).await,
        "erase_rewrites_every_row_that_holds_the_words" => erase_rewrites_every_row_that_holds_the_words(store).await,
        "a_turn_written_where_another_writer_wrote_is_refused" => {
            a_turn_written_where_another_writer_wrote_is_refused(store).await
        }
        "a_row_the_reader_refuses_is_never_written" => a_row_the_reader_refuses_is_never_written(store).await,
        "words_and_mentions_find_what_reading_everything_finds" => {
            words_and_mentions_find_what_reading_everything_finds(store).await
        }
        "a_prompt_shortlist_keeps_the_whole_memorys_statistics" => {
            a_prompt_shortlist_keeps_the_whole_memorys_statistics(store).await
        }
        "a_prompt_from_the_shortlist_finds_what_reading_every_fact_finds" => {
            a_prompt_from_the_shortlist_finds_what_reading_every_fact_finds(store).await
        }
        other => Err(Broken(format!("no conformance check is called {other}"))),
    }
}

async fn empty_store_is_empty<S: Store>(store: &S) -> Conformance {
    ensure!(store.items().await.map_err(e)?.is_empty(), "a new store has items");
    ensure!(store.versions().await.map_err(e)?.is_empty(), "a new store has versions");
    ensure!(store.meta().await.map_err(e)?.head == 0, "a new store's head is not 0");
    Ok(())
}

async fn commit_writes_versions_with_active_counts<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let mut gone = fact(2, Block::Scratch, "The kettle is broken.", 100);
    gone.active = false;
    let written = store
        .commit(Commit { markers: vec!["pass:forget:before".into()], ..commit("pass:forget:after", vec![gone]) })
        .await
        .map_err(e)?;
    ensure!(written.len() == 2, "a commit with a marker wrote {} versions, not 2", written.len());
    let versions = store.versions().await.map_err(e)?;
    let got: Vec<(u64, &str, usize, usize)> =
        versions.iter().map(|v| (v.seq, v.label.as_str(), v.active_count, v.changed)).collect();
    ensure!(
        got == [(1, "turn:0", 3, 3), (2, "pass:forget:before", 3, 0), (3, "pass:forget:after", 2, 1)],
        "versions are {got:?}"
    );
    ensure!(store.meta().await.map_err(e)?.active_count == 2, "meta.active_count is not 2");
    let blocks = store.list_blocks().await.map_err(e)?;
    ensure!(blocks.contains(&(Block::Scratch, 2)), "list_blocks says {blocks:?}");
    ensure!(store.get_block(Block::Scratch).await.map_err(e)?.len() == 2, "get_block(scratch) is not 2 items");
    Ok(())
}

async fn versions_are_immutable<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let v1 = sorted(store.items_at(1).await.map_err(e)?);
    let mut changed = fact(1, Block::Human, "I live in Lisbon.", 100);
    changed.updated_at = 2000;
    store.commit(commit("pass:promote:after", vec![changed])).await.map_err(e)?;
    store.commit(commit("more", vec![fact(4, Block::Scratch, "I like tea.", 3000)])).await.map_err(e)?;
    ensure!(sorted(store.items_at(1).await.map_err(e)?) == v1, "version 1 changed after later commits");
    let v2 = store.items_at(2).await.map_err(e)?;
    ensure!(v2.iter().any(|i| i.item_id == "m_1" && i.block == Block::Human), "version 2 lost its change");
    ensure!(v2.len() == 3, "version 2 holds an item born in version 3");
    Ok(())
}

async fn restore_reproduces_a_version_exactly_as_a_new_version<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let v1 = sorted(store.items_at(1).await.map_err(e)?);
    let mut merged = fact(1, Block::Scratch, "I live in Lisbon; the kettle is broken.", 100);
    merged.updated_at = 1500;
    let mut gone = fact(2, Block::Scratch, "The kettle is broken.", 100);
    gone.active = false;
    store.commit(commit("pass:merge:after", vec![merged, gone])).await.map_err(e)?;
    store.commit(commit("turn:2", vec![fact(4, Block::Scratch, "I like tea.", 3000)])).await.map_err(e)?;
    let restored = store.restore(1, 5000).await.map_err(e)?;
    ensure!(restored.label == "restore:v1", "restore labelled {}", restored.label);
    ensure!(restored.seq == 4, "restore is version {}, not a new version 4", restored.seq);
    ensure!(restored.active_count == 3, "restore has {} active, version 1 had 3", restored.active_count);
    let now = sorted(store.items_at(restored.seq).await.map_err(e)?);
    let (old, born_later): (Vec<Item>, Vec<Item>) =
        now.into_iter().partition(|i| v1.iter().any(|o| o.item_id == i.item_id));
    ensure!(old == v1, "restored rows differ from version 1: {old:?} vs {v1:?}");
    ensure!(born_later.iter().all(|i| !i.active), "an item born after v1 is still active after restoring v1");
    ensure!(
        sorted(store.items().await.map_err(e)?.into_iter().filter(|i| i.active).collect()) == v1,
        "live state is not version 1"
    );
    Ok(())
}

async fn restore_can_itself_be_undone<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let mut gone = fact(3, Block::Scratch, "I keep a bearded dragon.", 100);
    gone.active = false;
    store.commit(commit("pass:forget:after", vec![gone])).await.map_err(e)?;
    let v2 = sorted(store.items_at(2).await.map_err(e)?);
    let undo = store.restore(1, 3000).await.map_err(e)?;
    let redo = store.restore(2, 4000).await.map_err(e)?;
    ensure!(undo.seq == 3 && redo.seq == 4, "restores are v{} and v{}", undo.seq, redo.seq);
    ensure!(sorted(store.items_at(4).await.map_err(e)?) == v2, "undoing the undo did not give version 2 back");
    Ok(())
}

async fn nothing_is_ever_deleted<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let mut gone = fact(2, Block::Scratch, "The kettle is broken.", 100);
    gone.active = false;
    store.commit(commit("forget", vec![gone])).await.map_err(e)?;
    store.commit(commit("turn", vec![fact(4, Block::Scratch, "I like tea.", 3000)])).await.map_err(e)?;
    store.restore(1, 4000).await.map_err(e)?;
    let ids: Vec<String> = sorted(store.items().await.map_err(e)?).into_iter().map(|i| i.item_id).collect();
    ensure!(ids == ["m_1", "m_2", "m_3", "m_4"], "items after forget and restore: {ids:?}");
    ensure!(store.versions().await.map_err(e)?.len() == 4, "a version disappeared");
    Ok(())
}

async fn diff_sorts_kept_changed_forgotten_added_and_refused<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let mut promoted = fact(1, Block::Human, "I live in Lisbon.", 100);
    promoted.updated_at = 2000;
    let mut gone = fact(2, Block::Scratch, "The kettle is broken.", 100);
    gone.active = false;
    let mut promote = mutation(PassKind::Promote, "m_1", true);
    promote.kind = MutationKind::Promote;
    store
        .commit(Commit {
            mutations: vec![promote, mutation(PassKind::Forget, "m_2", true), mutation(PassKind::Forget, "m_3", false)],
            ..commit("pass:after", vec![promoted, gone, fact(4, Block::Scratch, "I like tea.", 2000)])
        })
        .await
        .map_err(e)?;
    let d = diff::diff(store, 1, 2).await.map_err(e)?;
    ensure!(d.kept == 1, "kept {} (m_3 only)", d.kept);
    ensure!(d.changed.len() == 1 && d.changed[0].after.block == Block::Human, "changed: {:?}", d.changed);
    ensure!(d.changed[0].sources.iter().any(|m| m.pass == PassKind::Promote), "the change lost its mutation");
    ensure!(d.forgotten.len() == 1 && d.forgotten[0].item.item_id == "m_2", "forgotten: {:?}", d.forgotten);
    ensure!(
        d.forgotten[0].by.as_ref().and_then(|m| m.policy.as_deref()) == Some("stale"),
        "forgotten item lacks its pass and policy"
    );
    ensure!(d.added.len() == 1 && d.added[0].item_id == "m_4", "added: {:?}", d.added);
    ensure!(d.refused.len() == 1 && d.refused[0].item_id == "m_3", "refused: {:?}", d.refused);
    let same = diff::diff(store, 2, 1).await.map_err(e)?;
    ensure!(same == d, "diff(2, 1) differs from diff(1, 2)");
    let none = diff::diff(store, 1, 1).await.map_err(e)?;
    ensure!(none.refused.is_empty() && none.changed.is_empty(), "diff of a version with itself is not empty");
    Ok(())
}

async fn storage_grows_with_changes_not_store_size<S: Store>(store: &S) -> Conformance {
    let many: Vec<Item> = (1..=500).map(|n| fact(n, Block::Scratch, &format!("fact number {n} here"), 100)).collect();
    store.commit(commit("bulk", many)).await.map_err(e)?;
    let before = store.rows_written();
    let mut changed = Vec::new();
    for n in [7, 70, 170] {
        let mut f = fact(n, Block::Scratch, &format!("fact number {n} here"), 100);
        f.active = false;
        changed.push(f);
    }
    let muts = vec![
        mutation(PassKind::Forget, "m_7", true),
        mutation(PassKind::Forget, "m_70", true),
        mutation(PassKind::Forget, "m_170", true),
    ];
    store
        .commit(Commit {
            markers: vec!["pass:forget:before".into()],
            mutations: muts,
            ..commit("pass:forget:after", changed)
        })
        .await
        .map_err(e)?;
    let rows = store.rows_written() - before;
    // 3 changed items × (live row + change row + mutation) + 2 versions + meta.
    ensure!(rows <= 3 * 3 + 3, "changing 3 of 500 items wrote {rows} rows");
    let at_two = store.items_at(3).await.map_err(e)?;
    ensure!(at_two.iter().filter(|i| i.active).count() == 497, "version 3 is not exact");
    Ok(())
}

async fn mutations_get_increasing_ids_and_their_version<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    store
        .commit(Commit {
            mutations: vec![mutation(PassKind::Forget, "m_1", false), mutation(PassKind::Forget, "m_2", false)],
            ..commit("a", vec![])
        })
        .await
        .map_err(e)?;
    store
        .commit(Commit { mutations: vec![mutation(PassKind::Forget, "m_3", false)], ..commit("b", vec![]) })
        .await
        .map_err(e)?;
    let m = store.mutations().await.map_err(e)?;
    let got: Vec<(u64, u64)> = m.iter().map(|m| (m.id, m.seq)).collect();
    ensure!(got == [(1, 2), (2, 2), (3, 3)], "mutation (id, seq) are {got:?}");
    ensure!(store.mutations_between(2, 3).await.map_err(e)?.len() == 1, "lo < seq <= hi not honoured");
    Ok(())
}

async fn commit_without_label_writes_no_version<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    store
        .commit(Commit {
            at: 5,
            mutations: vec![mutation(PassKind::Encode, "", false)],
            encoded_through: Some(4),
            ..Default::default()
        })
        .await
        .map_err(e)?;
    ensure!(store.versions().await.map_err(e)?.len() == 1, "a label-less commit wrote a version");
    let meta = store.meta().await.map_err(e)?;
    ensure!(meta.encoded_through == 4, "the encoder cursor was not stored");
    ensure!(store.mutations().await.map_err(e)?[0].seq == 1, "a label-less mutation is not attached to the head");
    let bad = store.commit(Commit { items: vec![fact(9, Block::Scratch, "x y z", 1)], ..Default::default() }).await;
    ensure!(bad.is_err(), "items without a version label were accepted");
    ensure!(store.items().await.map_err(e)?.len() == 3, "a refused commit changed the items");
    Ok(())
}

async fn policy_round_trips<S: Store>(store: &S) -> Conformance {
    let p = RetentionPolicy { max_active_facts: Some(6), stale_after_days: Some(10.0), ..Default::default() };
    store.set_policy(p.clone()).await.map_err(e)?;
    ensure!(store.meta().await.map_err(e)?.policy == p, "the policy did not round-trip");
    let bad = RetentionPolicy { similarity_threshold: 1.5, ..Default::default() };
    ensure!(store.set_policy(bad).await.is_err(), "an impossible threshold was stored");
    Ok(())
}

async fn unknown_version_is_an_error<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    ensure!(store.restore(9, 1).await.is_err(), "restoring v9 of a 1-version store succeeded");
    ensure!(diff::diff(store, 1, 9).await.is_err(), "diffing against v9 succeeded");
    Ok(())
}

async fn a_commit_planned_against_an_old_head_is_refused<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let head = store.meta().await.map_err(e)?.head;
    let before = store.items().await.map_err(e)?;
    let mut moved = before[0].clone();
    moved.block = Block::Human;
    let stale = Commit { base: Some(head - 1), ..commit("pass:promote:after", vec![moved.clone()]) };
    match store.commit(stale).await {
        Err(crate::store::StoreError::Conflict { planned_at, now_at }) => {
            ensure!(planned_at == head - 1 && now_at == head, "conflict says v{planned_at}/v{now_at}");
        }
        other => {
            return Err(Broken(format!("a commit planned at an old head was not refused as a conflict: {other:?}")))
        }
    }
    ensure!(store.items().await.map_err(e)? == before, "a refused commit changed the items");
    ensure!(store.meta().await.map_err(e)?.head == head, "a refused commit moved the head");
    let fresh = Commit { base: Some(head), ..commit("pass:promote:after", vec![moved]) };
    ensure!(store.commit(fresh).await.is_ok(), "a commit planned at the current head was refused");
    Ok(())
}

async fn creating_an_item_that_exists_is_refused<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let before = store.items().await.map_err(e)?;
    let clash = fact(1, Block::Scratch, "a new fact that reuses an old id", 5);
    let result = store.commit(Commit { created: vec![clash], ..commit("turn:9", vec![]) }).await;
    ensure!(matches!(&result, Err(crate::store::StoreError::Invalid(m)) if m.contains("m_1")), "{result:?}");
    ensure!(store.items().await.map_err(e)? == before, "an insert overwrote an existing item");
    let new = fact(99, Block::Scratch, "a new fact", 5);
    ensure!(
        store.commit(Commit { created: vec![new], ..commit("turn:9", vec![]) }).await.is_ok(),
        "a new id was refused"
    );
    Ok(())
}

async fn erase_rewrites_every_row_that_holds_the_words<S: Store>(store: &S) -> Conformance {
    use crate::model::memory::{AnswerStyle, MemoryUse, Role, Turn};
    let turn = |index: u32, role: Role, text: &str| Turn {
        index,
        role,
        text: text.into(),
        at: 100,
        speaker: None,
        memory: None,
        source: None,
        provenance: None,
    };
    // A reply keeps the memory it drew on: the facts its prompt carried and those it cited.
    let used = MemoryUse {
        used: vec!["m_1".into(), "m_2".into()],
        left_out: 3,
        cited: vec!["m_1".into()],
        style: AnswerStyle::Choose,
    };
    store
        .commit(Commit {
            turns: vec![
                turn(0, Role::User, "My door code is 4417. I keep a bearded dragon."),
                Turn { memory: Some(used.clone()), ..turn(1, Role::Assistant, "Noted: your door code is 4417.") },
            ],
            encoded_through: Some(2),
            ..commit(
                "turn:0",
                vec![
                    fact(1, Block::Scratch, "My door code is 4417.", 100),
                    fact(2, Block::Scratch, "I keep a bearded dragon.", 100),
                ],
            )
        })
        .await
        .map_err(e)?;
    let kept = store.transcript().await.map_err(e)?;
    ensure!(
        kept.get(1).and_then(|t| t.memory.as_ref()) == Some(&used),
        "the reply's memory use was not kept: {kept:?}"
    );
    store
        .commit(commit("pass:promote:after", vec![fact(1, Block::Human, "My door code is 4417.", 100)]))
        .await
        .map_err(e)?;
    let erased = crate::flow::edit::erase(store, "m_1", 2000).await.map_err(e)?;
    ensure!(erased.item_ids == ["m_1"], "erased {:?}", erased.item_ids);
    let doc = store.document().await.map_err(e)?.to_json();
    ensure!(!doc.contains("4417") && !doc.contains("door"), "a row still holds the erased words");
    ensure!(doc.contains("I keep a bearded dragon."), "the unrelated fact or its sentence was erased too");
    let live = store.items().await.map_err(e)?;
    ensure!(live.iter().any(|i| i.item_id == "m_2" && i.active), "the unrelated fact is no longer active");
    let versions = store.versions().await.map_err(e)?;
    ensure!(versions.last().is_some_and(|v| v.label == "user:erase"), "no tombstone version");
    let at_first = store.items_at(versions[0].seq).await.map_err(e)?;
    ensure!(at_first.iter().all(|i| !i.text.contains("4417")), "an old version brings the words back");
    Ok(())
}

/// Two writers that read the same transcript both plan turn N; a turn with no fact moves
/// no head, so only the turn count tells the second one it is late. Its turn must not take
/// the first one's place. (An imported turn's source id is kept as written.)
async fn a_turn_written_where_another_writer_wrote_is_refused<S: Store>(store: &S) -> Conformance {
    use crate::model::memory::{Role, Turn};
    let turn = |index: u32, text: &str| Turn {
        index,
        role: Role::User,
        text: text.into(),
        at: 100,
        speaker: None,
        memory: None,
        source: Some(format!("chatgpt:c-1:{index}")),
        provenance: None,
    };
    let head = store.meta().await.map_err(e)?.head;
    let first = Commit { turns: vec![turn(0, "Hello from the first tab.")], base: Some(head), ..Default::default() };
    store.commit(first).await.map_err(e)?;
    ensure!(store.turn_count().await.map_err(e)? == 1, "the turn count is not 1");
    let late = Commit { turns: vec![turn(0, "Hello from the second tab.")], base: Some(head), ..Default::default() };
    let result = store.commit(late).await;
    ensure!(matches!(result, Err(crate::store::StoreError::Conflict { .. })), "a turn written over turn 0: {result:?}");
    let kept = store.transcript().await.map_err(e)?;
    ensure!(
        kept.len() == 1 && kept[0].text == "Hello from the first tab.",
        "the first writer's turn was lost: {kept:?}"
    );
    ensure!(kept[0].source.as_deref() == Some("chatgpt:c-1:0"), "the source id was not kept: {:?}", kept[0].source);
    let next = Commit { turns: vec![turn(1, "Hello again.")], base: Some(head), ..Default::default() };
    ensure!(store.commit(next).await.is_ok(), "a turn that continues the transcript was refused");
    ensure!(store.turn_count().await.map_err(e)? == 2, "the turn count is not 2");
    Ok(())
}

/// A fact or a turn longer than a memory may hold is refused by the commit, which writes
/// nothing: the writer checks what the reader of the memory checks.
async fn a_row_the_reader_refuses_is_never_written<S: Store>(store: &S) -> Conformance {
    use crate::model::memory::{Role, Turn};
    use crate::store::document::{MAX_FACT_CHARS, MAX_TURN_CHARS};
    seed(store).await?;
    let before = store.document().await.map_err(e)?;
    let long = "a long pasted email ".repeat(MAX_FACT_CHARS / 19);
    let mut corrected = fact(1, Block::Scratch, &long, 100);
    corrected.updated_at = 2000;
    let result = store.commit(commit("user:correct", vec![corrected])).await;
    ensure!(matches!(&result, Err(crate::store::StoreError::Invalid(m)) if m.contains("m_1 holds")), "{result:?}");
    let turn = Turn {
        index: 0,
        role: Role::User,
        text: "é".repeat(MAX_TURN_CHARS + 1),
        at: 100,
        speaker: None,
        memory: None,
        source: None,
        provenance: None,
    };
    let result = store.commit(Commit { turns: vec![turn], ..Default::default() }).await;
    ensure!(matches!(&result, Err(crate::store::StoreError::Invalid(m)) if m.contains("turn 0 holds")), "{result:?}");
    let after = store.document().await.map_err(e)?;
    ensure!(after == before, "a refused commit changed the memory");
    ensure!(after.check().is_ok(), "the memory no longer reads back: {:?}", after.check());
    let fits = fact(4, Block::Scratch, &"x".repeat(MAX_FACT_CHARS), 100);
    ensure!(store.commit(commit("turn:1", vec![fits])).await.is_ok(), "a fact of exactly the limit was refused");
    Ok(())
}

/// A backend's words index and log index (`items_holding`, `mutations_about`) answer
/// exactly what reading every item and the whole log answers — after a fact's words
/// change (the old words must stop finding it), a merge and a supersession (the log
/// entries name other facts than their own).
async fn words_and_mentions_find_what_reading_everything_finds<S: Store>(store: &S) -> Conformance {
    seed(store).await?;
    let mut merged = fact(1, Block::Scratch, "I live in Porto with a bearded dragon.", 100);
    merged.updated_at = 2000;
    let mut gone = fact(3, Block::Scratch, "I keep a bearded dragon.", 100);
    gone.active = false;
    let mut merge = mutation(PassKind::Merge, "m_1", true);
    merge.kind = MutationKind::Merge;
    merge.refs.from_ids = vec!["m_1".into(), "m_3".into()];
    let mut supersede = mutation(PassKind::Supersede, "m_2", true);
    supersede.kind = MutationKind::Supersede;
    supersede.refs.superseded_by = Some("m_4".into());
    store
        .commit(Commit {
            mutations: vec![merge, supersede, mutation(PassKind::Forget, "m_2", false)],
            ..commit("pass:merge:after", vec![merged, gone, fact(4, Block::Scratch, "The kettle is fixed.", 3000)])
        })
        .await
        .map_err(e)?;
    let items = store.items().await.map_err(e)?;
    for words in [&["lisbon"][..], &["porto"], &["kettl"], &["bear", "dragon"], &["dragon", "porto"], &["tea"]] {
        // The words as the store's tokenizer makes them, so the check does not depend on the stemmer.
        let tokens: Vec<String> = words.iter().flat_map(|w| crate::text::textmath::content_tokens(w)).collect();
        let want: Vec<&Item> = items.iter().filter(|i| crate::store::search::holds(i, &tokens)).collect();
        let got = store.items_holding(&tokens).await.map_err(e)?;
        ensure!(got.iter().collect::<Vec<_>>() == want, "items holding {tokens:?}: {got:?}, reading all: {want:?}");
    }
    ensure!(
        store.items_holding(&["lisbon".into()]).await.map_err(e)?.is_empty(),
        "a fact's old words still find it after its text changed"
    );
    let log = store.mutations().await.map_err(e)?;
    for ids in [vec!["m_3".to_string()], vec!["m_4".into()], vec!["m_2".into(), "m_1".into()], vec!["m_9".into()]] {
        let want: Vec<&crate::model::memory::Mutation> =
            log.iter().filter(|m| m.names().any(|n| ids.iter().any(|i| i == n))).collect();
        let got = store.mutations_about(&ids).await.map_err(e)?;
        ensure!(got.iter().collect::<Vec<_>>() == want, "the log about {ids:?}: {got:?}, reading all: {want:?}");
    }
    Ok(())
}
