//! The GBNF grammars made from every pass's JSON Schema (both proposal styles, and the
//! encoder's) accept what the schema allows and refuse what it does not: checked with a
//! small recognizer of the GBNF the converter writes, over values sampled from each
//! schema and over a careless model's replies (an invented id, a missing field, an extra
//! one, one item too many, an over-long reason, a cut-off reply).

use nocturne_core::llm::gbnf;
use nocturne_core::llm::prompt::{self, Budget};
use nocturne_core::llm::provider::ProposalStyle;
use nocturne_core::model::candidate::{Candidates, ConflictCandidate, DuplicateCandidate, MergeCandidate};
use nocturne_core::text::candidates;
use nocturne_core::{Block, Item, PassKind, RetentionPolicy, DAY};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};

const NOW: i64 = 1_767_225_600;

/// Every schema the core sends a model, named.
fn schemas() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for pass in PassKind::ALL {
        out.push((format!("{} (free text)", pass.name()), prompt::schema(pass, &["m_1", "m_2", "m_3"], 3)));
    }
    let offered = candidates::statements(&["I am not allergic to peanuts and I live in \"Ghent\". How are you?"]);
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
    let ask = |pass, c: Candidates| {
        let policy = RetentionPolicy::default();
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
        let g = Grammar::parse(&text);
        for seed in 0..40u64 {
            let value = sample(&schema, &mut Rng(seed * 7919 + 1));
            let compact = value.to_string();
            assert!(g.accepts(&compact), "{name}: refused a valid reply {compact}\n{text}");
            let spaced = compact.replace("\":", "\": ").replace(",\"", ", \"");
            assert!(g.accepts(&spaced), "{name}: refused single spaces {spaced}");
        }
    }
}

#[test]
fn every_pass_grammar_refuses_a_careless_models_replies() {
    for (name, schema) in schemas() {
        let g = Grammar::parse(&gbnf::grammar(&schema).expect("grammar"));
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
            assert!(!g.accepts(&text), "{name}: accepted {fault}: {text}");
        }
    }
}

