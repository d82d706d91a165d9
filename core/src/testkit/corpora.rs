//! The held-out corpora (`corpora/README.md`): statements about a person a memory must
//! keep, chatter it must not, and compound sentences with the atomic statements a splitter
//! must make of them, pairs of statements days apart (does the newer retire the older?)
//! and turns whose pronouns a split must not orphan — written fresh by someone who did not
//! read the rules. Each line
//! belongs to a *tuning* half or a *test* half, fixed by a seeded hash of its statement:
//! rules are written against the tuning half; the test half's figure is the one reported.
//! A second writer's development lines (`*-dev.tsv`, [`Half::Dev`]) add to the tuning
//! material; any that repeats a held-out line is left out.
//!
//! ```
//! use nocturne_core::testkit::corpora::{self, Half};
//! let (tuning, test): (Vec<_>, Vec<_>) = corpora::compounds().into_iter().partition(|c| c.half == Half::Tuning);
//! assert!(tuning.len() > 100 && test.len() > 100);
//! ```

/// Which half of a corpus a line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Half {
    /// Rules may be written against these lines.
    Tuning,
    /// Held out: only measured.
    Test,
    /// A second writer's lines (`*-dev.tsv`), for tuning only, never the reported figure.
    Dev,
}

impl Half {
    pub fn name(self) -> &'static str {
        match self {
            Half::Tuning => "tuning",
            Half::Test => "test",
            Half::Dev => "dev",
        }
    }
}

/// The seed of the split. Changing it reshuffles the halves: never change it to move a
/// line the rules get wrong.
pub const SEED: u64 = 0x6e6f_6374_7572_6e65; // "nocturne"

/// The half `statement` belongs to: FNV-1a over the seed's bytes and the statement's.
pub fn half_of(statement: &str) -> Half {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in SEED.to_le_bytes().iter().chain(statement.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    if (h >> 17) & 1 == 0 {
        Half::Tuning
    } else {
        Half::Test
    }
}

/// A statement about a person that a memory must keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub category: &'static str,
    /// `true`: about the speaker; `false`: about someone in the speaker's life.
    pub first: bool,
    pub statement: &'static str,
    pub half: Half,
}

/// A line a memory must not keep, and what kind of chatter it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chatter {
    pub kind: &'static str,
    pub statement: &'static str,
    pub half: Half,
}

/// A sentence and the atomic statements a splitter must make of it (one: keep it whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compound {
    pub shape: &'static str,
    pub sentence: &'static str,
    pub pieces: Vec<&'static str>,
    pub half: Half,
}

/// Two statements said days apart (`supersede.tsv`): should the older be retired?
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// How the older statement refers to its thing (`indefinite`, `definite`, `possessive`,
    /// `named-entity`, `speaker`, `quantity`, `time-bound`, `new-of-a-kind`, `one-of-several`).
    pub shape: &'static str,
    /// `true`: the older is about the speaker or the speaker's own things.
    pub first: bool,
    /// `true`: the newer ends the older (`change`); `false`: both still hold (`compatible`).
    pub change: bool,
    pub older: &'static str,
    pub newer: &'static str,
    pub half: Half,
}

/// A turn and the pronouns in it whose antecedent a split would leave in another piece
/// (`referents.tsv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Referents {
    /// The line's main difficulty (`it-object`, `semicolon`, …) or a control
    /// (`same-clause`, `no-antecedent`, `first-person-only`, `whole`).
    pub shape: &'static str,
    pub sentence: &'static str,
    /// Each listed pronoun, in order: `(pronoun, its occurrence in the sentence counted
    /// from 1, the antecedent as written)`. Empty: no piece needs another's referent.
    pub pronouns: Vec<(&'static str, usize, &'static str)>,
    pub half: Half,
}

