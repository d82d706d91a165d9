//! Rules 4 and 5 of [`super`]: the assistant addressed — an imperative, a modal with `you`,
//! `you` after a wish, a wish that the memory change — and what the verb's meaning asks
//! (a command about the memory, a question for a stored fact, or a request); a wish to know
//! what the assistant holds.

use super::words::{aux, base_verb, is, lemma, MODALS, NEGATED, SOFTENERS, STATE_VERBS, SUMMARY_WORDS, W, WH};
use super::{Act, CommandKind, Reading};
use crate::text::verbs::{self, Form};

/// `you` and a modal (`can you`, `could you please`, `you could`, `would you mind`, `would
/// you be able to`), then the verb the assistant is asked to do.
pub(super) fn you_modal(ws: &[W]) -> Option<Reading> {
    let you = ws.iter().position(|w| w.w == "you")?;
    let modal_before = you > 0 && (is(MODALS, &ws[you - 1].w) || is(NEGATED, &ws[you - 1].w));
    let modal_after = ws.get(you + 1).is_some_and(|w| is(MODALS, &w.w));
    if !modal_before && !modal_after {
        return None;
    }
    let mut k = you + 1 + modal_after as usize;
    while ws.get(k).is_some_and(|w| is(SOFTENERS, &w.w)) {
        k += 1;
    }
    let words: Vec<&str> = ws[k.min(ws.len())..].iter().take(3).map(|w| w.w.as_str()).collect();
    if words.first() == Some(&"mind") {
        k += 1;
    } else if words.starts_with(&["be", "able", "to"]) {
        k += 3;
    }
    let how = if modal_before { format!("\"{} you\"", ws[you - 1].w) } else { format!("\"you {}\"", ws[you + 1].w) };
    // A verb the table lacks is still what the assistant is asked to do.
    let r =
        addressed(ws, k, &how).unwrap_or_else(|| Reading::new(Act::Request, format!("{how}: \"{}\"", words.join(" "))));
    Some(remember_asks(ws, k, r))
}

/// `can you remember` + a noun asks what the memory holds (`Can you remember things from one
/// chat to the next?`); with a clause it asks to store it.
fn remember_asks(ws: &[W], k: usize, r: Reading) -> Reading {
    if r.act == Act::Command(CommandKind::Remember)
        && ws.get(k).is_some_and(|w| lemma(&w.w) == "remember")
        && !clause_after(ws, k + 1)
    {
        return Reading::new(Act::Question, "\"remember\" with a noun asks what the memory holds");
    }
    r
}

/// `you` first: `You can forget my old job` (a command); `You've …` tells something.
pub(super) fn you_first(ws: &[W]) -> Option<Reading> {
    // `You don't need to remember my old address`: no longer to be kept.
    let text: Vec<&str> = ws.iter().take(5).map(|w| w.w.as_str()).collect();
    if text.starts_with(&["you", "don't", "need", "to"]) || text.starts_with(&["you", "don't", "have", "to"]) {
        if let Some(Reading { act: Act::Command(CommandKind::Remember), .. }) =
            addressed(ws, 4, "\"you don't need to\"")
        {
            return Some(Reading::new(Act::Command(CommandKind::Forget), format!("\"you don't need to {}\"", ws[4].w)));
        }
    }
    // `You remember my birthday` asks whether the memory holds it, `?` or not.
    let mut v = 1;
    while ws.get(v).is_some_and(|w| matches!(w.w.as_str(), "still" | "already" | "do")) {
        v += 1;
    }
    if ws.get(v).is_some_and(|w| matches!(w.w.as_str(), "know" | "remember" | "recall" | "have")) {
        return Some(Reading::new(Act::Question, format!("\"you {}\" asks what the memory holds", ws[v].w)));
    }
    let modal = ws.get(1).is_some_and(|w| is(MODALS, &w.w));
    if !modal {
        return None;
    }
    let mut k = 2;
    while ws.get(k).is_some_and(|w| is(SOFTENERS, &w.w) || w.w == "now") {
        k += 1;
    }
    addressed(ws, k, &format!("\"you {}\"", ws[1].w)).filter(|r| matches!(r.act, Act::Command(_)))
}

