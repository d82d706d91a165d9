//! The GBNF grammars made from every pass's JSON Schema (both proposal styles, and the
//! encoder's) accept what the schema allows and refuse what it does not: checked with a
//! small recognizer of the GBNF the converter writes, over values sampled from each
//! schema and over a careless model's replies (an invented id, a missing field, an extra
//! one, one item too many, an over-long reason, a cut-off reply).

use nocturne_core::llm::gbnf::{self, Fit, Grammar};
use nocturne_core::llm::prompt::{self, Budget};
use nocturne_core::llm::provider::ProposalStyle;
use nocturne_core::model::candidate::{Candidates, ConflictCandidate, DuplicateCandidate, MergeCandidate};
use nocturne_core::text::statements;
use nocturne_core::{Block, Item, PassKind, DAY};
use serde_json::{json, Value};

const NOW: i64 = 1_767_225_600;

/// Every schema the core sends a model, named.
fn schemas() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for pass in PassKind::ALL {
        out.push((format!("{} (free text)", pass.name()), prompt::schema(pass, &["m_1", "m_2", "m_3"], 3)));
    }
    let offered = statements::statements(&["I am not allergic to peanuts and I live in \"Ghent\". How are you?"]);
    out.push(("encode (candidates)".into(), prompt::encode_choice_request(&offered).json.expect("schema").schema));
    let fact = |n: u64, category: &str, text: &str, age: i64| Item {
        category: category.into(),
        ..nocturne_core::testkit::conformance::fact(n, Block::Scratch, text, NOW - age * DAY)
    };
    let items = [
        fact(1, "identity", "I live in Lisbon.", 1),
        fact(2, "identity", "The user lives in Lisbon.", 1),
        fact(3, "context", "The kettle is broken.", 90),
        fact(4, "identity", "I live in Porto now.", 0),
    ];
    let refs: Vec<&Item> = items.iter().collect();
    // The chat's answers: free text citing the prompt's ids (or none to cite), and a choice.
    use nocturne_core::llm::{answer, context::Selection};
    let full = Selection { facts: refs.clone(), left_out: 0, tokens: 0, now: Some(NOW) };
    let free = answer::free_request(&full, &[], "Where do I live?");
    out.push(("answer (free text)".into(), free.json.expect("schema").schema));
    let empty = Selection { facts: Vec::new(), left_out: 0, tokens: 0, now: Some(NOW) };
    let bare = answer::free_request(&empty, &[], "Where do I live?");
    out.push(("answer (free text, empty memory)".into(), bare.json.expect("schema").schema));
    let choose = answer::choose_request(&refs[..3], "Where do I live?", NOW);
    out.push(("answer (choose)".into(), choose.json.expect("schema").schema));
    let ask = |pass, c: Candidates| {
        let policy = nocturne_core::testkit::article_policy(); // forgetting by age: forget has proposals
        prompt::pass_requests(pass, &refs, &c, &policy, NOW, &Budget::default(), ProposalStyle::Candidates)
    };
    let runs = [
        (
            PassKind::Dedupe,
            Candidates::Duplicates(vec![DuplicateCandidate {
                drop_id: "m_2".into(),
                keeper_id: "m_1".into(),
                similarity: 1.0,
            }]),
        ),
        (
            PassKind::Supersede,
            Candidates::Conflicts(vec![ConflictCandidate {
                old_id: "m_1".into(),
                new_id: "m_4".into(),
                similarity: 0.5,
            }]),
        ),
        (
            PassKind::Merge,
            Candidates::Merges(vec![MergeCandidate { into_id: "m_1".into(), from_id: "m_2".into(), shared: 2 }]),
        ),
        (PassKind::Promote, Candidates::None),
        (PassKind::Forget, Candidates::None),
    ];
    for (pass, c) in runs {
        let requests = ask(pass, c);
        assert!(!requests.is_empty(), "{} offers something to choose", pass.name());
        for r in requests {
            out.push((format!("{} (candidates)", pass.name()), r.json.expect("schema").schema));
        }
    }
    out
}

