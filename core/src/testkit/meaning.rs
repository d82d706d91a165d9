//! A generated, labelled corpus that measures whether the gates guard *meaning*: facts
//! that drop the user's negation (must be refused by Encode, Merge and Dedupe), faithful
//! negations (must be accepted), contradictions a newer fact states (Supersede should
//! accept) and compatible pairs that merely look alike (Supersede must refuse) — across
//! many predicates and every negation cue. Each case is a gate case file (`gate::case`), so it
//! runs through the same gates as everything else, natively and in the browser.

use crate::gate::case::{self, Case};
use serde_json::{json, Value};

/// What a case is labelled as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// A fact, merge or drop that inverts what was said: must be refused.
    Inverted,
    /// A fact that keeps the user's negation: should be accepted.
    FaithfulNegation,
    /// A newer fact that really replaces an older one: should be accepted.
    Contradiction,
    /// Two facts that can both hold: Supersede must refuse.
    Compatible,
}

/// The generated corpus, labelled.
pub fn corpus() -> Vec<(Label, Case)> {
    let mut out = Vec::new();
    encode_cases(&mut out);
    merge_and_dedupe_cases(&mut out);
    supersede_cases(&mut out);
    out
}

/// How the gates did on the corpus.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Score {
    /// (cases, accepted) per label.
    pub inverted: (usize, usize),
    pub faithful: (usize, usize),
    pub contradictions: (usize, usize),
    pub compatible: (usize, usize),
    /// Cases whose verdict differed from its label, with the reason, for reading.
    pub misses: Vec<String>,
}

impl Score {
    /// Whether the targets hold: no inverted fact accepted, ≥ 95% faithful negations
    /// accepted, ≤ 2% compatible pairs accepted, ≥ 80% contradictions accepted.
    pub fn meets_targets(&self) -> bool {
        let share = |(n, a): (usize, usize)| if n == 0 { 0.0 } else { a as f64 / n as f64 };
        self.inverted.0 > 0
            && self.inverted.1 == 0
            && share(self.faithful) >= 0.95
            && self.compatible.0 > 0
            && share(self.compatible) <= 0.02
            && share(self.contradictions) >= 0.80
    }

    /// `meaning: cases=N inverted=0/60 faithful=60/60 compatible=0/50 contradictions=48/50`.
    pub fn line(&self) -> String {
        let f = |(n, a): (usize, usize)| format!("{a}/{n}");
        format!(
            "meaning: cases={} invertedAccepted={} faithfulAccepted={} compatibleAccepted={} contradictionsAccepted={}",
            self.inverted.0 + self.faithful.0 + self.contradictions.0 + self.compatible.0,
            f(self.inverted),
            f(self.faithful),
            f(self.compatible),
            f(self.contradictions)
        )
    }
}

/// Judges every case of `corpus` (its last proposal is the one the label is about).
pub fn score(corpus: &[(Label, Case)]) -> Result<Score, case::CaseError> {
    let mut s = Score::default();
    for (label, c) in corpus {
        let result = c.judge()?;
        let Some(verdict) = result.verdicts.last() else { continue };
        let slot = match label {
            Label::Inverted => &mut s.inverted,
            Label::FaithfulNegation => &mut s.faithful,
            Label::Contradiction => &mut s.contradictions,
            Label::Compatible => &mut s.compatible,
        };
        slot.0 += 1;
        slot.1 += usize::from(verdict.accepted);
        let want = matches!(label, Label::FaithfulNegation | Label::Contradiction);
        if verdict.accepted != want {
            s.misses.push(format!("{:?} {}: {}", label, c.name, verdict.reason));
        }
    }
    Ok(s)
}

const NOW: i64 = 1_767_225_600;
const DAY: i64 = 86_400;

