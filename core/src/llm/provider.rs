//! The Provider trait — messages in, text out — and tolerant parsing of model replies.

mod style;

pub use style::{switch_line, AutoStyle, ProposalStyle, StyleCell, StyleSetting, StyleState};

use crate::model::pass::PassKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a request is for. A remote model reads only the messages; the embedded offline
/// provider uses the task to pick its deterministic procedure over the same messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Task {
    /// A chat reply (streamed where the transport can).
    Chat,
    /// Proposals for one pass (the encoder's facts or a Sleep pass's edits), as JSON.
    Propose(PassKind),
    /// One Wake quiz question about a fact.
    QuizQuestion,
}

/// One message of a conversation with the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: "system".into(), content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: "user".into(), content: content.into() }
    }
}

/// A request to the model (serialised only between the page and a worker of its own).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub task: Task,
    pub messages: Vec<Message>,
    /// Ask for a JSON reply; the schema, when given, constrains it further.
    pub json: Option<JsonContract>,
    pub max_tokens: u32,
}

/// The JSON the reply must follow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonContract {
    pub name: String,
    pub schema: Value,
}

/// The model's reply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub text: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// The reply was cut off at the token limit (finish_reason = length).
    pub truncated: bool,
}

/// The model could not be reached or did not answer usably.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ProviderError {
    /// Network failure, CORS refusal, DNS — the request never got an answer.
    Unreachable(String),
    Timeout {
        seconds: u32,
    },
    Http {
        status: u16,
        body: String,
    },
    /// The HTTP body was not the expected OpenAI-shaped JSON.
    BadResponse(String),
    /// The user stopped the call (the request was aborted, so the server stops too).
    Stopped,
    /// A model run in the page failed (it could not load, ran out of memory, or its
    /// prompt did not fit its context), in the runtime's words.
    Runtime(String),
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProviderError::Unreachable(m) => write!(
                f,
                "the model endpoint could not be reached ({m}); check the base URL, that the server runs, and that it allows cross-origin requests (CORS)"
            ),
            ProviderError::Timeout { seconds } => {
                write!(f, "the model did not answer within {seconds} s; try a smaller model or raise the timeout")
            }
            ProviderError::Http { status, body } => {
                let body: String = body.chars().take(300).collect();
                write!(f, "the model endpoint answered HTTP {status}: {body}")
            }
            ProviderError::BadResponse(m) => write!(f, "the model endpoint sent something unexpected: {m}"),
            ProviderError::Stopped => write!(f, "stopped by the user"),
            ProviderError::Runtime(m) => write!(f, "the in-page model failed: {m}"),
        }
    }
}

impl std::error::Error for ProviderError {}

/// Tokens a chat prompt may carry by default — instructions, recent turns, the message
/// and as much memory as fits the rest: with a 200-token reply it fits a 4k-context model.
pub const DEFAULT_MEMORY_TOKENS: u64 = 2000;

/// A language model behind any transport. No `Send` bound: the browser's fetch is not.
#[allow(async_fn_in_trait)]
pub trait Provider {
    /// A short label for logs and the UI (`offline (deterministic)`, `smollm2 @ http://…`).
    fn label(&self) -> String;

    /// How this provider is asked for proposals: free text, or a choice among candidates
    /// the code prepared (small models). Asked before every encoder call and every pass.
    fn proposal_style(&self) -> ProposalStyle {
        ProposalStyle::FreeText
    }

    /// Told how many of the proposals it just made the gates refused, so a provider on
    /// `auto` can move to choosing from candidates when free text mostly fails.
    fn observe_refusals(&self, _proposed: usize, _refused: usize) {}

    /// Told that a free-text reply could not be used: `why` says how (cut off at the token
    /// limit, not the JSON asked for). A provider on `auto` moves to choosing at once and
    /// returns a line saying so; the caller retries the call in the new style and shows
    /// the line. `None`: nothing changed.
    fn observe_unusable(&self, _why: &str) -> Option<String> {
        None
    }

