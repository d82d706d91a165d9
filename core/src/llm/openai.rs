//! The OpenAI-compatible wire format, shared by every transport (the browser's fetch and
//! the command line's HTTP client): the request body for each JSON mode, detection of a
//! server refusing `response_format`, and parsing of a completion. Pure: no IO here.

use crate::llm::provider::{Completion, ProviderError, Request};
use serde_json::{json, Value};

/// How a server takes structured output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonMode {
    /// `response_format: {"type":"json_schema", …}` with a schema built from the data.
    Schema,
    /// `response_format: {"type":"json_object"}`.
    Object,
    /// No `response_format` ("json mode unsupported"): the prompt alone asks for JSON.
    Plain,
}

impl JsonMode {
    /// As shown in Settings.
    pub fn label(self) -> &'static str {
        match self {
            JsonMode::Schema => "json_schema",
            JsonMode::Object => "json_object",
            JsonMode::Plain => "json mode unsupported",
        }
    }

    /// The next mode to try when a server refuses this one.
    pub fn weaker(self) -> Option<JsonMode> {
        match self {
            JsonMode::Schema => Some(JsonMode::Object),
            JsonMode::Object => Some(JsonMode::Plain),
            JsonMode::Plain => None,
        }
    }
}

/// A common OpenAI-compatible server: where it listens by default and how it takes a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub base_url: &'static str,
    /// How the key is sent, in words for Settings.
    pub key: &'static str,
}

/// The servers Settings offers, by their usual addresses. Every one takes the key (when it
/// needs one) as `Authorization: Bearer …`.
pub const PRESETS: &[Preset] = &[
    Preset { name: "OpenAI", base_url: "https://api.openai.com/v1", key: "required: Authorization: Bearer sk-…" },
    Preset { name: "LM Studio", base_url: "http://127.0.0.1:1234/v1", key: "none needed" },
    Preset { name: "Ollama", base_url: "http://127.0.0.1:11434/v1", key: "none needed (any text is accepted)" },
    Preset { name: "llama.cpp server", base_url: "http://127.0.0.1:8080/v1", key: "only if started with --api-key" },
    Preset { name: "vLLM", base_url: "http://127.0.0.1:8000/v1", key: "only if started with --api-key" },
];

/// The model ids of a `GET {baseUrl}/models` reply (`{"data":[{"id":…}]}`); empty when
/// the body is something else.
///
/// ```
/// use nocturne_core::llm::openai::model_ids;
/// assert_eq!(model_ids(r#"{"object":"list","data":[{"id":"smollm2"},{"id":"qwen"}]}"#), ["smollm2", "qwen"]);
/// assert!(model_ids("<html>").is_empty());
/// ```
pub fn model_ids(body: &str) -> Vec<String> {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("data").and_then(Value::as_array).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// What *Test connection* found at an endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectionReport {
    /// Model ids the server lists (`GET /models`); `None` when it lists none or refuses.
    pub models: Option<Vec<String>>,
    /// The JSON mode a small structured request went through with.
    pub json_mode: JsonMode,
    /// Milliseconds for that request, there and back.
    pub round_trip_ms: f64,
    /// Whether the model named in Settings is among the listed ones.
    pub model_listed: Option<bool>,
}

impl ConnectionReport {
    /// One line for Settings: `Connected: 1 model listed (smollm2, the one in use); JSON
    /// mode json_schema accepted; round trip 412 ms.`
    pub fn describe(&self) -> String {
        let models = match &self.models {
            None => "the server lists no models".to_string(),
            Some(ids) => {
                let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
                let more = if ids.len() > 5 { format!(" and {} more", ids.len() - 5) } else { String::new() };
                let in_use = match self.model_listed {
                    Some(true) => ", the one in use among them",
                    Some(false) => "; the model in Settings is not among them",
                    None => "",
                };
                format!("{} model(s) listed ({}{more}){in_use}", ids.len(), shown.join(", "))
            }
        };
        let mode = match self.json_mode {
            JsonMode::Plain => "JSON mode not accepted (the prompt alone asks for JSON)".to_string(),
            m => format!("JSON mode {} accepted", m.label()),
        };
        format!("Connected: {models}; {mode}; round trip {:.0} ms.", self.round_trip_ms)
    }
}

/// The body of `POST {baseUrl}/chat/completions`: deterministic settings (temperature 0,
/// no prompt cache) and the `response_format` of `mode` when the request wants JSON.
pub fn body(request: &Request, model: &str, mode: JsonMode, stream: bool) -> Value {
    let mut body = json!({
        "model": model,
        "messages": request.messages,
        "temperature": 0,
        "cache_prompt": false,
        "max_tokens": request.max_tokens,
        "stream": stream,
    });
    if stream {
        // The token counts come in the last event only when asked for.
        body["stream_options"] = json!({"include_usage": true});
    }
    if let Some(contract) = &request.json {
        match mode {
            JsonMode::Schema => {
                body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": contract.name, "strict": true, "schema": contract.schema}});
            }
            JsonMode::Object => body["response_format"] = json!({"type": "json_object"}),
            JsonMode::Plain => {}
        }
    }
    body
}

