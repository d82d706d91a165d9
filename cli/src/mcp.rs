//! `nocturne mcp`: the memory served over the Model Context Protocol (stdio, the official
//! Rust SDK), so any assistant a person uses can read it and add to it — every write
//! through the same gates as chat, every edit logged, and no tool that returns the whole
//! memory.
//!
//! stdout carries only JSON-RPC; nothing here prints. Each tool call opens the store file
//! afresh and commits against the head it read ([`crate::store::Memory`]), planned again
//! when another process wrote in between, so a chat in another terminal loses nothing. A bad
//! call — an unknown tool, a missing or wrong-typed argument, an id that does not exist,
//! a text too long, a store file that cannot be read — is a tool error the host shows,
//! and changes nothing.

use crate::error::CliError;
use crate::store::Memory;
use crate::ProviderArgs;
use nocturne_core::flow::chat::{Origin, PromptFacts};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::review;
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::llm::context;
use nocturne_core::llm::prompt;
use nocturne_core::llm::provider::estimate_tokens;
use nocturne_core::model::memory::{Block, Item, Mutation};
use nocturne_core::model::pass::MutationKind;
use nocturne_core::model::provenance::{By, Source};
use nocturne_core::store::Store;
use nocturne_core::text::order;
use nocturne_core::text::when::Day;
use nocturne_core::write::{Apply, Edit, Erase, NoModel, Refusal, Say, Sleep, Watch, WriteError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// What `nocturne mcp` serves: one store file, the provider its Sleeps use.
#[derive(Clone, Debug)]
pub struct Config {
    pub store: PathBuf,
    pub provider: ProviderArgs,
    /// Tokens a search or a context may fill (the chat prompt's memory budget).
    pub budget: u64,
    /// A fixed clock (tests); the wall clock when `None`.
    pub now: Option<i64>,
    /// The name the client gave in `initialize`: the source of what it adds.
    pub client: Option<String>,
    /// What the client may do (`--allow`): a tool outside it is neither listed nor run.
    pub allow: Allow,
}

/// A scope of tools, each including the one before: `read` (search, context, list,
/// history), `add` (and `add_memory`), `edit` (and correct, pin, forget, erase, sleep,
/// apply a plan).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Allow {
    Read,
    #[default]
    Add,
    Edit,
}

impl Allow {
    /// The scope tool `name` needs.
    pub fn needed(name: &str) -> Allow {
        match name {
            "search_memories" | "get_context" | "list_memories" | "memory_history" => Allow::Read,
            "add_memory" => Allow::Add,
            _ => Allow::Edit,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Allow::Read => "read",
            Allow::Add => "add",
            Allow::Edit => "edit",
        }
    }
}

impl Config {
    fn now(&self) -> i64 {
        self.now.unwrap_or_else(crate::wall_clock)
    }
}

/// The longest text one `add_memory` or `correct_memory` takes, in characters.
pub const MAX_TEXT: usize = 4_000;
/// The most facts one `search_memories` returns, and one page of `list_memories`.
pub const MAX_LIMIT: usize = 50;

/// Serves `config` on stdin/stdout until the host closes the connection.
pub fn serve(config: Config) -> Result<(), CliError> {
    // A store that cannot be read now is said on stderr and by each tool call: the host
    // still gets its answer to `initialize`, and the error where it can show it.
    if let Err(e) = Memory::open(&config.store) {
        eprintln!("nocturne mcp: {e}; every tool call will say so until it is fixed");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::caused(format!("cannot start the MCP server's runtime: {e}"), e))?;
    runtime.block_on(async move {
        let server = MemoryServer::new(config);
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| CliError::caused(format!("the MCP host could not connect: {e}"), e))?;
        running.waiting().await.map_err(|e| CliError::caused(format!("the MCP connection failed: {e}"), e))?;
        Ok(())
    })
}

/// The MCP handler: tools over the store file in [`Config`], each a method of its own
/// routed by rmcp's tool router, its arguments typed (`Parameters<T>`).
#[derive(Clone)]
pub struct MemoryServer {
    config: Arc<Config>,
    router: ToolRouter<MemoryServer>,
}