#[test]
fn every_pass_schema_becomes_a_grammar_that_accepts_what_it_allows() {
    for (name, schema) in schemas() {
        let text = gbnf::grammar(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        let g = Grammar::parse(&text).expect("parses");
        for seed in 0..40u64 {
            let value = sample(&schema, &mut Rng(seed * 7919 + 1));
            let compact = value.to_string();
            assert!(accepts(&g, &compact), "{name}: refused a valid reply {compact}\n{text}");
            // The in-page decoder asks after every token: each start of a valid reply may go on.
            let chars: Vec<char> = compact.chars().collect();
            for cut in [1, chars.len() / 3, chars.len() / 2, chars.len() - 1] {
                let head: String = chars[..cut].iter().collect();
                assert_eq!(g.fit(&head), Fit::Prefix, "{name}: cut off {head}");
            }
            let spaced = compact.replace("\":", "\": ").replace(",\"", ", \"");
            assert!(accepts(&g, &spaced), "{name}: refused single spaces {spaced}");
        }
    }
}

#[test]
fn every_pass_grammar_refuses_a_careless_models_replies() {
    // The answers' shapes have their own careless replies, below.
    for (name, schema) in schemas().into_iter().filter(|(n, _)| !n.starts_with("answer")) {
        let g = Grammar::parse(&gbnf::grammar(&schema).expect("grammar")).expect("parses");
        let valid = sample_nonempty(&schema);
        let key = schema["properties"].as_object().and_then(|p| p.keys().next()).expect("key").clone();
        let mut faults: Vec<(&str, String)> = vec![
            ("cut off", valid.to_string()[..valid.to_string().len() - 2].to_string()),
            ("pretty-printed past one space", serde_json::to_string_pretty(&valid).expect("json")),
            ("prose around it", format!("Sure! {valid}")),
        ];
        let mut entry = valid[&key][0].clone();
        let fields: Vec<String> = entry.as_object().expect("object").keys().cloned().collect();
        let mut missing = valid.clone();
        missing[&key][0].as_object_mut().expect("object").remove(&fields[0]);
        faults.push(("a required field missing", missing.to_string()));
        let mut extra = valid.clone();
        extra[&key][0]["confidence"] = json!(0.9);
        faults.push(("an extra field", extra.to_string()));
        for field in &fields {
            if entry[field].is_string() && bound(&schema["properties"][&key]["items"], field) {
                let mut invented = valid.clone();
                invented[&key][0][field] = json!(format!("{}-invented", entry[field].as_str().expect("str")));
                faults.push(("an invented value", invented.to_string()));
            }
        }
        if let Some(max) = max_items(&schema, &key) {
            let mut many = valid.clone();
            many[&key] = Value::Array(vec![valid[&key][0].clone(); max + 1]);
            faults.push(("one item too many", many.to_string()));
        }
        if entry.get("reason").is_some() {
            entry["reason"] = json!("x".repeat(401));
            let mut long = valid.clone();
            long[&key][0] = entry;
            faults.push(("an over-long reason", long.to_string()));
        }
        for (fault, text) in faults {
            assert!(!accepts(&g, &text), "{name}: accepted {fault}: {text}");
            if fault != "cut off" {
                assert_eq!(g.fit(&text), Fit::Never, "{name}: {fault} could still go on: {text}");
            }
        }
    }
}

#[test]
fn the_answer_grammars_refuse_a_careless_models_replies() {
    let grammar = |name: &str| {
        let (_, schema) = schemas().into_iter().find(|(n, _)| n == name).expect("schema");
        Grammar::parse(&gbnf::grammar(&schema).expect("grammar")).expect("parses")
    };
    let choose = grammar("answer (choose)");
    assert!(accepts(&choose, r#"{"fact":"2"}"#) && accepts(&choose, r#"{"fact":"none"}"#));
    for careless in [r#"{"fact":"4"}"#, r#"{"fact":"m_2"}"#, r#"{"fact":2}"#, r#"{}"#, r#"{"fact":"1","why":"x"}"#] {
        assert_eq!(choose.fit(careless), Fit::Never, "choose accepted {careless}");
    }
    let free = grammar("answer (free text)");
    assert!(accepts(&free, r#"{"answer":"You live in Porto.","cited":["4"]}"#));
    assert!(accepts(&free, r#"{"answer":"I don't have that in memory.","cited":[]}"#));
    let long = format!(r#"{{"answer":"{}","cited":[]}}"#, "a".repeat(801));
    let six = r#"{"answer":"x","cited":["1","2","3","4","1","2"]}"#;
    for careless in
        [r#"{"answer":"x","cited":["9"]}"#, r#"{"answer":"x","cited":["m_1"]}"#, r#"{"cited":["1"]}"#, six, &long]
    {
        assert_eq!(free.fit(careless), Fit::Never, "free text accepted {careless}");
    }
    let bare = grammar("answer (free text, empty memory)");
    assert!(accepts(&bare, r#"{"answer":"Hello."}"#));
    assert_eq!(bare.fit(r#"{"answer":"Hello.","cited":["1"]}"#), Fit::Never, "nothing to cite");
}

#[test]
fn a_schema_with_nothing_to_choose_allows_only_an_empty_list() {
    let schema = prompt::schema(PassKind::Dedupe, &[], 3);
    let g = Grammar::parse(&gbnf::grammar(&schema).expect("grammar")).expect("parses");
    assert!(accepts(&g, r#"{"drop":[]}"#));
    assert!(!accepts(&g, r#"{"drop":[{"duplicateOf":"m_1","itemId":"m_2","reason":"same"}]}"#));
}

/// Whether `field` of an item may only take listed values (`enum` or `const`).
fn bound(items: &Value, field: &str) -> bool {
    let options = items["anyOf"].as_array().cloned().unwrap_or_else(|| vec![items.clone()]);
    options.iter().all(|o| o["properties"][field].get("enum").or_else(|| o["properties"][field].get("const")).is_some())
}

fn accepts(g: &Grammar, text: &str) -> bool {
    g.fit(text) == Fit::Complete
}

fn max_items(schema: &Value, key: &str) -> Option<usize> {
    schema["properties"][key]["maxItems"].as_u64().map(|m| m as usize)
}

/// A sampled value with at least one item in its list.
fn sample_nonempty(schema: &Value) -> Value {
    (0..200u64)
        .map(|seed| sample(schema, &mut Rng(seed)))
        .find(|v| {
            v.as_object().and_then(|o| o.values().next()).and_then(Value::as_array).is_some_and(|a| !a.is_empty())
        })
        .expect("a non-empty sample")
}

/// A deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// A random value `schema` allows, in the covered subset, keys in schema order.
fn sample(schema: &Value, rng: &mut Rng) -> Value {
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(values) = schema["enum"].as_array() {
        return values[rng.below(values.len() as u64) as usize].clone();
    }
    if let Some(options) = schema["anyOf"].as_array() {
        return sample(&options[rng.below(options.len() as u64) as usize], rng);
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut out = serde_json::Map::new();
            for (k, sub) in schema["properties"].as_object().into_iter().flatten() {
                out.insert(k.clone(), sample(sub, rng));
            }
            Value::Object(out)
        }
        Some("array") => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            let max = schema["maxItems"].as_u64().unwrap_or(min + 3);
            if schema["items"]["enum"].as_array().is_some_and(Vec::is_empty) {
                return json!([]);
            }
            let n = min + rng.below(max - min + 1);
            Value::Array((0..n).map(|_| sample(&schema["items"], rng)).collect())
        }
        Some("string") => {
            let min = schema["minLength"].as_u64().unwrap_or(0);
            let max = schema["maxLength"].as_u64().unwrap_or(min + 12).min(min + 40);
            let alphabet: Vec<char> = "ab Zé\"\\/\n\t€😀".chars().collect();
            let n = min + rng.below(max - min + 1);
            Value::String((0..n).map(|_| alphabet[rng.below(alphabet.len() as u64) as usize]).collect())
        }
        Some("boolean") => json!(rng.below(2) == 1),
        Some("integer") => json!(rng.below(1000) as i64 - 500),
        _ => Value::Null,
    }
}