/// An imperative at `k`: a verb's base form with no subject, not a verb of feeling or
/// wanting, not a noun before its verb (`Work is crazy.`).
pub(super) fn imperative(ws: &[W], k: usize) -> Option<Reading> {
    let w = ws.get(k)?.w.as_str();
    if w == "don't" || w == "never" {
        return negated_imperative(ws, k + 1);
    }
    if is(SUMMARY_WORDS, w) && ws.len() <= 3 {
        return Some(Reading::new(Act::Request, format!("\"{w}\" asks for a summary")));
    }
    let verb = base_verb(w) || matches!(w, "sum" | "tl;dr");
    let next = ws.get(k + 1).map_or("", |n| n.w.as_str());
    // `Think of a name …`, `Look up …`, `Come up with …`, `Get me …`: a verb of feeling or
    // wanting with a particle is an imperative; alone it is the speaker's (`Love my job`).
    let particle = matches!(next, "up" | "of" | "with" | "into" | "through" | "over" | "out" | "ahead" | "rid")
        || lemma(w) == "get" && matches!(next, "me" | "us");
    if !verb || is(STATE_VERBS, lemma(w)) && !particle {
        return None;
    }
    // `Last week I joined a forum`, `Last night …`: a time said first, not the verb `last`.
    if w == "last" && crate::text::cues::time_word(next.trim_end_matches('s')) {
        return None;
    }
    // `Mark and I share an allotment`: a name coordinated with the speaker is a subject.
    if matches!(next, "and" | "&") && ws.get(k + 2).is_some_and(|n| n.w == "i") {
        return None;
    }
    // `Work is crazy`, `Plan B worked`: a noun subject, not an imperative.
    if ws
        .get(k + 1)
        .is_some_and(|n| aux(&n.w) || verbs::forms(&n.w).is_some_and(|f| f.is(Form::Third) && !f.is(Form::Base)))
    {
        return None;
    }
    // `Hit my head yesterday`: a past that is also a base form, said of a past day.
    let past = verbs::forms(w).is_some_and(|f| f.is(Form::Past));
    if past && ws.iter().any(|x| matches!(x.w.as_str(), "yesterday" | "ago" | "last" | "earlier")) {
        return None;
    }
    // `Mind deleting my address?`: what is asked is the gerund.
    if w == "mind" && verbs::forms(next).is_some_and(|f| f.is(Form::Gerund)) {
        return addressed(ws, k + 1, "\"mind\" + a gerund");
    }
    addressed(ws, k, "the imperative")
}

/// `don't`/`never` + a verb: `don't remember …`, `don't let me forget to …`.
pub(super) fn negated_imperative(ws: &[W], k: usize) -> Option<Reading> {
    let w = ws.get(k)?.w.as_str();
    let next = |d: usize| ws.get(k + d).map_or("", |w| w.w.as_str());
    let cmd = |kind, cue: &str| Some(Reading::new(Act::Command(kind), cue.to_string()));
    match lemma(w) {
        "forget" if next(1) == "to" => cmd(CommandKind::Remind, "\"don't forget to\""),
        "forget" => cmd(CommandKind::Remember, "\"don't forget\""),
        "let" if next(1) == "me" && lemma(next(2)) == "forget" => cmd(CommandKind::Remind, "\"don't let me forget\""),
        "remember" | "keep" | "store" | "save" | "hold" | "note" | "track" | "record" => {
            cmd(CommandKind::Forget, &format!("\"don't {w}\""))
        }
        _ if base_verb(w) && !is(STATE_VERBS, lemma(w)) => {
            Some(Reading::new(Act::Request, format!("the negated imperative \"don't {w}\"")))
        }
        _ => None,
    }
}

