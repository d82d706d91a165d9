//! `nocturne bench-answers FILE`: what a model does with the memory it is given, on a
//! real long conversation (LoCoMo). The conversation is kept as `bench-conversation`
//! keeps it (the chat path, offline encoder, a Sleep per session, nothing forgotten);
//! then a sample of questions — evenly spaced over categories 1–4 — is answered through
//! the chat's own `answer` with the provider given, and each answer is classed by what it
//! cited: a fact derived from one of the question's evidence turns, nothing (abstained),
//! or something else. How often the prompt held the evidence at all is printed beside.

use crate::conversation::{self, Ingested, Keep};
use crate::error::CliError;
use nocturne_core::flow::chat;
use nocturne_core::llm::context::PromptIndex;
use nocturne_core::llm::provider::{Provider, ProviderError};
use nocturne_core::model::memory::Item;
use nocturne_core::store::{lineage, Store};
use nocturne_core::testkit::locomo;
use nocturne_core::text::order;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What the answers cited, over the sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Classes {
    pub questions: usize,
    /// The prompt held a fact derived from an evidence turn.
    pub offered: usize,
    /// The answer cited such a fact.
    pub evidence: usize,
    /// The answer cited nothing, or said it does not have that.
    pub abstained: usize,
    /// The answer cited only facts from other turns.
    pub other: usize,
    /// Citations the gate refused (ids outside the prompt).
    pub refused: usize,
    /// Replies that could not be read (the error is printed; the question counts here).
    pub unreadable: usize,
    /// Replies that cited the first fact offered (the one the retrieval ranked best).
    pub first: usize,
}

impl Classes {
    /// The line to grep.
    pub fn line(&self, provider: &str, seconds: f64) -> String {
        let share = |n: usize| format!("{:.3}", n as f64 / self.questions.max(1) as f64);
        format!(
            "answers: provider={provider:?} n={} evidenceCited={} abstained={} otherCited={} unreadable={} firstOffered={} evidenceOffered={} refusedCitations={} seconds={seconds:.0}",
            self.questions,
            share(self.evidence),
            share(self.abstained),
            share(self.other),
            share(self.unreadable),
            share(self.first),
            share(self.offered),
            self.refused
        )
    }
}

/// `n` questions with evidence, of categories 1–4, evenly spaced through the file.
pub fn sample(questions: &[locomo::Question], n: usize) -> Vec<&locomo::Question> {
    let pool: Vec<&locomo::Question> =
        questions.iter().filter(|q| !q.evidence.is_empty() && (1..=4).contains(&q.category)).collect();
    if pool.len() <= n {
        return pool;
    }
    (0..n).map(|k| pool[k * pool.len() / n]).collect()
}

/// Keeps the conversation in `file`, then answers a sample of `n` questions with `provider`.
pub fn run<P: Provider>(file: &Path, n: usize, provider: &P) -> Result<Classes, CliError> {
    let json = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let c = locomo::read(&json).map_err(|e| format!("{}: {e}", file.display()))?;
    let Ingested { store, dia_of, now, policy } = conversation::ingest(&c, Keep::Everything)?;
    use pollster::block_on as block;
    let items = block(store.items()).map_err(|e| e.to_string())?;
    let log = block(store.mutations()).map_err(|e| e.to_string())?;
    let transcript = block(store.transcript()).map_err(|e| e.to_string())?;
    let by_id: HashMap<&str, &Item> = items.iter().map(|i| (i.item_id.as_str(), i)).collect();
    let mut active: Vec<&Item> = items.iter().filter(|i| i.active).collect();
    order::sort_by_key(&mut active, |i| (i.block, i.ordinal()));
    let index = PromptIndex::new(&active, &policy, now).with_context(&transcript);
    let mut out = Classes::default();
    for (k, q) in sample(&c.questions, n).into_iter().enumerate() {
        out.questions += 1;
        let reply = match block(chat::answer(provider, &index, &[], &q.question, &mut |_| {})) {
            Ok(reply) => reply,
            // A reply that could not be read is a figure; an unreachable model ends the run.
            Err(e @ ProviderError::BadResponse(_)) => {
                eprintln!("[{}/{}] c{} {:?}: {e}", k + 1, n, q.category, q.question);
                out.unreadable += 1;
                continue;
            }
            Err(e) => return Err(format!("question {} ({:?}): {e}", k + 1, q.question).into()),
        };
        let wanted: HashSet<&str> = q.evidence.iter().map(String::as_str).collect();
        let from_evidence = |id: &String| {
            lineage::derived_turns(id, &by_id, &log)
                .iter()
                .any(|t| dia_of.get(t).is_some_and(|d| wanted.contains(d.as_str())))
        };
        out.offered += reply.memory.used.iter().any(from_evidence) as usize;
        out.refused += reply.refused.len();
        out.first +=
            (!reply.memory.cited.is_empty() && reply.memory.cited.first() == reply.memory.used.first()) as usize;
        let abstained = reply.memory.cited.is_empty() || nocturne_core::proof::quiz::says_absent(&reply.text);
        if reply.memory.cited.iter().any(from_evidence) {
            out.evidence += 1;
        } else if abstained {
            out.abstained += 1;
        } else {
            out.other += 1;
        }
        eprintln!(
            "[{}/{}] c{} {:?} -> {:?} cited {:?}",
            k + 1,
            n,
            q.category,
            q.question,
            reply.text.chars().take(100).collect::<String>(),
            reply.memory.cited
        );
    }
    Ok(out)
}