/// (positive clause, negated clauses in many forms, third-person positive) per predicate.
const PREDICATES: &[(&str, &str, &str)] = &[
    // (verb phrase after "I", its base form, third-person form)
    ("eat meat", "eat meat", "eats meat"),
    ("drink coffee after noon", "drink coffee after noon", "drinks coffee after noon"),
    ("live in Lisbon", "live in Lisbon", "lives in Lisbon"),
    ("own a car", "own a car", "owns a car"),
    ("smoke cigars", "smoke cigars", "smokes cigars"),
    ("work on weekends", "work on weekends", "works on weekends"),
    ("play the piano", "play the piano", "plays the piano"),
    ("like horror films", "like horror films", "likes horror films"),
    ("take sugar in tea", "take sugar in tea", "takes sugar in tea"),
    ("speak German", "speak German", "speaks German"),
];

/// Negated forms of "I {base}": the cue and the sentence.
fn negations(base: &str) -> Vec<String> {
    vec![
        format!("I don't {base}."),
        format!("I do not {base}."),
        format!("I never {base}."),
        format!("I no longer {base}."),
        format!("I don't {base} anymore."),
        format!("I can't {base}."),
        format!("I didn’t {base}."),
    ]
}

fn encode_case(name: String, said: &str, fact: &str) -> Case {
    build(json!({
        "name": name,
        "now": NOW,
        "transcript": [format!("user: {said}")],
        "items": [],
        "pass": "encode",
        "proposal": {"facts": [{"text": fact, "category": "preferences"}]},
        "expect": [],
    }))
}

fn encode_cases(out: &mut Vec<(Label, Case)>) {
    for (phrase, base, third) in PREDICATES {
        for (k, said) in negations(base).into_iter().enumerate() {
            // A careless model drops the cue: first person and third person.
            let dropped = if k % 2 == 0 { format!("I {phrase}.") } else { format!("The user {third}.") };
            out.push((Label::Inverted, encode_case(format!("encode drops the negation of '{said}'"), &said, &dropped)));
            // A faithful model keeps the user's own words (or says "does not").
            let kept = if k % 2 == 0 { said.clone() } else { format!("The user does not {base}.") };
            let kept = if said.contains("anymore") || said.contains("no longer") || said.contains("never") {
                said.replace("I ", "The user ")
            } else {
                kept
            };
            out.push((Label::FaithfulNegation, encode_case(format!("encode keeps '{said}'"), &said, &kept)));
        }
    }
    for (said, dropped, kept) in [
        ("I am not allergic to peanuts.", "The user is allergic to peanuts.", "The user is not allergic to peanuts."),
        ("I have no siblings.", "I have siblings.", "The user has no siblings."),
        ("Nobody in my family smokes.", "Everybody in my family smokes.", "Nobody in my family smokes."),
        ("I travel without a phone.", "I travel with a phone.", "The user travels without a phone."),
        ("I quit my job at the bank.", "I have a job at the bank.", "The user quit a job at the bank."),
        ("I gave up chocolate.", "I like chocolate.", "The user gave up chocolate."),
        ("I stopped running marathons.", "I am running marathons.", "The user stopped running marathons."),
        ("I drink neither tea nor coffee.", "I drink tea and coffee.", "The user drinks neither tea nor coffee."),
    ] {
        out.push((Label::Inverted, encode_case(format!("encode drops the negation of '{said}'"), said, dropped)));
        out.push((Label::FaithfulNegation, encode_case(format!("encode keeps '{said}'"), said, kept)));
    }
}

fn item(id: &str, text: &str, days_ago: i64, source_turn: Option<u32>) -> Value {
    json!({"itemId": id, "block": "human", "text": text, "category": "identity",
           "createdAt": NOW - days_ago * DAY, "active": true, "sourceTurn": source_turn})
}