/// A tool's input schema: its arguments' JSON Schema as hosts have always been shown it —
/// the type's doc line as its description, no `$schema`, no title, `properties` always.
fn input<A: JsonSchema>() -> Arc<JsonObject> {
    let mut object = match serde_json::to_value(schemars::schema_for!(A)) {
        Ok(Value::Object(o)) => o,
        _ => Map::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object.entry("properties").or_insert_with(|| json!({}));
    Arc::new(object)
}

#[tool_router(router = tools)]
impl MemoryServer {
    pub fn new(config: Config) -> Self {
        MemoryServer { config: Arc::new(config), router: Self::tools() }
    }

    /// Runs `work` on the store file off the runtime's thread (the core is synchronous
    /// underneath: a file, a blocking HTTP client), so the connection stays responsive;
    /// its result, or its error as a tool error the host shows.
    async fn run(&self, work: impl FnOnce(&Config) -> Result<Value, CliError> + Send + 'static) -> CallToolResult {
        let config = self.config.clone();
        let done = tokio::task::spawn_blocking(move || work(&config)).await;
        match done {
            Ok(Ok(value)) => CallToolResult::structured(value),
            Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
            Err(e) => {
                CallToolResult::error(vec![ContentBlock::text(format!("the tool call failed inside the server: {e}"))])
            }
        }
    }

    #[tool(
        description = "Remember what the user said: pass the user's own words (one message). It is stored as a user turn and \
split into facts that the Encode gate checks against those words; returns the facts stored and the statements \
refused by the gate, each with its reason, and under not_kept every statement that stored nothing (a greeting, a \
reaction, a message too long to encode) with the rule that decided. Questions store nothing.",
        input_schema = input::<AddMemory>()
    )]
    async fn add_memory(&self, Parameters(a): Parameters<AddMemory>, peer: Peer<RoleServer>) -> CallToolResult {
        // What the client adds is said by it, by the name it gave in `initialize`.
        let client = peer.peer_info().map(|info| info.client_info.name.clone());
        self.run(move |c| add_memory(&Config { client, ..c.clone() }, a)).await
    }

    #[tool(
        description = "The facts most relevant to a query, as the chat's own selection picks them within a token budget \
(never the whole memory): id, text, block, the day it was said, its source turn.",
        input_schema = input::<SearchMemories>()
    )]
    async fn search_memories(&self, Parameters(a): Parameters<SearchMemories>) -> CallToolResult {
        self.run(move |c| search_memories(c, a)).await
    }

    #[tool(
        description = "The memory section to put in your prompt before answering the user's message: the facts relevant to \
it, grouped by block and day, bounded by the token budget. Cite facts by the number in brackets.",
        input_schema = input::<GetContext>()
    )]
    async fn get_context(&self, Parameters(a): Parameters<GetContext>) -> CallToolResult {
        self.run(move |c| get_context(c, a)).await
    }

    #[tool(
        description = "Active facts, a page at a time, in the order the memory shows them; optionally one block. Pass the \
returned next_cursor to get the next page.",
        input_schema = input::<ListMemories>()
    )]
    async fn list_memories(&self, Parameters(a): Parameters<ListMemories>) -> CallToolResult {
        self.run(move |c| list_memories(c, a)).await
    }

    #[tool(
        description = "Correct a fact's text when the user asks: the old text stays in history, superseded by the correction. \
Logged as the user's edit.",
        input_schema = input::<CorrectMemory>()
    )]
    async fn correct_memory(&self, Parameters(a): Parameters<CorrectMemory>) -> CallToolResult {
        self.run(move |c| {
            check_text(&a.text)?;
            user_edit(c, UserEdit::Correct { item_id: a.id, text: a.text.trim().to_string() })
        })
        .await
    }

    #[tool(
        description = "Pin a fact when the user asks: no Sleep forgets, drops, merges away or supersedes it. Logged as the \
user's edit.",
        input_schema = input::<PinMemory>()
    )]
    async fn pin_memory(&self, Parameters(a): Parameters<PinMemory>) -> CallToolResult {
        self.run(move |c| user_edit(c, UserEdit::Pin { item_id: a.id })).await
    }

    #[tool(
        description = "Forget a fact now when the user asks (soft: it stays in history and a restore brings it back). Logged \
as the user's edit.",
        input_schema = input::<ForgetMemory>()
    )]
    async fn forget_memory(&self, Parameters(a): Parameters<ForgetMemory>) -> CallToolResult {
        let reason = a.reason.unwrap_or_else(|| "the user asked to forget it".into());
        self.run(move |c| user_edit(c, UserEdit::Forget { item_id: a.id, reason })).await
    }

    #[tool(
        description = "Erase a fact's words from every version, when the user asks; this cannot be undone, so confirm must \
be true. Returns what was removed, never the text.",
        input_schema = input::<EraseMemory>()
    )]
    async fn erase_memory(&self, Parameters(a): Parameters<EraseMemory>) -> CallToolResult {
        self.run(move |c| erase_memory(c, a)).await
    }

    #[tool(
        description = "Consolidate the memory: Dedupe, Merge, Supersede, Promote and Forget, each proposed edit checked by a \
gate and logged, accepted or refused. With dry_run nothing is written. With review nothing is written \
either: the result is a plan (each edit's id r1, r2, …, pass, facts before and after, reason and the gate's \
verdict) for the user to approve with apply_plan.",
        input_schema = input::<SleepArgs>()
    )]
    async fn sleep(&self, Parameters(a): Parameters<SleepArgs>) -> CallToolResult {
        self.run(move |c| sleep(c, a)).await
    }

    #[tool(
        description = "Apply a reviewed Sleep's plan (from sleep with review) as the user decided: every edit, or only \
those named; the rest are logged as not approved by the user. Each approved edit is judged again on the \
memory as it is now. A plan applies at most once.",
        input_schema = input::<ApplyPlan>()
    )]
    async fn apply_plan(&self, Parameters(a): Parameters<ApplyPlan>) -> CallToolResult {
        self.run(move |c| apply_plan(c, a)).await
    }

    #[tool(
        description = "What changed: the newest versions and the newest logged edits, accepted and refused, with who \
proposed each and why a gate refused it.",
        input_schema = input::<MemoryHistory>()
    )]
    async fn memory_history(&self, Parameters(a): Parameters<MemoryHistory>) -> CallToolResult {
        self.run(move |c| memory_history(c, a)).await
    }
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "Nocturne is the user's long-term memory. Call get_context (or search_memories) with the user's \
message before answering, and add_memory with the user's own words when they tell you something about \
themselves worth keeping. Everything written goes through Nocturne's gates; a refusal comes back with its \
reason. Edit tools (correct, pin, forget, erase) are for when the user asks.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let allow = self.config.allow;
        let tools = self.router.list_all().into_iter().filter(|t| Allow::needed(&t.name) <= allow).collect();
        Ok(ListToolsResult { tools, ..Default::default() })
    }

    /// The router's call, with a tool this server lacks as a tool error naming the ones
    /// it has (arguments that do not fit their type are the router's tool errors).
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let allow = self.config.allow;
        if self.router.get(&request.name).is_none() {
            let listed = self.router.list_all().into_iter().filter(|t| Allow::needed(&t.name) <= allow);
            let names: Vec<String> = listed.map(|t| t.name.to_string()).collect();
            let message = format!("no tool named {:?}; this server has {}", request.name, names.join(", "));
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
        }
        // A tool outside the scope the server was started with is refused before it runs.
        let needed = Allow::needed(&request.name);
        if needed > allow {
            let message = format!(
                "{} needs the {} scope and this server allows {} (nocturne mcp --allow {}); nothing was changed",
                request.name,
                needed.name(),
                allow.name(),
                needed.name()
            );
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
        }
        self.router.call(ToolCallContext::new(self, request, context)).await
    }
}

