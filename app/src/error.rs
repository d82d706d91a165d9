//! The page's and its workers' one error type: what failed, in the words a user reads, and
//! — when one failed underneath that is a Rust error (the store's, a write's, the sync's,
//! JSON's) — that error as its `source()`. A browser's own failures come as JavaScript
//! values, which are kept as their words.

use std::error::Error;
use std::fmt;

/// Why something the page or a worker did failed.
#[derive(Debug)]
pub struct AppError {
    message: String,
    source: Option<Box<dyn Error>>,
}

impl AppError {
    /// An error worded `message`, caused by `source`.
    pub fn caused(message: impl Into<String>, source: impl Error + 'static) -> Self {
        AppError { message: message.into(), source: Some(Box::new(source)) }
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for AppError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref()
    }
}

impl From<String> for AppError {
    fn from(message: String) -> Self {
        AppError { message, source: None }
    }
}

impl From<&str> for AppError {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

/// The core's, the sync's and JSON's errors, each the source of its own words.
macro_rules! caused_by {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for AppError {
            fn from(e: $t) -> Self {
                AppError::caused(e.to_string(), e)
            }
        }
    )*};
}

caused_by!(
    nocturne_core::store::StoreError,
    nocturne_core::write::WriteError,
    nocturne_sync::SyncError,
    nocturne_core::store::document::DocumentError,
    serde_json::Error,
);

/// The words, where the page shows them (a Leptos signal's value must be `Clone`).
impl From<AppError> for String {
    fn from(e: AppError) -> String {
        e.message
    }
}
