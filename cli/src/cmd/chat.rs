//! `nocturne chat`: turns through the one write path, and what each kept and used.

use crate::args::{ProviderArgs, StoreArgs};
use crate::error::CliError;
use crate::store::Memory;
use crate::{progress, write};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::{chat, told};
use nocturne_core::store::Store;
use nocturne_core::write::{Reply, Watch};

/// How `nocturne chat` was asked to run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChatFlags<'a> {
    pub(crate) speaker: Option<&'a str>,
    pub(crate) show_memory: bool,
}

/// `nocturne chat`: one turn from the arguments, or one per line of standard input, each
/// dated when it is read. Each turn is saved as it completes; on an error the file holds
/// the turns before it. A line that cannot be a turn (too long, not text) is refused and
/// said, and the lines after it go on; the command then exits 1.
pub(crate) fn chat(
    store: &StoreArgs,
    provider: &ProviderArgs,
    flags: ChatFlags<'_>,
    message: Vec<String>,
) -> Result<(), CliError> {
    let memory = Memory::open(&store.store)?;
    let p = provider.build()?;
    let mut lines = Lines::new(message);
    let (mut said, mut refused) = (0, Vec::new());
    while let Some((n, line)) = lines.next()? {
        let text = match line {
            Line::Blank => continue,
            Line::Turn(text) => text,
            Line::Refused(why) => {
                eprintln!("nocturne: line {n} refused: {why}; the other lines go on");
                refused.push(n);
                continue;
            }
        };
        // Each turn is in the file as soon as it is committed, so Ctrl-C or an error loses
        // no earlier turn.
        let turn = Reply { text, speaker: flags.speaker.map(String::from), at: store.now() };
        let written = write::perform(&store.store, &memory, turn, &p, &mut Watch::quiet())
            .map_err(|e| CliError::caused(format!("{e}; the store file holds the turns before this one"), e))?;
        said += 1;
        let turn = written.done;
        progress(format!("after turn {said}"));
        println!("{}", turn.reply);
        print_memory_use(&memory, &turn, flags.show_memory)?;
        print_encoded(&turn.encoded);
        if let Some(err) = turn.encode_error {
            println!("  encoder failed: {err}");
        }
        if written.recorded.is_some() {
            println!("  recorded for the next sync");
        }
        print_told(&store.store, &turn.told);
    }
    match (said, refused.len()) {
        (0, 0) => Err("chat needs a message: as arguments, or one per line on standard input".into()),
        (_, 0) => Ok(()),
        (_, n) => Err(format!(
            "{n} line(s) refused (line {}); the {said} other turn(s) were stored",
            refused.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
        )
        .into()),
    }
}

/// Why `text` cannot be a turn for its length, if so.
fn too_long(text: &str) -> Option<String> {
    let (chars, max) = (text.trim().chars().count(), nocturne_core::store::document::MAX_TURN_CHARS);
    (chars > max).then(|| format!("it is {chars} characters long; a turn holds at most {max}"))
}

/// A line read: nothing to say, a turn to say, or why it cannot be one (said, and the
/// next line read).
enum Line {
    Blank,
    Turn(String),
    Refused(String),
}

impl Line {
    fn of(text: String) -> Line {
        match too_long(&text) {
            _ if text.trim().is_empty() => Line::Blank,
            Some(why) => Line::Refused(why),
            None => Line::Turn(text),
        }
    }
}

/// The turns to say: the arguments as one, or standard input a line at a time, as it comes
/// (so each is dated when read), numbered from 1.
struct Lines {
    given: Option<String>,
    stdin: Option<std::io::StdinLock<'static>>,
    read: usize,
}

impl Lines {
    fn new(message: Vec<String>) -> Lines {
        let stdin = message.is_empty().then(|| std::io::stdin().lock());
        Lines { given: (!message.is_empty()).then(|| message.join(" ")), stdin, read: 0 }
    }

    fn next(&mut self) -> Result<Option<(usize, Line)>, CliError> {
        use std::io::BufRead;
        if let Some(text) = self.given.take() {
            self.read += 1;
            return Ok(Some((self.read, Line::of(text))));
        }
        let Some(stdin) = self.stdin.as_mut() else { return Ok(None) };
        let mut bytes = Vec::new();
        let n = stdin
            .read_until(b'\n', &mut bytes)
            .map_err(|e| CliError::caused(format!("cannot read standard input: {e}"), e))?;
        if n == 0 {
            return Ok(None);
        }
        self.read += 1;
        while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            bytes.pop();
        }
        let line = String::from_utf8(bytes).map_or_else(|_| Line::Refused("it is not text (UTF-8)".into()), Line::of);
        Ok(Some((self.read, line)))
    }
}

/// Under a reply: what each memory command of the turn did, or what it asks, and the
/// command that undoes it.
fn print_told(path: &std::path::Path, told: &[told::Carried]) {
    let store = path.display();
    for t in told {
        println!("  memory command “{}”: {}", t.sentence, t.said);
        match &t.undo {
            Some(told::Undo::Restore { seq, head }) => {
                println!("    undo: nocturne restore --store {store} v{seq}");
                println!("    (while the memory is at v{head}: a later change would be undone too)");
            }
            Some(told::Undo::Edit { edit: UserEdit::Forget { item_id, .. } }) => {
                println!("    undo: nocturne forget --store {store} {item_id}")
            }
            Some(told::Undo::Edit { edit: UserEdit::Correct { item_id, text } }) => {
                println!("    undo: nocturne edit --store {store} {item_id} {}", shell_quoted(text))
            }
            Some(told::Undo::Edit { edit: UserEdit::Pin { item_id } }) => {
                println!("    undo: nocturne pin --store {store} {item_id}")
            }
            Some(told::Undo::Edit { edit: UserEdit::Unpin { item_id } }) => {
                println!("    undo: nocturne unpin --store {store} {item_id}")
            }
            None => {}
        }
    }
}

/// `text` in single quotes for a POSIX shell.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
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