/// What the assistant is asked to do by the verb at `k` (after `you` and a modal, or an
/// imperative): a command about the memory by the verb's meaning, a question when it asks
/// for a stored fact, else a request.
pub(super) fn addressed(ws: &[W], k: usize, how: &str) -> Option<Reading> {
    let w = ws.get(k)?.w.as_str();
    let after: Vec<&str> = ws[k + 1..].iter().map(|w| w.w.as_str()).collect();
    let has = |x: &str| after.iter().take(6).any(|a| *a == x);
    let cmd = |kind: CommandKind| Some(Reading::new(Act::Command(kind), format!("{how} \"{w}\"")));
    let lemma = lemma(w);
    if let Some(kind) = memory_verb(lemma, &after) {
        return cmd(kind);
    }
    // `tell me what …`, `remind me who …`: asks for a stored fact.
    if matches!(lemma, "tell" | "remind" | "show") && after.first().is_some_and(|m| matches!(*m, "me" | "us")) {
        let wh = after.get(1).copied().unwrap_or("");
        let how_to = wh == "how" && after.get(2) == Some(&"to");
        if (is(WH, wh) || matches!(wh, "whether" | "if")) && !how_to {
            return Some(Reading::new(Act::Question, format!("{how}: \"{w} me {wh} …\" asks for a stored fact")));
        }
        // `Remind me my therapist's name.`, `remind me of my horse's name`: a noun phrase and
        // no `to` + verb asks for it.
        let np = if wh == "of" { after.get(2).copied().unwrap_or("") } else { wh };
        let named = matches!(np, "my" | "our" | "his" | "her" | "their" | "the" | "your");
        let to_do = after.windows(2).any(|p| p[0] == "to" && base_verb(p[1]));
        if lemma == "remind" && named && !to_do {
            return Some(Reading::new(Act::Question, format!("{how}: \"{w} me\" + a noun asks for a stored fact")));
        }
        if lemma == "remind" && !how_to {
            return cmd(CommandKind::Remind);
        }
    }
    if matches!(lemma, "remember" | "recall") && after.first().is_some_and(|m| matches!(*m, "when" | "how")) {
        return Some(Reading::new(Act::Question, format!("{how}: \"{w} {}\" asks", after[0])));
    }
    // `Can you check whether I told you about my allergy?`: asks what the memory holds.
    if matches!(lemma, "check" | "confirm" | "see") && after.first().is_some_and(|x| matches!(*x, "whether" | "if")) {
        return Some(Reading::new(Act::Question, format!("{how}: \"{w} {}\" asks", after[0])));
    }
    if lemma == "know" || lemma == "happen" && has("know") {
        return Some(Reading::new(Act::Question, format!("{how}: \"{w}\" asks what the assistant knows")));
    }
    if lemma.is_empty() || !(base_verb(w) || matches!(w, "sum" | "tl;dr") || verbs::forms(w).is_some()) {
        return None;
    }
    Some(Reading::new(Act::Request, format!("{how} \"{w}\"")))
}