/// Arguments of `add_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMemory {
    /// The user's words, as they said them.
    pub text: String,
    /// When the user said it: `2024-05-01` or `2024-05-01T14:30:00Z` (default: now).
    #[serde(default)]
    pub said_at: Option<String>,
}

/// Arguments of `search_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchMemories {
    /// What to look for: the user's message or a few words.
    pub query: String,
    /// At most this many facts (1–50, default 10).
    #[serde(default, deserialize_with = "lenient::number")]
    pub limit: Option<u32>,
}

/// Arguments of `get_context`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetContext {
    /// The user's message you are about to answer.
    pub query: String,
}

/// Arguments of `list_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMemories {
    /// Only this block: `persona`, `human`, `episodes` or `scratch`.
    #[serde(default)]
    pub block: Option<String>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Arguments of `correct_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrectMemory {
    /// The fact's id, e.g. `m_12`.
    pub id: String,
    /// The corrected text, in the user's words.
    pub text: String,
}

/// Arguments of `pin_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinMemory {
    /// The fact's id, e.g. `m_12`.
    pub id: String,
}

/// Arguments of `forget_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetMemory {
    /// The fact's id, e.g. `m_12`.
    pub id: String,
    /// Why, in the user's words (kept in the log).
    #[serde(default)]
    pub reason: Option<String>,
}