#[test]
fn a_schema_with_nothing_to_choose_allows_only_an_empty_list() {
    let schema = prompt::schema(PassKind::Dedupe, &[], 3);
    let g = Grammar::parse(&gbnf::grammar(&schema).expect("grammar"));
    assert!(g.accepts(r#"{"drop":[]}"#));
    assert!(!g.accepts(r#"{"drop":[{"duplicateOf":"m_1","itemId":"m_2","reason":"same"}]}"#));
}

/// Whether `field` of an item may only take listed values (`enum` or `const`).
fn bound(items: &Value, field: &str) -> bool {
    let options = items["anyOf"].as_array().cloned().unwrap_or_else(|| vec![items.clone()]);
    options.iter().all(|o| o["properties"][field].get("enum").or_else(|| o["properties"][field].get("const")).is_some())
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

/// A recognizer for the GBNF the converter writes: rules of alternatives of sequences of
/// literals, character classes, rule names and groups, with `?`, `*`, `+` and `{m,n}`.
struct Grammar {
    rules: HashMap<String, Node>,
}

#[derive(Clone, Debug)]
enum Node {
    Literal(Vec<char>),
    Class { negated: bool, ranges: Vec<(char, char)> },
    Rule(String),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, usize, Option<usize>),
}

impl Grammar {
    fn parse(text: &str) -> Grammar {
        let mut rules = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line.split_once(" ::= ").unwrap_or_else(|| panic!("not a rule: {line}"));
            let chars: Vec<char> = body.chars().collect();
            let mut p = Parser { s: &chars, i: 0 };
            let node = p.alt();
            assert_eq!(p.i, chars.len(), "rule {name}: trailing text at {} in {body}", p.i);
            rules.insert(name.trim().to_string(), node);
        }
        Grammar { rules }
    }

    fn accepts(&self, input: &str) -> bool {
        let chars: Vec<char> = input.chars().collect();
        self.ends(&Node::Rule("root".into()), &chars, 0).contains(&chars.len())
    }

    /// Every position where a match of `node` starting at `at` can end.
    fn ends(&self, node: &Node, s: &[char], at: usize) -> BTreeSet<usize> {
        match node {
            Node::Literal(l) => {
                if s.len() >= at + l.len() && s[at..at + l.len()] == l[..] {
                    BTreeSet::from([at + l.len()])
                } else {
                    BTreeSet::new()
                }
            }
            Node::Class { negated, ranges } => match s.get(at) {
                Some(c) if ranges.iter().any(|(a, b)| a <= c && c <= b) != *negated => BTreeSet::from([at + 1]),
                _ => BTreeSet::new(),
            },
            Node::Rule(name) => {
                let rule = self.rules.get(name).unwrap_or_else(|| panic!("no rule {name}"));
                self.ends(rule, s, at)
            }
            Node::Seq(parts) => parts.iter().fold(BTreeSet::from([at]), |starts, part| {
                starts.iter().flat_map(|&p| self.ends(part, s, p)).collect()
            }),
            Node::Alt(options) => options.iter().flat_map(|o| self.ends(o, s, at)).collect(),
            Node::Repeat(inner, min, max) => {
                let mut out = BTreeSet::new();
                let mut frontier = BTreeSet::from([at]);
                let mut count = 0;
                loop {
                    if count >= *min {
                        out.extend(frontier.iter().copied());
                    }
                    if max.is_some_and(|m| count >= m) || frontier.is_empty() {
                        return out;
                    }
                    let next: BTreeSet<usize> = frontier.iter().flat_map(|&p| self.ends(inner, s, p)).collect();
                    // A repetition that consumes nothing cannot go further.
                    frontier = next.into_iter().filter(|p| !frontier.contains(p) || count < *min).collect();
                    count += 1;
                }
            }
        }
    }
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.s.get(self.i) == Some(&' ') {
            self.i += 1;
        }
    }

    fn alt(&mut self) -> Node {
        let mut options = vec![self.seq()];
        while self.s.get(self.i) == Some(&'|') {
            self.i += 1;
            options.push(self.seq());
        }
        if options.len() == 1 {
            options.remove(0)
        } else {
            Node::Alt(options)
        }
    }

    fn seq(&mut self) -> Node {
        let mut parts = Vec::new();
        loop {
            self.skip_space();
            match self.s.get(self.i) {
                None | Some('|') | Some(')') => return Node::Seq(parts),
                _ => {
                    let atom = self.atom();
                    parts.push(self.postfix(atom));
                }
            }
        }
    }

    fn atom(&mut self) -> Node {
        match self.s[self.i] {
            '"' => {
                self.i += 1;
                let mut lit = Vec::new();
                while self.s[self.i] != '"' {
                    lit.push(self.char());
                }
                self.i += 1;
                Node::Literal(lit)
            }
            '[' => {
                self.i += 1;
                let negated = self.s[self.i] == '^';
                if negated {
                    self.i += 1;
                }
                let mut ranges = Vec::new();
                while self.s[self.i] != ']' {
                    let a = self.char();
                    let b = if self.s[self.i] == '-' && self.s[self.i + 1] != ']' {
                        self.i += 1;
                        self.char()
                    } else {
                        a
                    };
                    ranges.push((a, b));
                }
                self.i += 1;
                Node::Class { negated, ranges }
            }
            '(' => {
                self.i += 1;
                let inner = self.alt();
                assert_eq!(self.s[self.i], ')', "unclosed group");
                self.i += 1;
                inner
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == '-') {
                    self.i += 1;
                }
                assert!(self.i > start, "unexpected {:?} at {}", self.s[self.i], self.i);
                Node::Rule(self.s[start..self.i].iter().collect())
            }
        }
    }

    fn postfix(&mut self, mut node: Node) -> Node {
        loop {
            node = match self.s.get(self.i) {
                Some('?') => Node::Repeat(Box::new(node), 0, Some(1)),
                Some('*') => Node::Repeat(Box::new(node), 0, None),
                Some('+') => Node::Repeat(Box::new(node), 1, None),
                Some('{') => {
                    let close = self.s[self.i..].iter().position(|&c| c == '}').expect("}") + self.i;
                    let body: String = self.s[self.i + 1..close].iter().collect();
                    self.i = close;
                    let (min, max) = match body.split_once(',') {
                        None => (body.parse().expect("m"), Some(body.parse().expect("m"))),
                        Some((m, "")) => (m.parse().expect("m"), None),
                        Some((m, n)) => (m.parse().expect("m"), Some(n.parse().expect("n"))),
                    };
                    Node::Repeat(Box::new(node), min, max)
                }
                _ => return node,
            };
            self.i += 1;
        }
    }

    /// One character of a literal or class, with GBNF's escapes.
    fn char(&mut self) -> char {
        let c = self.s[self.i];
        self.i += 1;
        if c != '\\' {
            return c;
        }
        let e = self.s[self.i];
        self.i += 1;
        let hex = |p: &mut Self, n: usize| {
            let h: String = p.s[p.i..p.i + n].iter().collect();
            p.i += n;
            char::from_u32(u32::from_str_radix(&h, 16).expect("hex")).expect("char")
        };
        match e {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'x' => hex(self, 2),
            'u' => hex(self, 4),
            'U' => hex(self, 8),
            other => other,
        }
    }
}
