//! The command line's one error type: what failed, worded so a user can act on it, with
//! the error it came from (a store's, a Sleep's, a file's) as its `source()`.

use std::error::Error;
use std::fmt;

/// Why a command failed. `nocturne` prints its text; `source()` is the error underneath,
/// when there was one.
///
/// ```ignore
/// let e = CliError::caused("cannot read the plan plan.json", io_error);
/// assert!(e.source().is_some());
/// ```
#[derive(Debug)]
pub struct CliError {
    message: String,
    source: Option<Box<dyn Error + Send + Sync + 'static>>,
}

impl CliError {
    /// An error worded `message`, caused by `source`.
    pub fn caused(message: impl Into<String>, source: impl Error + Send + Sync + 'static) -> Self {
        CliError { message: message.into(), source: Some(Box::new(source)) }
    }

    /// The causes under this error whose words it does not already say, outermost first.
    pub fn causes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut next = self.source();
        while let Some(cause) = next {
            let text = cause.to_string();
            if !self.message.contains(&text) && !out.iter().any(|o: &String| o.contains(&text)) {
                out.push(text);
            }
            next = cause.source();
        }
        out
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for CliError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError { message, source: None }
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

/// The core's and the sync crate's errors, each kept as the source of its own words.
macro_rules! caused_by {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                CliError::caused(e.to_string(), e)
            }
        }
    )*};
}

caused_by!(
    nocturne_core::store::StoreError,
    nocturne_core::flow::sleep::SleepError,
    nocturne_core::flow::review::ReviewError,
    nocturne_core::flow::chat::ChatError,
    nocturne_core::flow::edit::EditError,
    nocturne_core::proof::quiz::QuizError,
    nocturne_core::gate::case::CaseError,
    nocturne_core::write::WriteError,
    nocturne_sync::SyncError,
    serde_json::Error,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_is_kept_and_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        let e = CliError::caused("cannot read the plan plan.json", io);
        assert!(e.source().is_some());
        assert_eq!(e.causes(), ["No such file or directory (os error 2)"]);
        let store: CliError = nocturne_core::store::StoreError::NoSuchVersion(9).into();
        assert!(store.source().is_some());
        assert!(store.causes().is_empty(), "its own words are not said twice");
    }
}