/// Arguments of `erase_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EraseMemory {
    /// The fact's id, e.g. `m_12`.
    pub id: String,
    /// Must be true: the user confirmed that the words go from every version for good.
    #[serde(deserialize_with = "lenient::flag")]
    pub confirm: bool,
}

/// Arguments of `sleep`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SleepArgs {
    /// Plan and report every pass, writing nothing.
    #[serde(default, deserialize_with = "lenient::optional_flag")]
    pub dry_run: Option<bool>,
    /// Plan for the user's review, writing nothing to the memory: returns the plan.
    #[serde(default, deserialize_with = "lenient::optional_flag")]
    pub review: Option<bool>,
    /// Must be true for a Sleep that would retire more than a quarter of the memory: the
    /// user saw what it retires and agreed.
    #[serde(default, deserialize_with = "lenient::optional_flag")]
    pub confirm: Option<bool>,
}

/// Arguments of `apply_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPlan {
    /// The plan's id, e.g. `p-2a7a81b31aa2727c`.
    pub plan_id: String,
    /// Apply only these edits (`r1`, `r3`); absent: every edit not rejected.
    #[serde(default)]
    pub only: Option<Vec<String>>,
    /// Edits the user rejected.
    #[serde(default)]
    pub reject: Vec<String>,
    /// Why the user rejected them (kept in the log).
    #[serde(default)]
    pub reason: Option<String>,
}

/// Arguments of `memory_history`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryHistory {
    /// At most this many versions and this many log entries (1–200, default 20).
    #[serde(default, deserialize_with = "lenient::number")]
    pub limit: Option<u32>,
}

/// Numbers and flags as some hosts send them: `"10"` for 10, `"true"` for true (the MCP
/// Inspector's command line sends every argument as a string). Anything else is refused.
mod lenient {
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    pub fn number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()).map(Some).ok_or_else(|| {
                serde::de::Error::custom(format!("invalid type: {n} is not a whole number from 0 to {}", u32::MAX))
            }),
            Some(Value::String(s)) => {
                s.trim().parse().map(Some).map_err(|_| {
                    serde::de::Error::custom(format!("invalid type: string {s:?}, expected a whole number"))
                })
            }
            Some(other) => Err(serde::de::Error::custom(format!("invalid type: {other}, expected a whole number"))),
        }
    }

    pub fn optional_flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(Value::String(s)) if s == "true" => Ok(Some(true)),
            Some(Value::String(s)) if s == "false" => Ok(Some(false)),
            Some(other) => Err(serde::de::Error::custom(format!("invalid type: {other}, expected true or false"))),
        }
    }

    pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        optional_flag(d)?.ok_or_else(|| serde::de::Error::custom("invalid type: null, expected true or false"))
    }
}

