//! The command line's OpenAI-compatible provider: the same wire format as the browser's
//! (nocturne_core::llm::openai), over a blocking HTTP client. The JSON mode falls back
//! json_schema → json_object → plain when a server refuses one, remembered for the run.

use nocturne_core::llm::openai::{self, JsonMode};
use nocturne_core::llm::provider::{
    Completion, ProposalStyle, Provider, ProviderError, Request, StyleCell, StyleSetting, StyleState,
};
use std::cell::Cell;
use std::time::Duration;

/// An OpenAI-compatible endpoint.
pub struct OpenAi {
    base_url: String,
    model: String,
    /// Read from the environment variable the user named; never printed.
    api_key: Option<String>,
    timeout: Duration,
    mode: Cell<JsonMode>,
    style: StyleCell,
    agent: ureq::Agent,
}

impl std::fmt::Debug for OpenAi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAi").field("base_url", &self.base_url).field("model", &self.model).finish_non_exhaustive()
    }
}

impl OpenAi {
    pub fn new(base_url: &str, model: &str, api_key: Option<String>, timeout: Duration, style: StyleSetting) -> Self {
        OpenAi {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key,
            timeout,
            mode: Cell::new(JsonMode::Schema),
            style: StyleCell::new(style.start(model), model),
            agent: ureq::AgentBuilder::new().timeout(timeout).build(),
        }
    }

    /// The JSON mode this endpoint ended up with.
    pub fn mode(&self) -> JsonMode {
        self.mode.get()
    }

    /// The proposal style in use (it may have moved to candidates under `auto`).
    pub fn style(&self) -> StyleState {
        self.style.get()
    }

    /// Sends `request` as a stream and reads the reply as it comes: a server notices a
    /// client that went away (Ctrl-C) only while it streams, so it stops generating.
    fn post(&self, request: &Request) -> Result<Completion, ProviderError> {
        loop {
            let mode = self.mode.get();
            let body = openai::body(request, &self.model, mode, true).to_string();
            let mut call =
                self.agent.post(&format!("{}/chat/completions", self.base_url)).set("Content-Type", "application/json");
            if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty()) {
                call = call.set("Authorization", &format!("Bearer {key}"));
            }
            let redact = |t: &str| openai::redact(t, self.api_key.as_deref());
            match call.send_string(&body) {
                Ok(resp) => return read_reply(resp),
                Err(ureq::Error::Status(status, resp)) => {
                    let text = resp.into_string().unwrap_or_default();
                    match mode.weaker() {
                        Some(next) if request.json.is_some() && openai::refuses_format(status, &text) => {
                            self.mode.set(next)
                        }
                        _ => return Err(ProviderError::Http { status, body: redact(&text) }),
                    }
                }
                Err(ureq::Error::Transport(t)) => {
                    let message = redact(&t.to_string());
                    return Err(if message.contains("timed out") {
                        ProviderError::Timeout { seconds: self.timeout.as_secs() as u32 }
                    } else {
                        ProviderError::Unreachable(message)
                    });
                }
            }
        }
    }
}

impl Provider for OpenAi {
    fn proposal_style(&self) -> ProposalStyle {
        self.style.current()
    }

    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.style.observe(proposed, refused)
    }

    fn observe_unusable(&self, why: &str) -> Option<String> {
        self.style.unusable(why)
    }

    fn label(&self) -> String {
        format!("{} @ {}", self.model, self.base_url)
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.post(request)
    }
}

/// An event stream read line by line, or a plain JSON body from a server that ignores
/// `stream`.
fn read_reply(resp: ureq::Response) -> Result<Completion, ProviderError> {
    use std::io::BufRead;
    let unreadable = |e: std::io::Error| ProviderError::Unreachable(format!("the reply broke off: {e}"));
    if !resp.content_type().contains("event-stream") {
        let text =
            resp.into_string().map_err(|e| ProviderError::BadResponse(format!("the body could not be read: {e}")))?;
        return openai::parse_completion(&text);
    }
    let mut completion = Completion::default();
    for line in std::io::BufReader::new(resp.into_reader()).lines() {
        if openai::stream_line(&line.map_err(unreadable)?, &mut completion)? == openai::StreamStep::Done {
            break;
        }
    }
    Ok(completion)
}
