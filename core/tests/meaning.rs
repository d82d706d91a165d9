//! The meaning corpus (`testkit::meaning`): the gates refuse every fact that inverts what
//! the user said, accept faithful negations, accept real contradictions and refuse
//! compatible pairs — printed as figures and held to the targets.

use nocturne_core::testkit::meaning;

#[test]
fn the_gates_guard_meaning_on_the_labelled_corpus() {
    let corpus = meaning::corpus();
    let score = meaning::score(&corpus).expect("every generated case is well-formed");
    println!("{}", score.line());
    for miss in &score.misses {
        println!("  miss: {miss}");
    }
    assert!(score.meets_targets(), "{}\n{}", score.line(), score.misses.join("\n"));
}