/// Performs `command` on the store file through the one write path (recorded for the next
/// sync when the store syncs), with the server's provider when it needs a model.
fn perform<C: nocturne_core::write::Perform>(
    config: &Config,
    store: &Memory,
    command: C,
) -> Result<nocturne_core::write::Done<C::Output>, CliError> {
    Ok(crate::write::perform(&config.store, store, command, &NoModel, &mut Watch::quiet())?)
}

/// `add_memory`: the user's words as a turn with no reply, through the Encode gate.
pub(crate) fn add_memory(config: &Config, a: AddMemory) -> Result<Value, CliError> {
    let now = config.now();
    check_text(&a.text)?;
    let said_at = match &a.said_at {
        // A claimed date is checked against now: never after it, never absurd.
        Some(when) => Some(
            nocturne_core::model::provenance::said_at(when, now)
                .map_err(|e| CliError::from(format!("add_memory: {e}; nothing was changed")))?,
        ),
        None => None,
    };
    // What a client adds is its own, not the user's: the gates' trust policy reads it.
    let client = config.client.clone().unwrap_or_else(|| "unnamed".into());
    let origin = Origin { by: Some(By::Mcp { client }), said_at };
    let store = Memory::open(&config.store)?;
    let provider = config.provider.build()?;
    let say = Say { text: a.text, speaker: None, reply: None, at: now, origin };
    let outcome = crate::write::perform(&config.store, &store, say, &provider, &mut Watch::quiet())?.done;
    // Only the facts this call stored are read back, not the memory.
    let ids: Vec<String> = outcome.encoded.iter().filter(|m| m.accepted).map(|m| m.item_id.clone()).collect();
    let items = match &outcome.version {
        Some(v) if !ids.is_empty() => pollster::block_on(store.item_states(&ids, v.seq))?,
        _ => Vec::new(),
    };
    let stored: Vec<Value> =
        ids.iter().filter_map(|id| items.iter().find(|i| &i.item_id == id)).map(|i| fact_json(i, now)).collect();
    let skip = |m: &&Mutation| m.kind == MutationKind::Skip;
    let not_kept: Vec<Value> =
        outcome.encoded.iter().filter(skip).map(|m| json!({"reason": m.rejection_reason, "rule": m.policy})).collect();
    let refused: Vec<Value> = outcome
        .encoded
        .iter()
        .filter(|m| !m.accepted && !skip(m))
        .map(|m| {
            let statement = m.refs.proposal.as_ref().and_then(|p| p.get("text")).cloned().unwrap_or(Value::Null);
            json!({"statement": statement, "reason": m.rejection_reason})
        })
        .collect();
    let note = match (&outcome.encode_error, stored.is_empty() && refused.is_empty() && not_kept.is_empty()) {
        (Some(e), _) => format!("the turn is kept, but the encoder failed ({e}); it is encoded with the next one"),
        (None, true) => "nothing stored: the message asks, it states nothing; the turn is kept".into(),
        (None, false) => format!(
            "{}{} fact(s) stored, {} refused by the gate, {} statement(s) not kept (see not_kept)",
            if stored.is_empty() { "nothing stored: " } else { "" },
            stored.len(),
            refused.len(),
            not_kept.len()
        ),
    };
    Ok(json!({
        "stored": stored,
        "refused": refused,
        "not_kept": not_kept,
        "version": outcome.version.map(|v| v.id()),
        "note": note,
    }))
}

/// `search_memories`: the chat prompt's own selection for the query, most relevant first.
fn search_memories(config: &Config, a: SearchMemories) -> Result<Value, CliError> {
    let now = config.now();
    let limit = bounded(a.limit, 10, MAX_LIMIT)?;
    let store = Memory::open(&config.store)?;
    let ranked = pollster::block_on(PromptFacts::read(&store, &a.query))?;
    let active: Vec<&Item> = active_in_order(&ranked.items);
    let index = ranked.index(&active, now);
    let chosen = index.select(&a.query, config.budget);
    // The selection's facts, most relevant first, then the rest it carried.
    let best = index.best(&a.query, limit);
    let mut facts: Vec<&Item> = best.iter().copied().filter(|i| chosen.facts.contains(i)).collect();
    let rest: Vec<&Item> = chosen.facts.iter().copied().filter(|i| !facts.contains(i)).collect();
    facts.extend(rest);
    facts.truncate(limit);
    Ok(json!({
        "facts": facts.iter().map(|i| fact_json(i, now)).collect::<Vec<_>>(),
        "stored": ranked.stored(),
        "budget_tokens": config.budget,
    }))
}