    /// Tokens of memory a chat prompt to this provider may carry (set per provider in
    /// Settings: a model with a small context window gets a smaller budget).
    fn memory_tokens(&self) -> u64 {
        DEFAULT_MEMORY_TOKENS
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError>;

    /// Like `complete`, calling `on_delta` with each piece of the reply as it arrives.
    /// Providers that cannot stream hand over the whole reply at once.
    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        let completion = self.complete(request).await?;
        on_delta(&completion.text);
        Ok(completion)
    }
}

/// A provider around another one — a stop check, a meter, a recorder. Every [`Provider`]
/// method is forwarded to [`Layer::inner`] once, here, so no wrapper can drop one; the
/// layer only says what it adds around each call.
///
/// ```
/// use nocturne_core::llm::offline::OfflineProvider;
/// use nocturne_core::llm::provider::{Completion, Layer, Provider, Request};
/// use std::cell::Cell;
/// struct Counted { inner: OfflineProvider, calls: Cell<u32> }
/// impl Layer for Counted {
///     type Inner = OfflineProvider;
///     fn inner(&self) -> &OfflineProvider { &self.inner }
///     fn after_call(&self, _: &Completion) { self.calls.set(self.calls.get() + 1) }
/// }
/// let p = Counted { inner: OfflineProvider, calls: Cell::new(0) };
/// assert_eq!(p.label(), OfflineProvider.label());
/// ```
pub trait Layer {
    type Inner: Provider;
    fn inner(&self) -> &Self::Inner;
    /// Asked before each call; an error ends the call there (a stopped action).
    fn before_call(&self) -> Result<(), ProviderError> {
        Ok(())
    }
    /// Given each completion the inner provider returned.
    fn after_call(&self, _completion: &Completion) {}
    /// The chat prompt's memory budget, when the layer sets its own.
    fn memory_budget(&self) -> Option<u64> {
        None
    }
}

impl<L: Layer> Provider for L {
    fn label(&self) -> String {
        self.inner().label()
    }
    fn proposal_style(&self) -> ProposalStyle {
        self.inner().proposal_style()
    }
    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.inner().observe_refusals(proposed, refused)
    }
    fn observe_unusable(&self, why: &str) -> Option<String> {
        self.inner().observe_unusable(why)
    }
    fn memory_tokens(&self) -> u64 {
        self.memory_budget().unwrap_or_else(|| self.inner().memory_tokens())
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.before_call()?;
        let completion = self.inner().complete(request).await?;
        self.after_call(&completion);
        Ok(completion)
    }
    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        self.before_call()?;
        let completion = self.inner().complete_streaming(request, on_delta).await?;
        self.after_call(&completion);
        Ok(completion)
    }
}

/// Implements [`Provider`] for an enum whose variants each hold one provider, forwarding
/// every method to the variant's (the app's and the command line's choice of provider).
///
/// ```
/// use nocturne_core::llm::offline::OfflineProvider;
/// use nocturne_core::llm::provider::Provider;
/// enum Chosen { Offline(OfflineProvider), AlsoOffline(OfflineProvider) }
/// nocturne_core::forward_provider!(Chosen { Offline, AlsoOffline });
/// assert_eq!(Chosen::AlsoOffline(OfflineProvider).label(), OfflineProvider.label());
/// ```
#[macro_export]
macro_rules! forward_provider {
    ($name:ident { $($variant:ident),+ $(,)? }) => {
        impl $crate::llm::provider::Provider for $name {
            fn label(&self) -> String {
                match self { $($name::$variant(p) => p.label(),)+ }
            }
            fn proposal_style(&self) -> $crate::llm::provider::ProposalStyle {
                match self { $($name::$variant(p) => p.proposal_style(),)+ }
            }
            fn observe_refusals(&self, proposed: usize, refused: usize) {
                match self { $($name::$variant(p) => p.observe_refusals(proposed, refused),)+ }
            }
            fn observe_unusable(&self, why: &str) -> Option<String> {
                match self { $($name::$variant(p) => p.observe_unusable(why),)+ }
            }
            fn memory_tokens(&self) -> u64 {
                match self { $($name::$variant(p) => p.memory_tokens(),)+ }
            }
            async fn complete(
                &self,
                request: &$crate::llm::provider::Request,
            ) -> Result<$crate::llm::provider::Completion, $crate::llm::provider::ProviderError> {
                match self { $($name::$variant(p) => p.complete(request).await,)+ }
            }
            async fn complete_streaming(
                &self,
                request: &$crate::llm::provider::Request,
                on_delta: &mut dyn FnMut(&str),
            ) -> Result<$crate::llm::provider::Completion, $crate::llm::provider::ProviderError> {
                match self { $($name::$variant(p) => p.complete_streaming(request, on_delta).await,)+ }
            }
        }
    };
}