/// Whether an error answer means "this server does not take that response_format" (LM
/// Studio's 400 for json_object, older llama.cpp's for json_schema, …).
pub fn refuses_format(status: u16, body: &str) -> bool {
    (status == 400 || status == 422)
        && ["response_format", "json_schema", "json_object"].iter().any(|k| body.contains(k))
}

/// Reads an OpenAI-shaped completion body. A body that is not JSON, is cut short, or has
/// no message is a `BadResponse` naming what was wrong; `finish_reason: length` marks the
/// reply as truncated.
pub fn parse_completion(text: &str) -> Result<Completion, ProviderError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let preview: String = text.chars().take(120).collect();
        ProviderError::BadResponse(format!("the body is not valid JSON ({e}): {preview}"))
    })?;
    let choice = &value["choices"][0];
    let content = choice["message"]["content"]
        .as_str()
        .ok_or_else(|| ProviderError::BadResponse("the body has no choices[0].message.content".into()))?;
    Ok(Completion {
        text: content.to_string(),
        prompt_tokens: value["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: value["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        truncated: choice["finish_reason"].as_str() == Some("length"),
    })
}

/// What one line of a server-sent-event stream added.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamStep {
    /// A piece of the reply (already appended to the completion).
    Delta(String),
    /// `data: [DONE]`: the stream is over.
    Done,
    /// A comment, a blank line or an event with no text.
    Nothing,
}

/// Folds one line of an OpenAI-style event stream into `completion`: text deltas, the
/// `length` finish reason and usage. Streaming matters beyond showing a reply as it comes:
/// a server notices a client that went away only while it streams, so a stopped request
/// stops the model's generation instead of leaving it to run on.
///
/// ```
/// use nocturne_core::llm::openai::{stream_line, StreamStep};
/// use nocturne_core::llm::provider::Completion;
/// let mut c = Completion::default();
/// assert_eq!(stream_line(r#"data: {"choices":[{"delta":{"content":"Hi"}}]}"#, &mut c).unwrap(), StreamStep::Delta("Hi".into()));
/// assert_eq!(stream_line("data: [DONE]", &mut c).unwrap(), StreamStep::Done);
/// assert_eq!(c.text, "Hi");
/// ```
pub fn stream_line(line: &str, completion: &mut Completion) -> Result<StreamStep, ProviderError> {
    let Some(data) = line.trim().strip_prefix("data:") else { return Ok(StreamStep::Nothing) };
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(StreamStep::Done);
    }
    let event: Value = serde_json::from_str(data)
        .map_err(|e| ProviderError::BadResponse(format!("a stream event is not JSON ({e})")))?;
    if event["choices"][0]["finish_reason"].as_str() == Some("length") {
        completion.truncated = true;
    }
    if let Some(usage) = event.get("usage").filter(|u| u.is_object()) {
        completion.prompt_tokens = usage["prompt_tokens"].as_u64().unwrap_or(0);
        completion.completion_tokens = usage["completion_tokens"].as_u64().unwrap_or(0);
    }
    match event["choices"][0]["delta"]["content"].as_str() {
        Some(delta) if !delta.is_empty() => {
            completion.text.push_str(delta);
            Ok(StreamStep::Delta(delta.to_string()))
        }
        _ => Ok(StreamStep::Nothing),
    }
}

/// `text` with every occurrence of the API key replaced, for error messages.
pub fn redact(text: &str, api_key: Option<&str>) -> String {
    match api_key {
        Some(key) if !key.is_empty() => text.replace(key, "<api key>"),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::prompt;

    #[test]
    fn bodies_follow_the_mode() {
        let req = prompt::quiz_question_request("I live in Lisbon.", false);
        assert_eq!(body(&req, "m", JsonMode::Schema, false)["response_format"]["type"], "json_schema");
        assert_eq!(body(&req, "m", JsonMode::Object, false)["response_format"]["type"], "json_object");
        assert!(body(&req, "m", JsonMode::Plain, false).get("response_format").is_none());
        let chat = prompt::chat_request(&[], &[], "hi");
        assert!(body(&chat, "m", JsonMode::Schema, true).get("response_format").is_none());
        assert_eq!(body(&chat, "m", JsonMode::Schema, true)["temperature"], 0);
    }

    #[test]
    fn refusals_of_response_format_are_recognised() {
        assert!(refuses_format(400, "'response_format.type' must be 'json_schema' or 'text'"));
        assert!(refuses_format(
            400,
            r#"response_format type must be one of "text" or "json_object", but got: json_schema"#
        ));
        assert!(!refuses_format(400, "request (5000 tokens) exceeds the available context size"));
        assert!(!refuses_format(500, "response_format"));
    }

    #[test]
    fn completions_parse_or_say_why_not() {
        let ok = parse_completion(r#"{"choices":[{"message":{"content":"hi"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#).expect("ok");
        assert_eq!((ok.text.as_str(), ok.truncated, ok.prompt_tokens), ("hi", true, 3));
        assert!(
            matches!(parse_completion("{\"choices\":[{\"mess"), Err(ProviderError::BadResponse(m)) if m.contains("not valid JSON"))
        );
        assert!(matches!(parse_completion("{}"), Err(ProviderError::BadResponse(m)) if m.contains("choices")));
        assert_eq!(redact("Bearer sk-1 bad", Some("sk-1")), "Bearer <api key> bad");
    }
}