/// `get_context`: the memory section of the chat prompt for the message.
fn get_context(config: &Config, a: GetContext) -> Result<Value, CliError> {
    let now = config.now();
    let store = Memory::open(&config.store)?;
    let ranked = pollster::block_on(PromptFacts::read(&store, &a.query))?;
    let active: Vec<&Item> = active_in_order(&ranked.items);
    let index = ranked.index(&active, now);
    // The section's own lines (its header, today, the count left out) are counted first;
    // the facts get what remains of the budget.
    let empty = context::Selection { facts: Vec::new(), left_out: ranked.stored(), tokens: 0, now: Some(now) };
    let fixed = estimate_tokens(&memory_section(&empty, &a.query));
    let selection = index.select(&a.query, config.budget.saturating_sub(fixed));
    let memory = memory_section(&selection, &a.query);
    Ok(json!({
        "context": memory,
        "facts": selection.facts.len(),
        "left_out": selection.left_out,
        "tokens": estimate_tokens(&memory),
        "budget_tokens": config.budget,
    }))
}

/// `list_memories`: a page of active facts.
fn list_memories(config: &Config, a: ListMemories) -> Result<Value, CliError> {
    let now = config.now();
    let block = match &a.block {
        Some(b) => Some(Block::parse(b).ok_or_else(|| {
            format!("list_memories: no block {b:?}; the blocks are persona, human, episodes and scratch")
        })?),
        None => None,
    };
    let start = match &a.cursor {
        Some(c) => c
            .parse::<usize>()
            .map_err(|e| CliError::caused(format!("list_memories: {c:?} is not a cursor this server gave"), e))?,
        None => 0,
    };
    let store = Memory::open(&config.store)?;
    let items = pollster::block_on(store.items())?;
    let all: Vec<&Item> = active_in_order(&items).into_iter().filter(|i| block.is_none_or(|b| i.block == b)).collect();
    let page: Vec<Value> = all.iter().skip(start).take(MAX_LIMIT).map(|i| fact_json(i, now)).collect();
    let next = start + page.len();
    Ok(json!({
        "facts": page,
        "total": all.len(),
        "next_cursor": (next < all.len()).then(|| next.to_string()),
    }))
}

/// `erase_memory`: only with the user's confirmation.
fn erase_memory(config: &Config, a: EraseMemory) -> Result<Value, CliError> {
    if !a.confirm {
        return Err(format!(
            "erase_memory: erasing {} cannot be undone; call it again with confirm: true once the user has confirmed (nothing was changed)",
            a.id
        )
        .into());
    }
    let store = Memory::open(&config.store)?;
    let erased = perform(config, &store, Erase { item_id: a.id, at: config.now() })?.done;
    // Then every other file of the memory that may hold the words: the plans kept beside it.
    let removed = crate::write::remove_plans(&config.store)?;
    Ok(json!({
        "erased": erased.item_ids,
        "rows_rewritten": erased.rows,
        "words_removed": erased.words,
        "files_removed": removed.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "note": "the words are gone from every version; a tombstone remains in the log",
    }))
}