/// A model reply that is not what was asked for: what is wrong with it, and the start of
/// what came (for the pass's error event, and a style that moves to choosing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyError {
    Empty,
    /// No JSON object anywhere in the reply.
    NoJson {
        reply: String,
    },
    /// An object that does not parse, and the parser's words.
    Malformed {
        why: String,
        reply: String,
    },
    /// Braces that never close: the reply was cut short.
    Truncated {
        reply: String,
    },
    /// JSON, but not an object.
    NotAnObject {
        reply: String,
    },
    /// An object whose field is missing or of the wrong shape: which, and how.
    Field {
        what: String,
        reply: String,
    },
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplyError::Empty => f.write_str("the model returned an empty reply"),
            ReplyError::NoJson { reply } => write!(f, "the reply holds no JSON object: {reply}"),
            ReplyError::Malformed { why, reply } => write!(f, "the reply's JSON is malformed ({why}): {reply}"),
            ReplyError::Truncated { reply } => {
                write!(f, "the reply's JSON is truncated (unbalanced braces): {reply}")
            }
            ReplyError::NotAnObject { reply } => write!(f, "expected a JSON object, got: {reply}"),
            ReplyError::Field { what, reply } => write!(f, "{what}: {reply}"),
        }
    }
}

impl std::error::Error for ReplyError {}

/// The words of a reply error, where a refusal or a note is written.
impl From<ReplyError> for String {
    fn from(e: ReplyError) -> String {
        e.to_string()
    }
}

/// Finds the JSON object in a model reply: the whole text, a fenced code block, or the
/// first balanced `{…}` inside prose. Errors say what was wrong, for the pass error event.
pub fn extract_json(text: &str) -> Result<Value, ReplyError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ReplyError::Empty);
    }
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return object_or_err(v);
    }
    if let Some(start) = trimmed.find("```") {
        let after = &trimmed[start + 3..];
        let body = after.trim_start_matches(|c: char| c.is_alphanumeric());
        if let Some(end) = body.find("```") {
            if let Ok(v) = serde_json::from_str::<Value>(body[..end].trim()) {
                return object_or_err(v);
            }
        }
    }
    let Some(open) = trimmed.find('{') else {
        return Err(ReplyError::NoJson { reply: preview(trimmed) });
    };
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in trimmed[open..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let candidate = &trimmed[open..open + i + 1];
                    return serde_json::from_str::<Value>(candidate)
                        .map_err(|e| ReplyError::Malformed { why: e.to_string(), reply: preview(candidate) })
                        .and_then(object_or_err);
                }
            }
            _ => {}
        }
    }
    Err(ReplyError::Truncated { reply: preview(trimmed) })
}

fn object_or_err(v: Value) -> Result<Value, ReplyError> {
    if v.is_object() {
        Ok(v)
    } else {
        Err(ReplyError::NotAnObject { reply: preview(&v.to_string()) })
    }
}

fn preview(s: &str) -> String {
    let p: String = s.chars().take(120).collect();
    if p.len() < s.len() {
        format!("{p}…")
    } else {
        p
    }
}

/// The proposal list under `key` in a reply. A missing key means the model proposed
/// nothing; a key that is not an array is an error.
pub fn proposals(reply: &Value, key: &str) -> Result<Vec<Value>, ReplyError> {
    match reply.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(list)) => Ok(list.clone()),
        Some(other) => Err(ReplyError::Field {
            what: format!("\"{key}\" must be a list, got"),
            reply: preview(&other.to_string()),
        }),
    }
}

