//! What a fact is about, as the encoder files it: a type for the five categories the
//! prompts name, written and read back as the same strings (`identity`, `commitments`, …)
//! so stored files are unchanged; a category a model or an older file gave that is not
//! one of them is kept as it was.
//!
//! ```
//! use nocturne_core::model::category::Category;
//! assert_eq!(Category::parse("commitments"), Category::Commitments);
//! assert_eq!(Category::Commitments.as_str(), "commitments");
//! assert_eq!(Category::parse("hobby"), Category::Other("hobby".into()));
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// A fact's category.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Category {
    /// Who someone is: name, home, work, family, age, health.
    Identity,
    /// What someone likes, prefers, avoids.
    Preferences,
    /// A promise, a plan, something due.
    Commitments,
    /// Something that happened.
    Event,
    /// Anything else worth keeping.
    Context,
    /// A category none of the above, kept as given.
    Other(String),
}

impl Category {
    /// The five the prompts offer, in their order.
    pub const KNOWN: [Category; 5] =
        [Category::Identity, Category::Preferences, Category::Commitments, Category::Event, Category::Context];

    /// Reads a stored or proposed category; one it does not know is [`Category::Other`].
    pub fn parse(text: &str) -> Category {
        match text {
            "identity" => Category::Identity,
            "preferences" => Category::Preferences,
            "commitments" => Category::Commitments,
            "event" => Category::Event,
            "context" => Category::Context,
            other => Category::Other(other.to_string()),
        }
    }

    /// The stored name.
    pub fn as_str(&self) -> &str {
        match self {
            Category::Identity => "identity",
            Category::Preferences => "preferences",
            Category::Commitments => "commitments",
            Category::Event => "event",
            Category::Context => "context",
            Category::Other(name) => name,
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<String> for Category {
    fn from(text: String) -> Self {
        Category::parse(&text)
    }
}

impl From<&str> for Category {
    fn from(text: &str) -> Self {
        Category::parse(text)
    }
}

impl From<Category> for String {
    fn from(c: Category) -> Self {
        c.as_str().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_category_reads_back_as_written() {
        for c in Category::KNOWN.into_iter().chain([Category::Other("hobby".into())]) {
            assert_eq!(Category::parse(c.as_str()), c);
            let json = serde_json::to_string(&c).expect("json");
            assert_eq!(json, format!("\"{c}\""), "stored as the plain string");
            assert_eq!(serde_json::from_str::<Category>(&json).expect("read"), c);
        }
    }
}
