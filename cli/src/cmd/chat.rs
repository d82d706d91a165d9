//! `nocturne chat`: turns through the one write path, and what each kept and used.

use crate::args::{ProviderArgs, StoreArgs};
use crate::error::CliError;
use crate::store::Memory;
use crate::{progress, write};
use nocturne_core::flow::chat;
use nocturne_core::store::Store;
use nocturne_core::write::{Reply, Watch};

/// How `nocturne chat` was asked to run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChatFlags<'a> {
    pub(crate) speaker: Option<&'a str>,
    pub(crate) show_memory: bool,
}

/// `nocturne chat`: one turn from the arguments, or one per line of standard input. Each
/// turn is saved as it completes; on an error the file holds the turns before it.
pub(crate) fn chat(
    store: &StoreArgs,
    provider: &ProviderArgs,
    flags: ChatFlags<'_>,
    message: Vec<String>,
) -> Result<(), CliError> {
    let speaker = flags.speaker;
    let turns: Vec<String> = if message.is_empty() {
        std::io::stdin()
            .lines()
            .map(|l| l.map_err(|e| CliError::caused(format!("cannot read standard input: {e}"), e)))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|l| !l.trim().is_empty())
            .collect()
    } else {
        vec![message.join(" ")]
    };
    if turns.is_empty() {
        return Err("chat needs a message: as arguments, or one per line on standard input".into());
    }
    let memory = Memory::open(&store.store)?;
    let p = provider.build()?;
    for (i, text) in turns.iter().enumerate() {
        // Each turn is in the file as soon as it is committed, so Ctrl-C or an error loses
        // no earlier turn.
        let turn = Reply { text: text.clone(), speaker: speaker.map(String::from), at: store.now() + i as i64 };
        let written = write::perform(&store.store, &memory, turn, &p, &mut Watch::quiet())
            .map_err(|e| CliError::caused(format!("{e}; the store file holds the turns before this one"), e))?;
        let turn = written.done;
        progress(format!("after turn {} of {}", i + 1, turns.len()));
        println!("{}", turn.reply);
        print_memory_use(&memory, &turn, flags.show_memory)?;
        print_encoded(&turn.encoded);
        if let Some(err) = turn.encode_error {
            println!("  encoder failed: {err}");
        }
        if written.recorded.is_some() {
            println!("  recorded for the next sync");
        }
    }
    Ok(())
}

/// Under a reply: each fact stored, each one the gate refused, and each statement that
/// stored nothing with the rule that decided.
pub(crate) fn print_encoded<'a>(verdicts: impl IntoIterator<Item = &'a nocturne_core::model::memory::Mutation>) {
    use nocturne_core::model::pass::MutationKind;
    for m in verdicts {
        match (&m.rejection_reason, m.kind) {
            (None, _) => println!("  encoded {}", m.item_id),
            (Some(why), MutationKind::Skip) => println!("  not kept: {why}"),
            (Some(why), _) => println!("  encoder refused: {why}"),
        }
    }
}

/// Under a reply: what `auto` switched, the citations the gate refused, the facts cited
/// and, with `all`, every fact the prompt carried (block, the day said, source turn).
pub(crate) fn print_memory_use(memory: &Memory, turn: &chat::TurnOutcome, all: bool) -> Result<(), CliError> {
    for line in &turn.switched {
        println!("  {line}");
    }
    for (id, why) in &turn.refused_citations {
        println!("  citation of {id} refused: {why}");
    }
    let used = &turn.memory;
    if !all {
        if !used.cited.is_empty() {
            println!("  cited {}", used.cited.join(", "));
        }
        return Ok(());
    }
    let items = pollster::block_on(memory.items())?;
    let log = pollster::block_on(memory.mutations())?;
    let style = match used.style {
        nocturne_core::model::memory::AnswerStyle::FreeText => "free text",
        nocturne_core::model::memory::AnswerStyle::Choose => "chosen",
        nocturne_core::model::memory::AnswerStyle::Plain => "no model call",
    };
    println!("  memory used ({}; {} more stored, left out; {style}):", used.used.len(), used.left_out);
    for id in &used.used {
        let Some(item) = items.iter().find(|i| &i.item_id == id) else { continue };
        let mark = if used.cited.contains(id) { "cited " } else { "      " };
        let source = item.source_turn.map_or("no source turn".to_string(), |t| format!("turn {t}"));
        let ancestors = nocturne_core::store::lineage::ancestors(item, &log);
        let lineage = if ancestors.is_empty() { String::new() } else { format!(" (from {})", ancestors.join(", ")) };
        println!(
            "  {mark}{id:<7} {:<8} said {} {source}{lineage}: {}",
            item.block.as_str(),
            nocturne_core::text::when::Day::from_unix(item.created_at),
            item.text
        );
    }
    Ok(())
}
