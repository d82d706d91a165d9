//! What changes memory: the engine's deterministic rules, a pass as a plain function
//! from proposals to a plan of edits, the Sleep orchestrator, a chat turn and an import.
//! Only the orchestrators are async, and they only sequence calls to the store and the
//! model.

pub mod chat;
pub mod edit;
pub mod estimate;
pub mod focus;
pub mod import;
pub mod import_plan;
pub mod kept;
pub mod pair_search;
pub mod pass;
pub mod policy;
pub mod report;
pub mod review;
pub mod rules;
pub mod sleep;
pub mod stop;
pub mod told;
