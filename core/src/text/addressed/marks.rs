//! The marks by which a text poses as the prompt's own structure rather than a person's
//! words ([`super::Addressed::poses`]): a role's marker where a turn would begin, a chat
//! template's token, and markup that closes or opens a block of the prompt.

/// The names of a conversation's roles, as a marker or a chat template writes them.
const ROLES: &[&str] = &[
    "system",
    "sys",
    "assistant",
    "user",
    "human",
    "ai",
    "bot",
    "model",
    "developer",
    "dev",
    "admin",
    "administrator",
    "operator",
    "root",
    "tool",
    "function",
    "instruction",
    "instructions",
    "inst",
    "response",
    "prompt",
    "moderator",
    "superuser",
    "sudo",
    "gpt",
    "chatgpt",
    "claude",
    "nocturne",
    "ipython",
];

/// What a role's marker may add to its name (`[SYSTEM NOTE]`, `Admin override:`).
const ROLE_MODIFIERS: &[&str] = &[
    "note",
    "message",
    "prompt",
    "override",
    "instruction",
    "instructions",
    "channel",
    "mode",
    "update",
    "notice",
    "alert",
    "command",
    "commands",
    "output",
    "input",
    "response",
    "reply",
    "turn",
    "says",
    "said",
];

/// What a block of a prompt is called, in markup or an `END OF …` line.
const BLOCKS: &[&str] = &[
    "system",
    "sys",
    "assistant",
    "user",
    "human",
    "memory",
    "memories",
    "fact",
    "facts",
    "context",
    "instruction",
    "instructions",
    "prompt",
    "tool",
    "result",
    "results",
    "admin",
    "model",
    "role",
    "conversation",
    "chat",
    "message",
    "messages",
    "turn",
    "policy",
    "rules",
    "developer",
    "function",
    "channel",
    "im",
    "eot",
    "bos",
    "eos",
    "data",
    "notes",
    "transcript",
    "input",
    "output",
    "document",
    "section",
    "block",
];

/// `<|…|>`, `[INST]`, `[/SYS]`, `<<SYS>>`: a chat template's token.
pub(super) fn template_token(text: &str) -> Option<String> {
    if let Some(start) = text.find("<|") {
        let end = text[start..].find("|>").map_or(text.len().min(start + 24), |e| start + e + 2);
        return Some(text[start..end].to_string());
    }
    for (open, close) in [("[", "]"), ("<<", ">>")] {
        let mut rest = text;
        while let Some(at) = rest.find(open) {
            let inner = &rest[at + open.len()..];
            if let Some(end) = inner.find(close).filter(|e| *e <= 24) {
                let word = inner[..end].trim().trim_start_matches('/').trim().to_lowercase();
                let first = word.split_whitespace().next().unwrap_or("");
                if ROLES.contains(&first) && word.split_whitespace().skip(1).all(|w| ROLE_MODIFIERS.contains(&w)) {
                    return Some(format!("{open}{}{close}", &inner[..end]));
                }
            }
            rest = &rest[at + open.len()..];
        }
    }
    None
}

/// Markup that closes or opens a block: a tag naming a role or a part of the prompt, a
/// `role` key of a chat message, a JSON value closed that the text never opened, a line
/// that ends or begins a named block (`---END OF MEMORY---`, `BEGIN SYSTEM PROMPT`), a
/// code fence at a line's start.
pub(super) fn markup(text: &str) -> Option<String> {
    if text.contains("]]>") {
        return Some("]]>".into());
    }
    tag(text).or_else(|| unopened_close(text)).or_else(|| boundary(text)).or_else(|| {
        let lower = text.to_lowercase();
        if let Some(at) = lower.find("\"role\"").or_else(|| lower.find("'role'")) {
            if lower[at + 6..].trim_start().starts_with(':') {
                return Some(text[at..(at + 16).min(text.len())].to_string());
            }
        }
        text.lines()
            .map(str::trim_start)
            .find(|l| l.starts_with("```") || l.starts_with("~~~"))
            .map(|l| l.chars().take(12).collect())
    })
}

/// The elements of a web page a person may mention in their work (`<main>`, `</div>`).
const PAGE_ELEMENTS: &[&str] = &[
    "a", "b", "i", "u", "s", "p", "em", "strong", "span", "div", "table", "thead", "tbody", "tr", "td", "th", "ul",
    "ol", "li", "main", "nav", "header", "footer", "article", "aside", "section", "body", "html", "head", "title",
    "script", "style", "form", "button", "label", "select", "option", "textarea", "img", "code", "pre", "h1", "h2",
    "h3", "h4", "h5", "h6", "br", "hr", "small", "sup", "sub", "svg", "canvas", "video", "audio", "iframe",
];