/// `apply_plan`: a plan this server kept, applied with the user's decisions.
fn apply_plan(config: &Config, a: ApplyPlan) -> Result<Value, CliError> {
    let path = plan_path(config, &a.plan_id)?;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        CliError::caused(format!("no plan {:?} was made for this store (sleep with review makes one)", a.plan_id), e)
    })?;
    let plan = review::Review::parse(&text)?;
    let mut decisions = match &a.only {
        Some(ids) => review::Decisions::only(ids.iter().map(String::as_str)),
        None => review::Decisions::all(),
    };
    for id in &a.reject {
        decisions = decisions.reject(id, a.reason.as_deref().unwrap_or(""));
    }
    let store = Memory::open(&config.store)?;
    // A plan made on another memory or history is refused whole, before any write.
    pollster::block_on(review::belongs(&store, &plan))?;
    let apply = Apply { plan: Box::new(plan.clone()), decisions, at: config.now() };
    let applied = perform(config, &store, apply)?.done;
    Ok(json!({
        "summary": applied.summary(&plan),
        "applied": applied.applied,
        "refused_now": applied.refused_now,
        "not_approved": applied.not_approved,
        "refused_when_planned": applied.refused_when_planned,
        "already_applied": applied.already,
    }))
}

/// `sleep`: a Sleep through the one write path — only planned for `dry_run` and `review`
/// (the plan kept beside the store for `apply_plan`), refused when heavy unless `confirm`.
fn sleep(config: &Config, a: SleepArgs) -> Result<Value, CliError> {
    let review = a.review == Some(true);
    if review && a.dry_run == Some(true) {
        return Err("dry_run and review are two ways of writing nothing; ask for one".into());
    }
    let store = Memory::open(&config.store)?;
    let provider = config.provider.build()?;
    let sleep = Sleep::new(SleepOptions::new(config.now())).go_ahead(a.confirm == Some(true));
    let sleep = if review || a.dry_run == Some(true) { sleep.plan_only() } else { sleep };
    let done = crate::write::perform(&config.store, &store, sleep, &provider, &mut Watch::quiet());
    let slept = match done {
        Ok(done) => done.done,
        Err(e @ WriteError::Refused(Refusal::Heavy(_))) => {
            return Err(CliError::caused(
                format!("{e}. Show the user what it retires (sleep with review), and call sleep with confirm true if they agree"),
                e,
            ))
        }
        Err(e) => return Err(CliError::caused(format!("the Sleep stopped: {e}"), e)),
    };
    if review {
        let path = plan_path(config, &slept.plan.id)?;
        let text = serde_json::to_string_pretty(&slept.plan)?;
        std::fs::write(&path, text)
            .map_err(|e| CliError::caused(format!("cannot keep the plan at {}", path.display()), e))?;
        return Ok(json!({
            "plan": slept.plan,
            "note": "nothing was written to the memory; apply_plan with this plan_id applies what the user approves",
        }));
    }
    let report = slept.report();
    let passes: Vec<Value> = report
        .passes
        .iter()
        .map(|p| {
            json!({
                "pass": p.event.pass.name(),
                "proposed": p.event.proposed,
                "accepted": p.event.accepted,
                "refused": p.event.rejected,
                "enforced": p.event.enforced,
                "notes": p.notes,
            })
        })
        .collect();
    Ok(json!({
        "dry_run": report.dry_run,
        "active_before": report.active_before,
        "active_after": report.active_after,
        "model_calls": report.calls(),
        "passes": passes,
        "notes": slept.lease_note.into_iter().collect::<Vec<_>>(),
    }))
}

/// `memory_history`: the newest versions and log entries.
fn memory_history(config: &Config, a: MemoryHistory) -> Result<Value, CliError> {
    let limit = bounded(a.limit, 20, 200)?;
    let store = Memory::open(&config.store)?;
    let versions = pollster::block_on(store.versions())?;
    let log = pollster::block_on(store.mutations())?;
    let versions: Vec<Value> = versions
        .iter()
        .rev()
        .take(limit)
        .map(|v| json!({"version": v.id(), "label": v.label, "at": v.at, "active": v.active_count, "changed": v.changed}))
        .collect();
    let log: Vec<Value> = log.iter().rev().take(limit).map(edit_json).collect();
    Ok(json!({"versions": versions, "edits": log}))
}

/// The memory section of the chat prompt for `selection`: what a host puts in its prompt.
fn memory_section(selection: &context::Selection<'_>, query: &str) -> String {
    let request = prompt::chat_request_with(selection, &[], query);
    let system = &request.messages[0].content;
    // From what the memory is (notes, never instructions) to its end.
    system.find(prompt::MEMORY_IS_DATA).map_or(system.clone(), |at| system[at..].to_string())
}