const PERSON: &str = include_str!("corpora/person.tsv");
const CHATTER: &str = include_str!("corpora/chatter.tsv");
const COMPOUNDS: &str = include_str!("corpora/compounds.tsv");
const PERSON_DEV: &str = include_str!("corpora/person-dev.tsv");
const CHATTER_DEV: &str = include_str!("corpora/chatter-dev.tsv");
const COMPOUNDS_DEV: &str = include_str!("corpora/compounds-dev.tsv");
const SUPERSEDE: &str = include_str!("corpora/supersede.tsv");
const SUPERSEDE_DEV: &str = include_str!("corpora/supersede-dev.tsv");
const REFERENTS: &str = include_str!("corpora/referents.tsv");

/// The records of a TSV corpus: every line but the `#` header, split at tabs (every corpus
/// of the testkit reads its file through this).
pub(super) fn records(tsv: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    tsv.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| l.split('\t').collect())
}

/// `person.tsv`: 478 statements in 18 categories, then the dev lines.
pub fn person() -> Vec<Person> {
    let held =
        |f: &[&'static str]| Person { category: f[0], first: f[1] == "first", statement: f[2], half: half_of(f[2]) };
    let mut out: Vec<Person> = records(PERSON).map(|f| held(&f)).collect();
    let dev = records(PERSON_DEV).map(|f| Person { half: Half::Dev, ..held(&f) });
    let dev: Vec<_> = dev.filter(|d| !out.iter().any(|h| same(h.statement, d.statement))).collect();
    out.extend(dev);
    out
}

/// `chatter.tsv`: 188 lines of ten kinds, then the dev lines.
pub fn chatter() -> Vec<Chatter> {
    let held = |f: &[&'static str]| Chatter { kind: f[0], statement: f[1], half: half_of(f[1]) };
    let mut out: Vec<Chatter> = records(CHATTER).map(|f| held(&f)).collect();
    let dev = records(CHATTER_DEV).map(|f| Chatter { half: Half::Dev, ..held(&f) });
    let dev: Vec<_> = dev.filter(|d| !out.iter().any(|h| same(h.statement, d.statement))).collect();
    out.extend(dev);
    out
}

/// `compounds.tsv`: 309 sentences of 13 shapes, then the dev lines.
pub fn compounds() -> Vec<Compound> {
    let held = |f: &[&'static str]| Compound {
        shape: f[0],
        sentence: f[1],
        pieces: f[2].split(" | ").collect(),
        half: half_of(f[1]),
    };
    let mut out: Vec<Compound> = records(COMPOUNDS).map(|f| held(&f)).collect();
    let dev = records(COMPOUNDS_DEV).map(|f| Compound { half: Half::Dev, ..held(&f) });
    let dev: Vec<_> = dev.filter(|d| !out.iter().any(|h| same(h.sentence, d.sentence))).collect();
    out.extend(dev);
    out
}

/// `supersede.tsv`: 337 pairs of nine shapes, then `supersede-dev.tsv`'s ([`Half::Dev`]).
/// A held-out pair's half is its older and newer statement's, hashed together
/// (`older<TAB>newer`); a dev pair that repeats a held-out statement is left out.
pub fn supersede() -> Vec<Pair> {
    let pair = |f: &[&'static str], half: Half| Pair {
        shape: f[0],
        first: f[1] == "first",
        change: f[2] == "change",
        older: f[3],
        newer: f[4],
        half,
    };
    let mut out: Vec<Pair> = records(SUPERSEDE).map(|f| pair(&f, half_of(&format!("{}\t{}", f[3], f[4])))).collect();
    let held = |s: &str| out.iter().any(|h| same(h.older, s) || same(h.newer, s));
    let dev: Vec<Pair> =
        records(SUPERSEDE_DEV).map(|f| pair(&f, Half::Dev)).filter(|d| !held(d.older) && !held(d.newer)).collect();
    out.extend(dev);
    out
}

/// `referents.tsv`: 147 turns, 110 listed pronouns.
pub fn referents() -> Vec<Referents> {
    records(REFERENTS)
        .map(|f| {
            let pronouns = if f[2] == "-" { Vec::new() } else { f[2].split(" | ").filter_map(pronoun_entry).collect() };
            Referents { shape: f[0], sentence: f[1], pronouns, half: half_of(f[1]) }
        })
        .collect()
}

/// `it#2=a dog` as `("it", 2, "a dog")`; `it=a dog` is the first `it`.
fn pronoun_entry(entry: &'static str) -> Option<(&'static str, usize, &'static str)> {
    let (pronoun, antecedent) = entry.split_once('=')?;
    match pronoun.split_once('#') {
        Some((p, n)) => Some((p, n.parse().ok()?, antecedent)),
        None => Some((pronoun, 1, antecedent)),
    }
}

/// Two lines that are the same statement (a dev line that repeats a held-out one is
/// left out, so nothing held out is tuned on by the back door).
fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Right answers out of lines, for one group of a corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub lines: usize,
    pub right: usize,
}

impl Tally {
    pub fn share(&self) -> f64 {
        self.right as f64 / self.lines.max(1) as f64
    }
}

/// A corpus's results by half and by group (category, kind or shape), with what went wrong.
#[derive(Clone, Debug, Default)]
pub struct Score {
    pub groups: std::collections::BTreeMap<(Half, &'static str), Tally>,
    /// `(half, line)`: what the rule got wrong, for reading (the test half's only counted).
    pub misses: Vec<(Half, String)>,
}

impl Score {
    /// Counts one line of `group`, with what went wrong when it is not right.
    pub fn add(&mut self, half: Half, group: &'static str, right: bool, miss: impl FnOnce() -> String) {
        let t = self.groups.entry((half, group)).or_default();
        t.lines += 1;
        t.right += right as usize;
        if !right {
            self.misses.push((half, miss()));
        }
    }

    /// Every group of one half together.
    pub fn total(&self, half: Half) -> Tally {
        let mut out = Tally::default();
        for t in self.groups.iter().filter(|((h, _), _)| *h == half).map(|(_, t)| t) {
            out.lines += t.lines;
            out.right += t.right;
        }
        out
    }

    /// `name: half=test lines=… right=… share=…` and one line per group.
    pub fn lines(&self, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        for half in [Half::Tuning, Half::Test, Half::Dev] {
            let t = self.total(half);
            out.push(format!(
                "{name}: half={} lines={} right={} share={:.3}",
                half.name(),
                t.lines,
                t.right,
                t.share()
            ));
        }
        for ((half, group), t) in &self.groups {
            out.push(format!("{name}-group: half={} group={group} lines={} right={}", half.name(), t.lines, t.right));
        }
        out
    }
}

/// The statements the offline encoder and the Encode gate keep from `text` said alone as
/// a user turn — the same request, reply and gate as a chat turn.
pub fn kept_from(text: &str) -> Vec<String> {
    use crate::llm::{offline, prompt, provider};
    let turns = [said_alone(text)];
    let reply = offline::respond(&prompt::encode_request(&turns));
    let proposals = provider::extract_json(&reply)
        .and_then(|json| provider::proposals(&json, crate::model::pass::PassKind::Encode.proposal_key()))
        .unwrap_or_default();
    let (items, _) = crate::flow::chat::judge_facts(&turns, &proposals, 1, 0);
    items.into_iter().map(|i| i.text).collect()
}

/// `text` as the first user turn of a memory, said at time 0 by no one named.
pub(super) fn said_alone(text: &str) -> crate::model::memory::Turn {
    use crate::model::memory::{Role, Turn};
    Turn {
        index: 0,
        role: Role::User,
        text: text.into(),
        at: 0,
        speaker: None,
        memory: None,
        source: None,
        provenance: None,
    }
}

/// Compounds through the one splitter: right when it makes exactly the expected pieces.
pub fn split_score() -> Score {
    split_score_by(crate::text::split::pieces)
}

/// [`split_score`] with another splitter (a test plants a broken one).
pub fn split_score_by(splitter: impl Fn(&str) -> Vec<String>) -> Score {
    let mut score = Score::default();
    for c in compounds() {
        let got = splitter(c.sentence);
        let right = got.iter().map(String::as_str).eq(c.pieces.iter().copied());
        score.add(c.half, c.shape, right, || format!("{} {:?}: want {:?}, got {got:?}", c.shape, c.sentence, c.pieces));
    }
    score
}

/// Turns of `referents.tsv` through the splitter and `text::antecedent`: right when every
/// listed pronoun's piece names its antecedent (replaced, or the clauses kept together),
/// and, for a control, when nothing was replaced.
pub fn referents_score() -> Score {
    referents_score_by(crate::text::antecedent::facts)
}

/// [`referents_score`] with another way of making facts (a test plants one that replaces
/// nothing).
pub fn referents_score_by(facts: impl Fn(&str) -> Vec<String>) -> Score {
    let mut score = Score::default();
    for r in referents() {
        let plain = crate::text::split::statements(r.sentence);
        let got = facts(r.sentence);
        let missing: Vec<String> = if r.pronouns.is_empty() {
            let texts: Vec<&str> = plain.iter().map(|p| p.text.as_str()).collect();
            if got.iter().map(String::as_str).eq(texts.iter().copied()) {
                Vec::new()
            } else {
                vec![format!("nothing to replace, got {got:?}")]
            }
        } else {
            r.pronouns
                .iter()
                .filter(|e| !keeps(r.sentence, &plain, &got, e))
                .map(|(p, n, a)| format!("{p}#{n}={a}"))
                .collect()
        };
        score.add(r.half, r.shape, missing.is_empty(), || {
            format!("{} {:?}: {} missing in {got:?}", r.shape, r.sentence, missing.join(", "))
        });
    }
    score
}

/// Whether the fact made of the piece holding the `n`th `pronoun` of `sentence` names its
/// `antecedent` (every content token of it).
fn keeps(
    sentence: &str,
    plain: &[crate::text::split::Piece<'_>],
    got: &[String],
    (pronoun, n, antecedent): &(&str, usize, &str),
) -> bool {
    let lower = sentence.to_lowercase();
    let at = lower
        .match_indices(pronoun)
        .filter(|(i, _)| {
            let before = lower[..*i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            let after = lower[i + pronoun.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            before && after
        })
        .nth(n - 1)
        .map(|(i, _)| i);
    let Some(at) = at else { return false };
    let base = sentence.as_ptr() as usize;
    let piece = plain.iter().position(|p| {
        let from = p.span.as_ptr() as usize - base;
        (from..from + p.span.len()).contains(&at)
    });
    let Some(text) = piece.and_then(|k| got.get(k)).filter(|_| got.len() == plain.len()) else { return false };
    let held = crate::text::textmath::content_tokens(text);
    crate::text::textmath::content_tokens(antecedent).iter().all(|t| held.contains(t))
}

/// Statements about a person through the offline encoder and the Encode gate: right when
/// every statement the splitter finds in it is kept as a fact.
pub fn person_score() -> Score {
    person_score_by(kept_from)
}

/// [`person_score`] with another way of keeping (a test plants a forgetful one).
pub fn person_score_by(keep: impl Fn(&str) -> Vec<String>) -> Score {
    let mut score = Score::default();
    for p in person() {
        let kept = keep(p.statement);
        let wanted = crate::text::split::pieces(p.statement);
        let right = !kept.is_empty() && wanted.iter().all(|w| kept.contains(w));
        score.add(p.half, p.category, right, || format!("{} {:?}: kept {kept:?}", p.category, p.statement));
    }
    score
}

/// Chatter through the same path: right when nothing is kept.
pub fn chatter_score() -> Score {
    let mut score = Score::default();
    for c in chatter() {
        let kept = kept_from(c.statement);
        score.add(c.half, c.kind, kept.is_empty(), || format!("{} {:?}: kept {kept:?}", c.kind, c.statement));
    }
    score
}

/// A text a careless or hostile program might send to `add_memory` (`poison.tsv`): every
/// one must be refused, or held where it changes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poison {
    /// The device that makes it hostile: `instruction`, `role-marker`, `closing-markup`,
    /// `impersonation`, `exfiltration`, `obfuscated`, `future-date`, `backdated`.
    pub category: &'static str,
    /// The `said_at` the client sends, exactly as written; `None` when it sends none.
    pub said_at: Option<&'static str>,
    /// The text, with each `\n` of the file a line break.
    pub text: String,
    pub half: Half,
}

/// A text a well-behaved assistant would save through `add_memory` (`benign.tsv`): every
/// one must be accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Benign {
    /// `third-person`, `first-person`, `preference`, `project`, `schedule`, `near-miss`,
    /// `technical`.
    pub kind: &'static str,
    pub text: &'static str,
    pub half: Half,
}

const POISON: &str = include_str!("corpora/poison.tsv");
const BENIGN: &str = include_str!("corpora/benign.tsv");

/// `poison.tsv`: 154 texts in eight categories, halved by the text as the file writes it.
pub fn poison() -> Vec<Poison> {
    records(POISON)
        .map(|f| Poison {
            category: f[0],
            said_at: (f[1] != "-").then_some(f[1]),
            text: f[2].replace("\\n", "\n"),
            half: half_of(f[2]),
        })
        .collect()
}

/// `benign.tsv`: 174 texts of seven kinds, 58 of them near-misses that use the poison's words.
pub fn benign() -> Vec<Benign> {
    records(BENIGN).map(|f| Benign { kind: f[0], text: f[1], half: half_of(f[1]) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_has_its_fields_and_the_halves_are_even_enough() {
        let held = |h: Half| h != Half::Dev;
        let p: Vec<Person> = person().into_iter().filter(|x| held(x.half)).collect();
        let c: Vec<Chatter> = chatter().into_iter().filter(|x| held(x.half)).collect();
        let k: Vec<Compound> = compounds().into_iter().filter(|x| held(x.half)).collect();
        assert_eq!((p.len(), c.len(), k.len()), (478, 188, 309));
        let (s, r) = (supersede().into_iter().filter(|x| held(x.half)).collect::<Vec<_>>(), referents());
        assert_eq!((s.len(), r.len()), (337, 147));
        assert_eq!(r.iter().map(|x| x.pronouns.len()).sum::<usize>(), 110);
        assert_eq!(s.iter().filter(|x| !x.change).count(), 169);
        let (poison, benign) = (super::poison(), super::benign());
        assert_eq!((poison.len(), benign.len()), (154, 174));
        assert_eq!(poison.iter().filter(|x| x.text.contains('\n')).count(), 15, "each \\n is a line break");
        assert!(p.iter().all(|x| !x.statement.is_empty() && !x.category.is_empty()));
        assert!(k.iter().all(|x| !x.pieces.is_empty() && x.pieces.iter().all(|p| p.ends_with('.'))));
        for share in [
            p.iter().filter(|x| x.half == Half::Test).count() as f64 / p.len() as f64,
            c.iter().filter(|x| x.half == Half::Test).count() as f64 / c.len() as f64,
            k.iter().filter(|x| x.half == Half::Test).count() as f64 / k.len() as f64,
            s.iter().filter(|x| x.half == Half::Test).count() as f64 / s.len() as f64,
            r.iter().filter(|x| x.half == Half::Test).count() as f64 / r.len() as f64,
        ] {
            assert!((0.4..=0.6).contains(&share), "{share}");
        }
    }
}