/// The first tag (`</memory>`, `<system>`, `<memory role="system">`) whose name or whose
/// attributes name a role or a part of the prompt, or a closing tag of something the text
/// never opened (`</untrusted>`) — not an element of a web page (`<main>`, `</div>`).
fn tag(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        let after = &rest[at + 1..];
        let end = after.find('>').filter(|e| *e <= 120);
        if let Some(end) = end {
            let inside = after[..end].trim().trim_start_matches('/').trim_end_matches('/');
            let name: String = inside.chars().take_while(|c| c.is_alphanumeric() || "_-:.".contains(*c)).collect();
            let lower = inside.to_lowercase();
            let named = name.to_lowercase().split(['_', '-', ':', '.']).any(|p| BLOCKS.contains(&p));
            let attributed = name.chars().next().is_some_and(char::is_alphabetic)
                && (lower.contains("role=") || lower.contains("role =") || lower.contains("system"));
            let closing = after.starts_with('/');
            let opened = !name.is_empty() && text[..text.len() - rest.len() + at].contains(&format!("<{name}"));
            let unopened = closing && !opened && !PAGE_ELEMENTS.contains(&name.to_lowercase().as_str());
            if !name.is_empty() && (named || attributed || unopened) {
                return Some(format!("<{}>", &after[..end]));
            }
        }
        rest = after;
    }
    None
}

/// A `}` or `]` beside a quote or another closer that closes what the text never opened
/// (`"}]} {"role": …`): the end of a JSON value the text means to break out of.
fn unopened_close(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut depth = 0i32;
    for (i, c) in chars.iter().enumerate() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' if depth > 0 => depth -= 1,
            '}' | ']' => {
                let near = |k: Option<usize>| k.and_then(|k| chars.get(k)).is_some_and(|c| "\"'}]".contains(*c));
                if near(i.checked_sub(1)) || near(Some(i + 1)) {
                    let from = i.saturating_sub(2);
                    return Some(chars[from..(i + 3).min(chars.len())].iter().collect());
                }
            }
            _ => {}
        }
    }
    None
}

/// `END OF FACTS`, `---END OF MEMORY---`, `%%% BEGIN ADMIN CHANNEL %%%`: a line that ends or
/// begins a named block, in capitals or between rules of punctuation.
fn boundary(text: &str) -> Option<String> {
    let words: Vec<(usize, &str)> = text
        .match_indices(|c: char| c.is_alphanumeric())
        .map(|(i, _)| i)
        .filter(|i| *i == 0 || !text[..*i].chars().next_back().is_some_and(char::is_alphanumeric))
        .map(|i| (i, text[i..].split(|c: char| !c.is_alphanumeric()).next().unwrap_or("")))
        .collect();
    for (k, (at, word)) in words.iter().enumerate() {
        let upper = word.to_uppercase();
        if !["END", "BEGIN", "START", "STOP", "OPEN", "CLOSE"].contains(&upper.as_str()) {
            continue;
        }
        let rest = words[k + 1..].iter().map(|(_, w)| w.to_lowercase());
        let mut rest = rest.skip_while(|w| ["of", "the", "your", "this", "new"].contains(&w.as_str()));
        let Some(block) = rest.next() else { continue };
        if !BLOCKS.contains(&block.as_str()) {
            continue;
        }
        let capitals = word.len() >= 3 && word.chars().all(|c| c.is_ascii_uppercase());
        // `End of memory.` as a sentence of its own.
        let alone = crate::text::sentence::sentences(text).iter().any(|s| {
            let n = s.split_whitespace().count();
            n <= 4 && s.to_uppercase().starts_with(&upper) && s.to_lowercase().contains(block.as_str())
        });
        let around = &text[at.saturating_sub(4)..(at + word.len() + 24).min(text.len())];
        let ruled = ["---", "===", "%%%", "***", "###", "~~~", ">>>", "<<<", "___"].iter().any(|r| around.contains(r));
        if capitals || ruled || alone {
            let end = text[*at..].find(['\n', '.']).map_or(text.len(), |e| at + e);
            return Some(text[*at..end].trim_end_matches(['-', '=', '%', '*', '#', ' ']).to_string());
        }
    }
    None
}

/// A role's marker where a turn would begin — a line's or a sentence's start: `System:`,
/// `### Assistant:`, `[ADMIN]:`, `# System` alone on its line.
pub(super) fn role_marker(text: &str) -> Option<String> {
    for line in text.lines() {
        let heading = line.trim_start().starts_with('#');
        let starts = std::iter::once(line).chain(crate::text::sentence::sentences(line).into_iter().skip(1));
        for start in starts {
            let s = start.trim_start_matches(|c: char| c.is_whitespace() || "#*>=-_|(<[".contains(c));
            // `New system prompt:`, `Updated instructions:`: the role may follow one adjective.
            const FRESH: &[&str] =
                &["new", "updated", "real", "actual", "true", "hidden", "secret", "official", "priority"];
            let s = match s.split_once(' ') {
                Some((a, rest)) if FRESH.contains(&a.to_lowercase().as_str()) => rest,
                _ => s,
            };
            let mut words = s.split(|c: char| !c.is_alphanumeric()).take_while(|w| !w.is_empty());
            let Some(first) = words.next() else { continue };
            if !ROLES.contains(&first.to_lowercase().as_str()) {
                continue;
            }
            let mut len = first.len();
            for w in words.take(2) {
                if !ROLE_MODIFIERS.contains(&w.to_lowercase().as_str()) {
                    break;
                }
                len = s.find(w).map_or(len, |at| at + w.len());
            }
            let after = s[len..].trim_start_matches(|c: char| " ]>)|*#".contains(c));
            if after.starts_with(':') || (heading && after.trim().is_empty()) {
                return Some(s[..len].to_string() + if after.starts_with(':') { ":" } else { "" });
            }
        }
    }
    None
}