fn check_text(text: &str) -> Result<(), CliError> {
    let n = text.chars().count();
    if text.trim().is_empty() {
        return Err("the text is empty; nothing was changed".into());
    }
    if n > MAX_TEXT {
        return Err(format!(
            "the text is {n} characters; one call takes at most {MAX_TEXT} (send the user's messages one at a time); nothing was changed"
        )
        .into());
    }
    Ok(())
}

fn bounded(limit: Option<u32>, default: usize, max: usize) -> Result<usize, CliError> {
    match limit {
        None => Ok(default),
        Some(n) if (1..=max as u32).contains(&n) => Ok(n as usize),
        Some(n) => Err(format!("limit {n} is out of range: give 1 to {max}").into()),
    }
}

fn active_in_order(items: &[Item]) -> Vec<&Item> {
    let mut active: Vec<&Item> = items.iter().filter(|i| i.active).collect();
    order::sort_by(&mut active, |a, b| context::display_order(a, b));
    active
}

/// Where the server keeps plan `id` of its store: `memory.json.plans/p-….json`, beside it.
fn plan_path(config: &Config, id: &str) -> Result<PathBuf, CliError> {
    if !(id.starts_with("p-") && id.len() <= 40 && id[2..].chars().all(|c| c.is_ascii_hexdigit())) {
        return Err(format!("{id:?} is not a plan id (they look like p-2a7a81b31aa2727c)").into());
    }
    let dir = crate::write::plans_dir(&config.store);
    std::fs::create_dir_all(&dir).map_err(|e| CliError::caused(format!("cannot make {}", dir.display()), e))?;
    Ok(dir.join(format!("{id}.json")))
}

/// The user's correction, pin or forget, and the fact as it now reads.
fn user_edit(config: &Config, edit: UserEdit) -> Result<Value, CliError> {
    let now = config.now();
    let store = Memory::open(&config.store)?;
    let item_id = edit.item_id().to_string();
    let version = perform(config, &store, Edit { edit, at: now })?.done;
    let items = pollster::block_on(store.items())?;
    let fact = |id: &str| items.iter().find(|i| i.item_id == id).map(|i| fact_json(i, now));
    // A correction closes the old fact and stores a new one that supersedes it.
    let old = items.iter().find(|i| i.item_id == item_id);
    let now_reads = old.and_then(|o| o.superseded_by.as_deref()).and_then(fact).or_else(|| fact(&item_id));
    Ok(json!({"version": version.id(), "fact": now_reads, "logged_as": "user"}))
}

/// One fact as a tool returns it.
fn fact_json(item: &Item, now: i64) -> Value {
    let mut v = json!({
        "id": item.item_id,
        "text": item.text,
        "block": item.block.as_str(),
        "category": item.category,
        "said": Day::from_unix(item.created_at).to_string(),
        "source_turn": item.source_turn,
        "pinned": item.pinned,
        "active": item.active,
    });
    if let Some(speaker) = &item.speaker {
        v["speaker"] = json!(speaker);
    }
    v["from"] = json!(item.provenance().iter().map(source_json).collect::<Vec<_>>());
    if let Some(about) = item.about(now) {
        v["about"] = json!(about);
    }
    v
}

/// Who said a fact and when the memory received it.
fn source_json(s: &Source) -> Value {
    json!({"by": s.by.to_string(), "received": Day::from_unix(s.received_at).to_string()})
}

/// One logged edit as `memory_history` returns it.
fn edit_json(m: &Mutation) -> Value {
    json!({
        "version": format!("v{}", m.seq),
        "stage": m.pass.name(),
        "kind": m.kind.as_str(),
        "fact": m.item_id,
        "accepted": m.accepted,
        "proposer": m.proposer.as_str(),
        "reason": m.reason,
        "refused_because": m.rejection_reason,
        "at": m.at,
    })
}
