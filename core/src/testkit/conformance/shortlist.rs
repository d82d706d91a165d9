//! The shortlist checks of the conformance suite, on a large memory: a store that hands a
//! chat prompt a shortlist of its facts keeps the whole memory's statistics as facts change,
//! and the prompt built from it finds what reading every fact finds.

use super::{commit, e, sorted, Broken, Conformance};
use crate::model::memory::Item;
use crate::store::{Commit, Store};
use crate::text::order;

/// The clock of the large memory the shortlist checks write.
const LARGE_AT: i64 = 1_767_225_600;

/// A memory past the floor above which a store that indexes its facts hands a chat prompt a
/// shortlist (`Store::prompt_shortlist`): lifetime facts (every fiftieth said by Ana),
/// planted ones and the conversation they came from, written by the store's own commits —
/// a seed, then some facts retired and some reworded — so its indexes were kept as facts
/// changed, not only built. Returns the planted facts' probes.
pub async fn large_memory<S: Store>(store: &S) -> Result<Vec<crate::testkit::lifetime::Probe>, Broken> {
    use crate::testkit::lifetime;
    let planted = lifetime::plant(12, 1_301, LARGE_AT);
    let mut items = lifetime::memory(1_300, LARGE_AT, 7);
    for item in items.iter_mut().filter(|i| i.ordinal() % 50 == 0) {
        item.speaker = Some("Ana".into());
    }
    items.extend(planted.facts.clone());
    let (turns, encoded_through) = lifetime::transcript(&items);
    for (item, n) in items.iter_mut().zip(0..) {
        item.source_turn = Some(2 * n);
    }
    store
        .commit(Commit {
            at: LARGE_AT,
            label: Some("seed".into()),
            items,
            turns,
            encoded_through,
            ..Default::default()
        })
        .await
        .map_err(e)?;
    let mut changed: Vec<Item> = sorted(store.items().await.map_err(e)?).into_iter().skip(40).take(60).collect();
    for (n, item) in changed.iter_mut().enumerate() {
        if n % 2 == 0 {
            item.active = false;
        } else {
            item.text = format!("{} Also a harpsichord.", item.text);
            item.speaker = Some("Bo".into());
        }
    }
    store.commit(commit("edits", changed)).await.map_err(e)?;
    Ok(planted.probes)
}

/// The roots a question is matched by, as a chat prompt asks the store for them.
fn asked_roots(question: &str) -> Vec<String> {
    crate::store::retrieval::asked(question).into_iter().map(|(t, _)| t).collect()
}

/// A store's shortlist for a large memory ranks its facts with the whole memory's
/// statistics — its active facts, their mean number of roots, each asked root's document
/// frequency (own words or around them), its speakers — kept exactly as facts are retired
/// and reworded, and again after the whole memory is written at once (`replace_all`: an
/// erase, a sync); it offers only active facts. A store that reads every fact (no
/// shortlist) passes as it is.
pub(super) async fn a_prompt_shortlist_keeps_the_whole_memorys_statistics<S: Store>(store: &S) -> Conformance {
    let probes = large_memory(store).await?;
    let mut questions: Vec<String> = probes.iter().map(|p| p.question.clone()).collect();
    questions.extend(["Also a harpsichord?".to_string(), "What did Ana say?".into()]);
    for round in ["kept as facts changed", "after the whole memory was written at once"] {
        shortlist_statistics_agree(store, &questions).await.map_err(|e| Broken(format!("{round}: {e}")))?;
        let head = store.meta().await.map_err(e)?.head;
        let doc = store.document().await.map_err(e)?;
        store.replace_all(doc, head).await.map_err(e)?;
    }
    Ok(())
}