/// The command a verb of memory asks for, by its meaning (`forget`, `delete` …), read with
/// the words after it (`keep … in mind`, `add a reminder`, `change my … to`).
fn memory_verb(lemma: &str, after: &[&str]) -> Option<CommandKind> {
    let has = |x: &str| after.iter().take(8).any(|a| *a == x);
    let object = |xs: &[&str]| after.iter().take(3).any(|a| xs.contains(a));
    let about_user = has("my")
        || has("me")
        || has("i")
        || has("you")
        || has("everything")
        || has("anything")
        || has("all")
        || has("what")
        || has("memory")
        || has("notes")
        || has("note")
        || has("stored")
        || has("mine")
        || has("your");
    match lemma {
        "forget" if after.first() == Some(&"to") => Some(CommandKind::Remind),
        "forget" | "disregard" | "unlearn" => Some(CommandKind::Forget),
        "ignore" | "scratch" | "strike" if has("said") || has("told") || object(&["that", "what"]) => {
            Some(CommandKind::Forget)
        }
        "stop"
            if after.first().is_some_and(|g| {
                matches!(lemma_of(g), "remember" | "store" | "save" | "track" | "record" | "keep")
            }) =>
        {
            Some(CommandKind::Forget)
        }
        "delete" | "erase" | "remove" | "wipe" | "purge" | "clear"
            if about_user || matches!(after, ["it"] | ["that"]) =>
        {
            Some(CommandKind::Erase)
        }
        "replace" if object(&["my", "that", "it"]) && has("with") => Some(CommandKind::Correct),
        "get" if after.first() == Some(&"rid") => Some(CommandKind::Erase),
        "take" if has("out") && (has("memory") || has("notes")) => Some(CommandKind::Erase),
        "remind" if reminds(after) => Some(CommandKind::Remind),
        "nudge" | "ping" if object(&["me", "us"]) => Some(CommandKind::Remind),
        "set" | "add" | "create" | "schedule" | "put" if has("reminder") || has("alarm") => Some(CommandKind::Remind),
        "give" if has("nudge") || has("reminder") => Some(CommandKind::Remind),
        "make" if after.starts_with(&["sure", "i"]) && after.get(2).is_some_and(|v| base_verb(v) || *v == "don't") => {
            Some(CommandKind::Remind)
        }
        "tell" if after.starts_with(&["me", "to"]) => Some(CommandKind::Remind),
        "alert" | "buzz" | "text" | "wake" if object(&["me", "us"]) => Some(CommandKind::Remind),
        "make" if after.starts_with(&["a", "note"]) || after.starts_with(&["note"]) => Some(CommandKind::Remember),
        "remember" if after.first() == Some(&"to") => Some(CommandKind::Remind),
        "remember" | "memorize" => Some(CommandKind::Remember),
        "note" | "jot" if !object(&["how", "why"]) => Some(CommandKind::Remember),
        "write" | "jot" if after.first() == Some(&"down") || after.get(1) == Some(&"down") => {
            Some(CommandKind::Remember)
        }
        "take" if after.first() == Some(&"note") => Some(CommandKind::Remember),
        "save" | "store" | "record" | "log" if about_user || object(&["this", "that", "it"]) => {
            Some(CommandKind::Remember)
        }
        "keep" | "bear" if has("mind") || has("track") || object(&["note"]) => Some(CommandKind::Remember),
        "commit" if has("memory") => Some(CommandKind::Remember),
        "add" if has("notes") || has("memory") => Some(CommandKind::Remember),
        "change" | "update" | "correct" | "amend"
            if object(&["my", "that", "it"]) && (has("to") || object(&["that", "it"])) =>
        {
            Some(CommandKind::Correct)
        }
        _ => None,
    }
}

/// `remind me to …`, `remind me about the dentist`, `remind me on Friday`: not `remind me
/// what …` nor `remind me my locker number` (a noun and no `to` + verb asks for it).
fn reminds(after: &[&str]) -> bool {
    let me = after.first().is_some_and(|m| matches!(*m, "me" | "us"));
    let next = after.get(1).copied().unwrap_or("");
    let asks = is(WH, next) || matches!(next, "whether" | "if");
    // `remind me of my horse's name`: what to be reminded of, a noun phrase.
    let np = if next == "of" { after.get(2).copied().unwrap_or("") } else { next };
    let named = matches!(np, "my" | "our" | "his" | "her" | "their" | "the" | "your");
    let to_do = after.windows(2).any(|p| p[0] == "to" && base_verb(p[1]));
    me && !next.is_empty() && !asks && (!named || to_do)
}

fn lemma_of(w: &str) -> &str {
    lemma(w)
}