fn merge_and_dedupe_cases(out: &mut Vec<(Label, Case)>) {
    for (phrase, base, _) in PREDICATES {
        let negated = format!("I don't {base}.");
        let positive = format!("I {phrase}.");
        // Merge: two sources, one negated; the merged text drops the negation.
        let other = "I work best in the morning.";
        out.push((
            Label::Inverted,
            build(json!({
                "name": format!("merge drops the negation of '{negated}'"),
                "now": NOW,
                "items": [item("m_1", &negated, 3, None), item("m_2", other, 2, None)],
                "pass": "merge",
                "proposal": {"merge": [{"intoId": "m_1", "fromIds": ["m_2"],
                    "mergedText": format!("I {phrase} and work best in the morning."), "reason": "same person"}]},
                "expect": [],
            })),
        ));
        // Dedupe: the opposite statement is not a duplicate.
        out.push((
            Label::Inverted,
            build(json!({
                "name": format!("dedupe drops '{negated}' as a duplicate of '{positive}'"),
                "now": NOW,
                "items": [item("m_1", &positive, 3, None), item("m_2", &negated, 1, None)],
                "pass": "dedupe",
                "proposal": {"drop": [{"itemId": "m_2", "duplicateOf": "m_1", "reason": "same words"}]},
                "expect": [],
            })),
        ));
    }
}

fn supersede_case(name: String, turns: &[&str], old: &str, new: &str, new_turn: Option<u32>) -> Case {
    build(json!({
        "name": name,
        "now": NOW,
        "transcript": turns.iter().map(|t| format!("user: {t}")).collect::<Vec<_>>(),
        "items": [item("m_1", old, 30, Some(0)), item("m_2", new, 1, new_turn)],
        "pass": "supersede",
        "proposal": {"supersede": [{"oldId": "m_1", "newId": "m_2", "reason": "a newer value"}]},
        "expect": [],
    }))
}

