//! `bench-conversation --sleep-audit`: every supersession and merge the Sleeps accepted on a
//! conversation, printed with the facts' words so a person can judge each one, and the
//! share of them a labels file (`bench/locomo-sleep-audit.tsv`) marks right. A label is
//! keyed by the conversation, the pass and the facts' words, so it survives a run that
//! numbers the facts differently.

use crate::error::CliError;
use nocturne_core::model::memory::{Item, Mutation};
use std::collections::HashMap;
use std::path::Path;

/// One accepted edit of a Sleep: a supersession (`before` the retired fact, `after` the
/// newer one) or a merge (`before` the sources, `after` the merged text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    pub conversation: String,
    pub pass: &'static str,
    pub before: String,
    pub after: String,
    /// Why the gate accepted it.
    pub why: String,
}

impl Edited {
    fn key(&self) -> (String, String, String, String) {
        (self.conversation.clone(), self.pass.to_string(), self.before.clone(), self.after.clone())
    }
}

/// The accepted supersessions and merges of `log` over `items`, for conversation `name`.
pub fn edits(name: &str, log: &[Mutation], items: &[Item]) -> Vec<Edited> {
    let text = |id: &str| items.iter().find(|i| i.item_id == id).map_or(String::new(), |i| i.text.clone());
    let mut out = Vec::new();
    for m in log.iter().filter(|m| m.accepted) {
        let edited = match m.pass.name() {
            "supersede" => {
                let before = m.refs.previous_text.clone().unwrap_or_else(|| text(&m.item_id));
                let after = m.refs.superseded_by.as_deref().map(text).unwrap_or_default();
                let why = m.refs.basis.as_ref().map_or(String::new(), |b| b.describe());
                Edited { conversation: name.into(), pass: "supersede", before, after, why }
            }
            "merge" => {
                let into = m.refs.previous_text.clone().unwrap_or_default();
                let sources: Vec<String> =
                    std::iter::once(into).chain(m.refs.from_ids.iter().map(|id| text(id))).collect();
                let after = m.refs.merged_text.clone().unwrap_or_default();
                Edited {
                    conversation: name.into(),
                    pass: "merge",
                    before: sources.join(" | "),
                    after,
                    why: m.reason.clone(),
                }
            }
            _ => continue,
        };
        out.push(edited);
    }
    out
}

/// Labels read from a TSV file: `conversation, pass, before, after, right|wrong, note`.
#[derive(Debug, Default)]
pub struct Labels {
    by_key: HashMap<(String, String, String, String), bool>,
}

impl Labels {
    /// The labels of `path`; none when the file does not exist.
    pub fn read(path: &Path) -> Result<Labels, CliError> {
        let Ok(text) = std::fs::read_to_string(path) else { return Ok(Labels::default()) };
        let mut by_key = HashMap::new();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty()) {
            let f: Vec<&str> = line.split('\t').collect();
            let [conversation, pass, before, after, label, ..] = f.as_slice() else {
                return Err(format!("{}:{}: expected 6 tab-separated fields", path.display(), n + 1).into());
            };
            let right = match *label {
                "right" => true,
                "wrong" => false,
                other => {
                    return Err(
                        format!("{}:{}: label '{other}' is neither right nor wrong", path.display(), n + 1).into()
                    )
                }
            };
            by_key.insert((conversation.to_string(), pass.to_string(), before.to_string(), after.to_string()), right);
        }
        Ok(Labels { by_key })
    }
}

/// Prints every edit (unlabelled ones as a TSV line ready to label) and, per pass, how many
/// the labels mark right.
pub fn report(edits: &[Edited], labels: &Labels) {
    let mut tally: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    for e in edits {
        let label = labels.by_key.get(&e.key());
        let t = tally.entry(e.pass).or_default();
        t.0 += 1;
        t.1 += usize::from(label.is_some());
        t.2 += usize::from(label == Some(&true));
        let mark = match label {
            Some(true) => "right",
            Some(false) => "wrong",
            None => "?",
        };
        println!("sleep-audit\t{}\t{}\t{}\t{}\t{mark}\t{}", e.conversation, e.pass, e.before, e.after, e.why);
    }
    let (mut all, mut labelled, mut right) = (0, 0, 0);
    for pass in ["supersede", "merge"] {
        let (n, l, r) = tally.get(pass).copied().unwrap_or_default();
        (all, labelled, right) = (all + n, labelled + l, right + r);
        println!(
            "sleep-audit: pass={pass} accepted={n} labelled={l} right={r} share={:.3}",
            r as f64 / l.max(1) as f64
        );
    }
    println!(
        "sleep-audit: pass=all accepted={all} labelled={labelled} right={right} share={:.3}",
        right as f64 / labelled.max(1) as f64
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_labels_of_the_repository_read_whole_and_each_says_right_or_wrong() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/locomo-sleep-audit.tsv");
        let labels = Labels::read(&path).expect("the labels file reads");
        let rows = std::fs::read_to_string(&path).expect("read").lines().filter(|l| !l.starts_with('#')).count();
        assert!(rows >= 50 && labels.by_key.len() == rows, "{rows} rows, {} labels", labels.by_key.len());
    }

    #[test]
    fn a_label_that_is_neither_right_nor_wrong_is_named() {
        let dir = std::env::temp_dir().join(format!("nocturne-audit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("labels.tsv");
        std::fs::write(&path, "26\tmerge\ta\tb\tmaybe\tnote\n").expect("write");
        let err = Labels::read(&path).expect_err("maybe is no label").to_string();
        assert!(err.contains("'maybe' is neither right nor wrong"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
