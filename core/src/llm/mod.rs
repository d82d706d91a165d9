//! The language model's side: the [`provider::Provider`] trait (messages in, text out),
//! the prompts and JSON Schemas each pass sends, the OpenAI-compatible wire format and
//! the embedded offline provider. Uses `text`, `model` and `gate`; never the store.

pub mod answer;
pub mod context;
pub mod gbnf;
pub mod offline;
pub mod openai;
pub mod prompt;
pub mod provider;
