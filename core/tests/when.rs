//! The date resolver's table (`testkit::dates`): every expression resolves to its date,
//! every ambiguous one stays unresolved.

use nocturne_core::testkit::dates;

#[test]
fn the_resolver_agrees_with_every_row_of_the_table() {
    assert!(dates::TABLE.len() >= 60, "{} rows", dates::TABLE.len());
    let wrong = dates::mismatches();
    assert!(wrong.is_empty(), "{} of {} rows:\n{}", wrong.len(), dates::TABLE.len(), wrong.join("\n"));
}