/// A clause follows at `k`: `that …`, `this:`, or a noun phrase and its verb (`my wife's name
/// is Catalina`), not a noun phrase alone.
fn clause_after(ws: &[W], k: usize) -> bool {
    let Some(w) = ws.get(k) else { return false };
    if matches!(w.w.as_str(), "that" | "this") || w.pause {
        return true;
    }
    ws[k..]
        .iter()
        .skip(1)
        .any(|w| aux(&w.w) || verbs::forms(&w.w).is_some_and(|f| f.is(Form::Third) || f.is(Form::Past)))
}

/// `you` after a wish, an `if` or `for` and before `to` or a modal (`I'd like you to …`, `if
/// you could …`, `Would it be possible for you to …`): the verb after it is what the
/// assistant is asked to do.
pub(super) fn embedded_you(ws: &[W]) -> Option<Reading> {
    let text: Vec<&str> = ws.iter().map(|w| w.w.as_str()).collect();
    let you = text.iter().position(|w| *w == "you")?;
    let before = &text[you.saturating_sub(3)..you];
    let wish = before.iter().any(|w| {
        matches!(
            *w,
            "like" | "want" | "need" | "love" | "appreciate" | "hoping" | "if" | "wish" | "prefer" | "for" | "ask"
        )
    });
    let to = text.get(you + 1).is_some_and(|w| *w == "to");
    if !wish || !(to || text.get(you + 1).is_some_and(|w| is(MODALS, w))) {
        return None;
    }
    let mut k = you + 2;
    while ws.get(k).is_some_and(|w| is(SOFTENERS, &w.w)) {
        k += 1;
    }
    let r = addressed(ws, k, "the assistant asked to")?;
    // `I don't want you to remember …`: the wish is that it be forgotten.
    let negated = text[..you].iter().any(|w| matches!(*w, "don't" | "not" | "never" | "doesn't"));
    Some(match r.act {
        Act::Command(CommandKind::Remember) if negated => Reading::new(Act::Command(CommandKind::Forget), r.cue),
        _ => r,
    })
}

/// `I want my old address deleted`, `I'd like that noted`: the speaker wants the memory
/// changed (a participle of a verb of memory after the thing).
pub(super) fn wanted_done(text: &[&str]) -> Option<Reading> {
    let wish = text.iter().take(4).position(|w| matches!(*w, "want" | "like" | "need"))?;
    let done = text[wish + 1..].iter().take(6).find_map(|w| {
        let kind = match *w {
            "deleted" | "erased" | "removed" | "wiped" | "purged" | "cleared" => CommandKind::Erase,
            "forgotten" | "disregarded" => CommandKind::Forget,
            "noted" | "saved" | "remembered" | "stored" | "recorded" => CommandKind::Remember,
            "updated" | "corrected" | "changed" | "fixed" => CommandKind::Correct,
            _ => return None,
        };
        Some((kind, *w))
    })?;
    (text.get(wish + 1) != Some(&"to"))
        .then(|| Reading::new(Act::Command(done.0), format!("\"{} … {}\"", text[wish], done.1)))
}

