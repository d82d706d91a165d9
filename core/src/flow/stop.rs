//! Stopping a running Sleep (or any orchestrator) from outside: a shared flag the caller
//! sets and the orchestrator reads between model calls and between passes. A pass that
//! is stopped writes nothing; passes already committed stay (each is atomic).
//!
//! ```
//! use nocturne_core::flow::stop::StopToken;
//! let token = StopToken::default();
//! let handle = token.clone();
//! handle.stop();
//! assert!(token.is_stopped());
//! ```

use std::cell::Cell;
use std::rc::Rc;

/// A flag shared by clones: `stop()` on any, `is_stopped()` on all.
#[derive(Clone, Debug, Default)]
pub struct StopToken(Rc<Cell<bool>>);

impl StopToken {
    /// Asks whoever holds a clone to stop at the next safe point.
    pub fn stop(&self) {
        self.0.set(true);
    }

    /// Whether `stop` was called.
    pub fn is_stopped(&self) -> bool {
        self.0.get()
    }
}

/// Two tokens are equal when they are clones of one another.
impl PartialEq for StopToken {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}
