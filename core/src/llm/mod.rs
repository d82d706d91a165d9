//! The language model's side: the [`provider::Provider`] trait (messages in, text out),
//! the prompts and JSON Schemas each pass sends, the OpenAI-compatible wire format and
//! the embedded offline provider. Uses `text`, `model`, `gate` and the store's retrieval;
//! never a store itself.

pub mod answer;
pub mod context;
pub mod first;
pub mod gbnf;
pub mod offline;
pub mod openai;
pub mod prompt;
pub mod provider;