/// `I need a gift idea for my mum`, `I'd love a recipe for banana bread`, `I want to know how
/// long to boil an egg`, `I need help planning a trip`, `I have a question about my tax
/// return`: a wish for what the assistant gives in the chat — an idea, a recipe, advice,
/// help, an answer, a way to do something — asks it, as a request does. A wish for a thing
/// of the world is the speaker's (`I need a new laptop`, `I want a dog`, `I'd love to visit
/// Japan`), and so is a taste (`I love a good recipe`: no `would`).
pub(super) fn wants_given(text: &[&str]) -> Option<Reading> {
    let would = |k: usize| k > 0 && matches!(text[k - 1], "'d" | "would");
    let question = |k: usize| {
        let after: Vec<&str> = text.iter().skip(k + 1).take(3).copied().collect();
        matches!(after.as_slice(), ["a", "question", ..] | ["a", "quick", "question"] | ["some", "questions", ..])
    };
    let wish = text.iter().take(5).enumerate().position(|(k, w)| {
        matches!(*w, "need" | "want" | "needed" | "wanted")
            || matches!(*w, "like" | "love" | "appreciate") && would(k)
            || *w == "use" && k > 0 && text[k - 1] == "could"
            || *w == "have" && question(k)
    })?;
    let rest = &text[wish + 1..];
    // `I want to know how long …`, `I need to understand why …`: a way or a reason asked.
    if rest.first() == Some(&"to")
        && rest.get(1).is_some_and(|w| matches!(*w, "know" | "understand" | "learn" | "figure"))
        && rest.iter().skip(2).take(2).any(|w| is(WH, w) || matches!(*w, "if" | "whether"))
        && !rest.iter().any(|w| matches!(*w, "my" | "i" | "our" | "me" | "you"))
    {
        return Some(Reading::new(
            Act::Request,
            format!("\"{} to {}\": a way or an answer asked", text[wish], rest[1]),
        ));
    }
    // `I need a gift idea`, `I'd appreciate some tips`: the thing wished for, past its
    // determiner and a few describing words, is one the assistant gives.
    let given = rest
        .iter()
        .take(5)
        .take_while(|w| !matches!(**w, "for" | "on" | "about" | "to" | "that" | "with" | "of"))
        .find(|w| is(GIVEN, w))?;
    Some(Reading::new(Act::Request, format!("\"{} … {given}\": what the assistant gives, asked of it", text[wish])))
}

/// What an assistant gives in a chat, when a speaker says they need or would like it.
#[rustfmt::skip]
const GIVEN: &[&str] = &[
    "idea", "ideas", "recipe", "recipes", "tip", "tips", "advice", "suggestion", "suggestions", "recommendation",
    "recommendations", "help", "hand", "list", "word", "synonym", "explanation", "example", "examples", "template",
    "draft", "outline", "answer", "answers", "opinion", "feedback", "joke", "poem", "pointers", "guidance",
    "overview", "breakdown", "rundown", "checklist", "plan", "itinerary", "quote", "translation", "summary",
    "question", "questions",
];

/// `I want to know …`, `I'd love to hear what you know …`, `I was wondering if you
/// remember …`: a wish to know what the assistant holds or what the user told it.
pub(super) fn wish_to_know(text: &[&str]) -> Option<Reading> {
    let wish = text
        .iter()
        .take(5)
        .position(|w| matches!(*w, "want" | "like" | "love" | "wondering" | "wonder" | "curious"))?;
    let rest = &text[wish + 1..];
    let knows = rest.iter().take(3).any(|w| matches!(*w, "know" | "hear" | "find" | "learn" | "if" | "whether"))
        || matches!(text[wish], "wonder" | "wondering") && rest.first().is_some_and(|w| is(WH, w));
    let you = rest.windows(2).any(|p| p[0] == "you" && p[1] != "ask");
    let told = rest.windows(2).any(|p| p[0] == "i" && matches!(p[1], "said" | "told" | "mentioned"));
    // `I want to know what my blood type is`: to know a fact about the speaker, with no
    // choice to weigh (`I'm wondering if I should …` tells a doubt).
    let explicit = matches!(text[wish], "want" | "like" | "love")
        && rest.iter().take(3).any(|w| matches!(*w, "know" | "hear"))
        || matches!(text[wish], "wonder" | "wondering") && rest.first().is_some_and(|w| is(WH, w));
    let deliberates = rest.iter().any(|w| is(MODALS, w) || matches!(*w, "whether" | "going"));
    let own = rest.iter().skip(1).any(|w| matches!(*w, "my" | "i" | "our" | "me"));
    (knows && (you || told) || explicit && own && !deliberates)
        .then(|| Reading::new(Act::Question, format!("\"{}\" to know what the memory holds", text[wish])))
}
