//! Stable sorting by a comparison or a key, with one sort routine in the browser build.
//!
//! `slice::sort_by` is generic over its closure, so every call site gets its own copy of
//! the standard library's sort (about 3 KB of wasm each; 60 of them were 8 % of the page's
//! module). In wasm these functions sort the positions `0..n` instead, through one
//! non-generic routine that calls the comparison through a pointer, then move the
//! elements into place: the same stable order, one sort in the bundle. Natively they are
//! the standard library's sort, at full speed.
//!
//! ```
//! use nocturne_core::text::order;
//! let mut v = vec![(2, "b"), (1, "z"), (2, "a"), (1, "y")];
//! order::sort_by_key(&mut v, |p| p.0);
//! assert_eq!(v, [(1, "z"), (1, "y"), (2, "b"), (2, "a")]);
//! ```

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, keeping equal elements in their order (`slice::sort_by`).
pub fn sort_by<T>(v: &mut [T], cmp: impl FnMut(&T, &T) -> Ordering) {
    if cfg!(target_arch = "wasm32") {
        by_positions(v, cmp);
    } else {
        #[allow(clippy::disallowed_methods)] // the one place it is called
        v.sort_by(cmp);
    }
}

/// Sorts `v` by `key`, keeping equal elements in their order (`slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in its natural order (`slice::sort`).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The browser build's sort: the positions sorted by one shared routine, then the
/// elements moved to them (the tests below check it natively against the standard sort).
fn by_positions<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = sorted_positions(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    permute(v, order);
}

/// `0..n` in the order `cmp` gives them (stable). The one instance of the sort.
#[inline(never)]
fn sorted_positions(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    #[allow(clippy::disallowed_methods)] // the one place it is called
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges `v` so that `v[k]` becomes what was at `order[k]`, one cycle of the
/// permutation at a time, by swaps (no element is cloned or dropped).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at; // done: a later start on this cycle stops at once
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_browser_sort_is_the_standard_stable_sort(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            // Sorted by the first half only: equal keys keep their order, which the second
            // half (each element's identity) shows.
            let mut ours = v.clone();
            by_positions(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = v;
            #[allow(clippy::disallowed_methods)] // the reference it is checked against
            std.sort_by_key(|a| a.0);
            prop_assert_eq!(ours, std);
        }
    }

    #[test]
    fn a_sort_of_owned_values_moves_each_once_and_keeps_every_one() {
        let mut v: Vec<String> = ["d", "a", "c", "b", "a"].iter().map(|s| s.to_string()).collect();
        by_positions(&mut v, |a, b| b.cmp(a));
        assert_eq!(v, ["d", "c", "b", "a", "a"]);
    }
}