/// Whether `store`'s shortlist for each of `questions` (and for the words of some retired
/// facts, whose roots must have left its index) carries the whole memory's statistics as
/// reading every fact and turn finds them, offers only active facts and the turns they were
/// said in. A store that reads every fact (no shortlist) passes as it is. For a memory
/// written before (a store's index made again when an older layout is opened).
pub async fn shortlist_statistics_agree<S: Store>(store: &S, questions: &[String]) -> Conformance {
    use crate::store::retrieval::{context_turns, fact_terms};
    let items: Vec<Item> = store.items().await.map_err(e)?;
    let transcript = store.transcript().await.map_err(e)?;
    let active: Vec<&Item> = items.iter().filter(|i| i.active).collect();
    let around = |i: &Item| -> Vec<&crate::model::memory::Turn> {
        transcript.iter().filter(|t| i.source_turn.is_some_and(|s| context_turns(s).contains(&t.index))).collect()
    };
    let terms: Vec<_> = active.iter().map(|i| fact_terms(i, &around(i))).collect();
    let avg = terms.iter().map(|(own, _)| own.len()).sum::<usize>() as f64 / active.len().max(1) as f64;
    let mut speakers: Vec<String> = active.iter().filter_map(|i| i.speaker.clone()).collect();
    order::sort(&mut speakers);
    speakers.dedup();
    let retired = items.iter().filter(|i| !i.active).take(5).map(|i| i.text.clone());
    for question in questions.iter().cloned().chain(retired) {
        let asked = asked_roots(&question);
        let Some(c) = store.prompt_shortlist(&asked).await.map_err(e)? else { return Ok(()) };
        ensure!(c.corpus.facts == active.len(), "{} active facts, not {}", c.corpus.facts, active.len());
        let close = (c.corpus.avg_len - avg).abs() < 1e-9;
        ensure!(close, "mean length {} against {avg}", c.corpus.avg_len);
        for root in &asked {
            let df: usize =
                terms.iter().map(|(o, x)| usize::from(o.contains(root)) + usize::from(x.contains(root))).sum();
            ensure!(
                c.corpus.df.get(root) == Some(&df),
                "{root} in {question:?} has df {:?}, not {df}",
                c.corpus.df.get(root)
            );
        }
        ensure!(c.corpus.speakers == speakers, "speakers {:?}, not {speakers:?}", c.corpus.speakers);
        ensure!(c.items.iter().all(|i| i.active), "a retired fact is a candidate");
        let held: std::collections::HashSet<u32> = c.turns.iter().map(|t| t.index).collect();
        let lacking: Vec<u32> =
            c.items.iter().filter_map(|i| i.source_turn).filter(|t| !held.contains(t)).take(3).collect();
        ensure!(lacking.is_empty(), "the turns {lacking:?} the candidates were said in are missing");
    }
    Ok(())
}

/// The prompt a chat turn builds from a store's shortlist of a large memory holds the
/// answers the prompt built from every fact holds, and mostly the same facts; it counts
/// every fact it left out. A store that reads every fact (no shortlist) passes as it is.
pub(super) async fn a_prompt_from_the_shortlist_finds_what_reading_every_fact_finds<S: Store>(
    store: &S,
) -> Conformance {
    use crate::llm::context::{PromptIndex, Selection};
    use crate::testkit::lifetime::ProbeKind;
    let probes = large_memory(store).await?;
    let policy = store.meta().await.map_err(e)?.policy;
    let now = LARGE_AT + 2 * crate::model::DAY;
    let items = store.items().await.map_err(e)?;
    let mut all: Vec<&Item> = items.iter().filter(|i| i.active).collect();
    order::sort_by_key(&mut all, |i| (i.block, i.ordinal()));
    let transcript = store.transcript().await.map_err(e)?;
    let full = PromptIndex::new(&all, &policy, now).with_context(&transcript);
    let budget = crate::llm::provider::DEFAULT_MEMORY_TOKENS;
    let (mut lost, mut by_reading, mut overlap) = (Vec::new(), 0, 0.0);
    let answered: Vec<_> = probes.iter().filter(|p| p.kind != ProbeKind::Absent).collect();
    for probe in &answered {
        let Some(c) = store.prompt_shortlist(&asked_roots(&probe.question)).await.map_err(e)? else { return Ok(()) };
        let mut some = c.items;
        order::sort_by_key(&mut some, |i| (i.block, i.ordinal()));
        let refs: Vec<&Item> = some.iter().collect();
        let part = PromptIndex::new(&refs, &policy, now).with_context(&c.turns).with_corpus(c.corpus);
        let (a, b) = (full.select(&probe.question, budget), part.select(&probe.question, budget));
        let holds = |s: &Selection<'_>| s.facts.iter().any(|i| i.text.contains(&probe.value));
        if holds(&a) && !holds(&b) {
            lost.push(probe.question.clone());
        }
        by_reading += usize::from(holds(&a));
        let ids = |s: &Selection<'_>| -> std::collections::HashSet<String> {
            s.facts.iter().map(|i| i.item_id.clone()).collect()
        };
        let (x, y) = (ids(&a), ids(&b));
        overlap += x.intersection(&y).count() as f64 / x.union(&y).count().max(1) as f64;
        ensure!(b.left_out + b.facts.len() == all.len(), "the left-out count is not the whole memory's");
    }
    let overlap = overlap / answered.len() as f64;
    ensure!(by_reading > answered.len() / 2, "the setup: reading every fact finds {by_reading} answers");
    ensure!(lost.is_empty(), "the shortlist lost answers reading every fact found: {lost:?}");
    let similar = overlap >= 0.8;
    ensure!(similar, "the prompts differ: mean overlap {overlap:.3}");
    Ok(())
}