/// Rough token count for budgeting prompts: one token per four bytes.
pub fn estimate_tokens(text: &str) -> u64 {
    crate::text::textmath::estimate_tokens(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};

    /// A provider whose every method answers something no default would.
    #[derive(Default)]
    struct Marked {
        refusals: Cell<(usize, usize)>,
        unusable: RefCell<String>,
    }

    impl Provider for Marked {
        fn label(&self) -> String {
            "marked".into()
        }
        fn proposal_style(&self) -> ProposalStyle {
            ProposalStyle::Candidates
        }
        fn observe_refusals(&self, proposed: usize, refused: usize) {
            self.refusals.set((proposed, refused));
        }
        fn observe_unusable(&self, why: &str) -> Option<String> {
            *self.unusable.borrow_mut() = why.into();
            Some("switched".into())
        }
        fn memory_tokens(&self) -> u64 {
            777
        }
        async fn complete(&self, _: &Request) -> Result<Completion, ProviderError> {
            Ok(Completion { text: "whole".into(), ..Default::default() })
        }
        async fn complete_streaming(
            &self,
            _: &Request,
            on_delta: &mut dyn FnMut(&str),
        ) -> Result<Completion, ProviderError> {
            on_delta("piece");
            Ok(Completion { text: "streamed".into(), ..Default::default() })
        }
    }

    struct Around(Marked);

    impl Layer for Around {
        type Inner = Marked;
        fn inner(&self) -> &Marked {
            &self.0
        }
    }

    enum Either {
        Marked(Marked),
        Around(Around),
    }
    forward_provider!(Either { Marked, Around });

    /// Every method of `p` reaches the marked provider inside it.
    fn forwards_everything(p: &impl Provider, inner: &Marked) {
        assert_eq!(p.label(), "marked");
        assert_eq!(p.proposal_style(), ProposalStyle::Candidates);
        p.observe_refusals(5, 3);
        assert_eq!(inner.refusals.get(), (5, 3));
        assert_eq!(p.observe_unusable("cut off").as_deref(), Some("switched"));
        assert_eq!(*inner.unusable.borrow(), "cut off");
        assert_eq!(p.memory_tokens(), 777);
        let request = Request { task: Task::Chat, messages: vec![], json: None, max_tokens: 8 };
        let whole = pollster::block_on(p.complete(&request)).expect("complete");
        assert_eq!(whole.text, "whole");
        let mut pieces = String::new();
        let streamed = pollster::block_on(p.complete_streaming(&request, &mut |d| pieces.push_str(d))).expect("stream");
        assert_eq!((streamed.text.as_str(), pieces.as_str()), ("streamed", "piece"));
    }

    #[test]
    fn a_layer_and_a_forwarded_enum_pass_on_every_provider_method() {
        let around = Around(Marked::default());
        forwards_everything(&around, &around.0);
        let either = Either::Around(Around(Marked::default()));
        let Either::Around(inner) = &either else { unreachable!() };
        forwards_everything(&either, &inner.0);
        let either = Either::Marked(Marked::default());
        let Either::Marked(inner) = &either else { unreachable!() };
        forwards_everything(&either, inner);
    }

    #[test]
    fn extracts_json_from_fences_and_prose() {
        assert!(extract_json("{\"drop\":[]}").is_ok());
        assert!(extract_json("Sure!\n```json\n{\"drop\": []}\n```\n").is_ok());
        assert!(extract_json("Here you go: {\"drop\": [{\"reason\": \"a } in text\"}]} done").is_ok());
    }

    #[test]
    fn refuses_truncated_and_non_json() {
        assert!(extract_json("{\"drop\": [{\"itemId\": \"m_1\"").unwrap_err().to_string().contains("truncated"));
        assert!(extract_json("I cannot help with that").unwrap_err().to_string().contains("no JSON"));
        assert!(extract_json("[1,2]").unwrap_err().to_string().contains("object"));
        assert!(extract_json("   ").unwrap_err().to_string().contains("empty"));
    }
}
