//! What a model that chooses every candidate replies: the scripted half of the providers
//! that test the candidates style (the gates still judge each choice).

use crate::llm::provider::Request;
use crate::model::pass::PassKind;
use serde_json::{json, Value};

/// The reply to a choose request of `pass` that picks every statement or option the code
/// offered: `{"facts": [...]}` for Encode (the schema's enum of candidate statements),
/// `{"<key>": [...]}` with each offered option for a Sleep pass. Panics (a test fails)
/// when the request is not a choose request of that shape.
pub fn everything(request: &Request, pass: PassKind) -> Value {
    let chosen: Vec<Value> = if pass == PassKind::Encode {
        let schema = &request.json.as_ref().expect("a choose request has a schema").schema;
        schema["properties"]["facts"]["items"]["properties"]["text"]["enum"]
            .as_array()
            .expect("the candidates are an enum")
            .iter()
            .map(|t| json!({"text": t, "category": "context"}))
            .collect()
    } else {
        let payload: Value =
            serde_json::from_str(&request.messages.last().expect("a payload").content).expect("the payload is JSON");
        payload["options"]
            .as_array()
            .expect("the payload lists options")
            .iter()
            .map(|o| {
                let mut o = o.clone();
                o["reason"] = json!("offered");
                o
            })
            .collect()
    };
    json!({ pass.proposal_key(): chosen })
}