fn supersede_cases(out: &mut Vec<(Label, Case)>) {
    let cities = ["Lisbon", "Porto", "Ghent", "Faro", "Berlin", "Madrid"];
    let jobs = ["nurse", "teacher", "chemist", "baker", "pilot", "lawyer"];
    let names = ["Rex", "Bolt", "Luna", "Milo", "Nala", "Otto"];
    let mut contradictions: Vec<(String, String)> = Vec::new();
    for w in cities.windows(2) {
        contradictions.push((format!("I live in {}.", w[0]), format!("I live in {}.", w[1])));
        contradictions.push((format!("I live in {}.", w[0]), format!("I no longer live in {}.", w[0])));
    }
    for w in jobs.windows(2) {
        contradictions.push((format!("I work as a {}.", w[0]), format!("I work as a {}.", w[1])));
    }
    for w in names.windows(2) {
        contradictions.push((format!("My dog is called {}.", w[0]), format!("My dog is called {}.", w[1])));
    }
    for (a, b) in [
        ("I am 34 years old.", "I am 35 years old."),
        ("My favourite colour is green.", "My favourite colour is blue."),
        ("My manager is Ana.", "My manager is Rui."),
        ("My phone number is 555 0101.", "My phone number is 555 0199."),
        ("I keep a cat.", "I now keep a dog."),
        ("I drive a Fiat.", "I switched to a Volvo, I drive a Volvo now."),
        ("I eat meat.", "I don't eat meat anymore."),
        ("I drink coffee.", "I no longer drink coffee."),
        ("I play tennis on Mondays.", "I play chess on Mondays instead."),
    ] {
        contradictions.push((a.to_string(), b.to_string()));
    }
    for (old, new) in &contradictions {
        let name = format!("'{new}' supersedes '{old}'");
        out.push((Label::Contradiction, supersede_case(name, &[old, new], old, new, Some(1))));
    }
    // A change stated in the source turn, in the clause about the same subject.
    for w in cities.windows(2) {
        let turn = format!("I moved last spring and I live in {} now.", w[1]);
        let (old, new) = (format!("I live in {}.", w[0]), format!("I live in {}.", w[1]));
        out.push((
            Label::Contradiction,
            supersede_case(format!("'{turn}' states a change"), &[&old, &turn], &old, &new, Some(1)),
        ));
    }
    let many: &[(&str, &[&str])] = &[
        ("I keep a {}.", &["bearded dragon", "cat", "parrot", "dog"]),
        ("I speak {}.", &["Portuguese", "English", "German", "French"]),
        ("I play {} on Mondays.", &["tennis", "chess", "football", "bridge"]),
        ("I like {}.", &["green tea", "black coffee", "hot chocolate", "lemonade"]),
        ("I read {} on the train.", &["science fiction", "poetry", "history books", "the news"]),
        ("I visit {} every summer.", &["Faro", "Ghent", "Madrid", "Berlin"]),
        ("My {} lives in Ghent.", &["sister", "brother", "mother", "cousin"]),
        ("I cook {} on Sundays.", &["pasta", "curry", "soup", "paella"]),
        ("I grow {} on the balcony.", &["tomatoes", "basil", "mint", "peppers"]),
        ("I collect {}.", &["stamps", "coins", "vinyl records", "postcards"]),
        ("I volunteer at the {}.", &["library", "food bank", "animal shelter", "museum"]),
    ];
    for (template, values) in many {
        for w in values.windows(2) {
            let (old, new) = (template.replace("{}", w[0]), template.replace("{}", w[1]));
            let name = format!("'{new}' does not replace '{old}'");
            out.push((Label::Compatible, supersede_case(name, &[&old, &new], &old, &new, Some(1))));
            // A change cue elsewhere in the turn does not count.
            let turn = format!("{} I moved to a new flat last month.", new);
            let name = format!("'{new}' does not replace '{old}' (a cue in another clause)");
            out.push((Label::Compatible, supersede_case(name, &[&old, &turn], &old, &new, Some(1))));
        }
    }
    // A change stated about another holder of the same slot replaces nothing (found by
    // bench-recall: "My friend Yul2 lives in Wob2 now." closed Yul0's address).
    let friends = ["Ana", "Rui", "Ines", "Tomas"];
    for w in friends.windows(2) {
        let old = format!("My friend {} lives in Faro now.", w[0]);
        let new = format!("My friend {} lives in Ghent now.", w[1]);
        let name = format!("regression: '{new}' does not replace '{old}' (another holder)");
        out.push((Label::Compatible, supersede_case(name, &[&old, &new], &old, &new, Some(1))));
    }
    // A negated old fact and a new value can both hold.
    for w in cities.windows(2) {
        let (old, new) = (format!("I no longer live in {}.", w[0]), format!("I live in {}.", w[1]));
        let name = format!("'{new}' does not replace '{old}'");
        out.push((Label::Compatible, supersede_case(name, &[&old, &new], &old, &new, Some(1))));
    }
}

fn build(mut v: Value) -> Case {
    v["policy"] = serde_json::to_value(crate::model::policy::RetentionPolicy::default()).unwrap_or(Value::Null);
    serde_json::from_value(v).unwrap_or_else(|e| panic!("the meaning corpus builds valid cases: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_large_and_covers_every_label() {
        let c = corpus();
        assert!(c.len() >= 150, "only {} cases", c.len());
        for label in [Label::Inverted, Label::FaithfulNegation, Label::Contradiction, Label::Compatible] {
            assert!(c.iter().filter(|(l, _)| *l == label).count() >= 20, "{label:?} has under 20 cases");
        }
    }

    #[test]
    fn the_targets_fail_when_a_gate_accepts_one_inverted_fact() {
        let good = Score {
            inverted: (10, 0),
            faithful: (20, 20),
            contradictions: (10, 9),
            compatible: (50, 1),
            misses: vec![],
        };
        assert!(good.meets_targets());
        assert!(!Score { inverted: (10, 1), ..good.clone() }.meets_targets());
        assert!(!Score { compatible: (50, 2), ..good.clone() }.meets_targets());
        assert!(!Score { faithful: (20, 18), ..good.clone() }.meets_targets());
        assert!(!Score { contradictions: (10, 7), ..good.clone() }.meets_targets());
        assert!(!Score::default().meets_targets(), "an empty corpus meets no target");
    }
}
