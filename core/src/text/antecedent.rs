//! A piece keeps its referent: when a turn is cut into statements (`text::split`), a
//! third-person pronoun whose antecedent stayed in an earlier piece is replaced by it, so
//! no stored fact says `it` or `she` of something it never names — `I drink green tea in
//! the afternoon; I prefer it over coffee.` keeps `I prefer green tea over coffee.`
//!
//! The grammar, on one screen. Each earlier piece offers the phrases it names
//! (`text::referent`): its subject, what its verb acts on, what its prepositions name, a
//! coordination's members. A pronoun takes the one that agrees with it — `he`/`she` a
//! person or an animal of no other gender (a name, `my mum`, `our cat`), `it` a thing or an
//! animal (never a person), `they` several — preferring, as speakers do, the subject for
//! a subject or possessive pronoun (`My mum retired and she …`, `My kids … their
//! teacher`) and what the verb acts on for an object pronoun or `it` (`I baked a cake and
//! took it …`, `our neighbours have two goats and we feed them`). A pronoun whose
//! antecedent is in its own piece (`My brother sold his flat`), an `it` that names nothing
//! (`it rained`, `it's been a long week`, `it turns out`) and a pronoun the turn never
//! names (`She said yes!`) are left as written; a piece that opens on an `it` no earlier
//! phrase names, only an adjective (`I'm epileptic, but it's well controlled …`), stays with
//! the piece before it. An indefinite antecedent is taken up
//! definitely (`a dishwasher` → `the dishwasher`), with what names it (`a podcast about
//! cycling`).
//!
//! ```
//! use nocturne_core::text::antecedent::facts;
//! assert_eq!(
//!     facts("I drink green tea in the afternoon; I prefer it over coffee."),
//!     ["I drink green tea in the afternoon.", "I prefer green tea over coffee."]
//! );
//! assert_eq!(
//!     facts("My daughter Noor is seven and she loves drawing horses."),
//!     ["My daughter Noor is seven.", "My daughter Noor loves drawing horses."]
//! );
//! assert_eq!(facts("I bought a tent and it rained the whole weekend."), ["I bought a tent.", "It rained the whole weekend."]);
//! ```

use super::referent::{self, noun_phrase, words, Det, Phrase, Word, AUXILIARIES, PREPOSITIONS};
use super::split;
use super::verbs::{self, Form};

/// The statements of `text` as facts: every piece the splitter cuts, each pronoun whose
/// antecedent is in an earlier piece replaced by it, and a piece whose `it` names nothing
/// said before kept with the piece before it ([`orphaned`]).
pub fn facts(text: &str) -> Vec<String> {
    let pieces = split::statements(text);
    let mut before: Vec<String> = Vec::with_capacity(pieces.len());
    let mut out = Vec::with_capacity(pieces.len());
    for (n, piece) in pieces.iter().enumerate() {
        let prev = n.checked_sub(1).map(|m| &pieces[m]).filter(|_| piece.how != split::How::First);
        if let Some(joined) = prev.and_then(|prev| kept_with(text, prev, piece, &before)) {
            before.pop();
            out.pop();
            out.push(resolve_in(&joined, &before));
            before.push(joined);
            continue;
        }
        out.push(resolve_in(&piece.text, &before));
        before.push(piece.text.clone());
    }
    out
}

/// Whether `fact` opens on an `it` that stands for something (not `it rained`) which no
/// phrase of the statements `before` it names (`I'm epileptic, but it's well controlled
/// with lamotrigine`: what `it` is, only the adjective said): alone, it would name nothing.
pub fn orphaned(fact: &str, before: &[String]) -> bool {
    let w = words(fact);
    let opens_on_it = pronoun(&w, 0) == Some(Kind::It(Place::Subject)) && !expletive(&w, 0, Kind::It(Place::Subject));
    !before.is_empty() && opens_on_it && resolve_in(fact, before) == fact
}

/// Whether `statement` says only how the speaker is, by one adjective (`I'm epileptic`,
/// `I'm mildly dyslexic`): what a later `it` stands for it names by no phrase.
fn only_how_the_speaker_is(statement: &str) -> bool {
    let w: Vec<String> = statement
        .split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’').to_lowercase().replace('’', "'")
        })
        .collect();
    let rest = match w.first().map(String::as_str) {
        Some("i'm" | "im" | "we're") => &w[1..],
        Some("i" | "we") if w.get(1).is_some_and(|b| b == "am" || b == "are") => &w[2..],
        _ => return false,
    };
    const DEGREE: &[&str] = &["very", "really", "so", "quite", "mildly", "severely", "slightly", "pretty", "also"];
    match rest.split_last() {
        Some((last, before)) => {
            before.len() <= 2
                && before.iter().all(|b| DEGREE.contains(&b.as_str()))
                && last.chars().all(char::is_alphabetic)
        }
        None => false,
    }
}

/// `piece` kept with the piece before it, `prev` (both cut from one sentence of `text`),
/// when it is [`orphaned`]: the statement `before` ends with, then the sentence's words up
/// to the end of `piece` (`I'm epileptic, but it's well controlled with lamotrigine.`).
/// `None` when `piece` has its referent or the spans are not `text`'s.
pub fn kept_with(text: &str, prev: &split::Piece<'_>, piece: &split::Piece<'_>, before: &[String]) -> Option<String> {
    if !orphaned(&piece.text, before) || !only_how_the_speaker_is(before.last()?) {
        return None;
    }
    let end_of = |span: &str| {
        let start = (span.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        (start + span.len() <= text.len()).then_some(start + span.len())
    };
    let (from, to) = (end_of(prev.span)?, end_of(piece.span)?);
    let last = before.last()?.trim_end().trim_end_matches(['.', '!', ';', ',']);
    let rest = text.get(from..to)?.trim_end().trim_end_matches(['.', '!', ';', ',']);
    Some(format!("{last}{rest}."))
}

/// `pieces` (one turn's statements, in order) with each pronoun whose antecedent is in an
/// earlier piece replaced by it.
pub fn resolve(pieces: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(pieces.len());
    for (n, piece) in pieces.iter().enumerate() {
        out.push(resolve_in(piece, &pieces[..n]));
    }
    out
}

/// `fact` with each pronoun that has no antecedent of its own replaced by one that the
/// statements said before it (`before`) name, when one agrees.
pub fn resolve_in(fact: &str, before: &[String]) -> String {
    if before.is_empty() {
        return fact.to_string();
    }
    let w = words(fact);
    let earlier: Vec<Vec<Word>> = before.iter().rev().map(|p| words(p)).collect();
    let candidates: Vec<Vec<Candidate>> = earlier.iter().map(|p| candidates(p)).collect();
    let own = candidates_before(&w);
    let mut taken: Vec<String> = Vec::new();
    let mut out: Vec<(usize, usize, String)> = Vec::new();
    for (k, t) in w.iter().enumerate() {
        let Some(kind) = pronoun(&w, k) else { continue };
        if own(k).iter().any(|c| c.agrees(kind) && !taken.contains(&c.text)) || expletive(&w, k, kind) {
            continue;
        }
        // A chain of one pronoun (`It's a true story … It made me … Highly recommend it`):
        // the nearest piece whose subject is the same pronoun says nothing more of what it
        // stands for, and no phrase before it is taken instead.
        let chained = earlier.iter().position(|p| pronoun(p, 0).is_some_and(|o| same_pronoun(o, kind)));
        let reach = chained.unwrap_or(candidates.len());
        let chosen = candidates[..reach].iter().find_map(|cs| choose(cs, kind, &taken));
        let Some(c) = chosen else { continue };
        taken.push(c.text.clone());
        let (end, text) = replacement(&w, k, kind, c, t);
        out.push((k, end, text));
    }
    if out.is_empty() {
        return fact.to_string();
    }
    rebuild(&w, &out)
}

/// Whether two pronouns are one (`it` and `its`, `she` and `her`), wherever they stand.
fn same_pronoun(a: Kind, b: Kind) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}

/// A pronoun, by what it agrees with and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `he`, `him`, `his`.
    He(Place),
    /// `she`, `her`.
    She(Place),
    /// `it`, `its`.
    It(Place),
    /// `they`, `them`, `their`.
    They(Place),
}

/// Where a pronoun stands: a subject, an object, a possessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Subject,
    Object,
    Possessor,
}

impl Kind {
    fn place(self) -> Place {
        match self {
            Kind::He(p) | Kind::She(p) | Kind::It(p) | Kind::They(p) => p,
        }
    }
}

/// The pronoun at `k`, if the word is one.
fn pronoun(w: &[Word], k: usize) -> Option<Kind> {
    let t = w.get(k).filter(|t| !t.mark)?;
    let before_noun = w.get(k + 1).is_some_and(|n| {
        !n.mark
            && !n.is(PREPOSITIONS)
            && !n.is(AUXILIARIES)
            && !n.is(referent::JOINERS)
            && verbs::forms(&n.lower).is_none_or(|f| f.is(Form::Gerund) || f.is(Form::Participle) && !f.is(Form::Past))
    });
    Some(match t.lower.as_str() {
        "he" => Kind::He(Place::Subject),
        "him" => Kind::He(Place::Object),
        "his" => Kind::He(Place::Possessor),
        "she" => Kind::She(Place::Subject),
        "her" if before_noun => Kind::She(Place::Possessor),
        "her" => Kind::She(Place::Object),
        "it" => Kind::It(if k == 0 || subject_position(w, k) { Place::Subject } else { Place::Object }),
        "its" => Kind::It(Place::Possessor),
        "they" => Kind::They(Place::Subject),
        "them" => Kind::They(Place::Object),
        "their" => Kind::They(Place::Possessor),
        _ => return None,
    })
}

/// Whether the word at `k` stands where a subject does: before a verb or an auxiliary.
fn subject_position(w: &[Word], k: usize) -> bool {
    w.get(k + 1).is_some_and(|n| n.is(AUXILIARIES) || n.lower.starts_with('\'') || referent::verb_here(w, k + 1, false))
}

/// An `it` that names nothing: the weather, a time, what follows (`it turns out`, `it's
/// hard to …`, `it's been a long week`).
fn expletive(w: &[Word], k: usize, kind: Kind) -> bool {
    if kind != Kind::It(Place::Subject) {
        return false;
    }
    let next: Vec<&str> = w[k + 1..].iter().take(4).map(|t| t.lower.as_str()).collect();
    let weather = ["rain", "snow", "pour", "drizzle", "hail", "thunder", "freeze", "sleet"];
    let verb = next.iter().find(|n| {
        !matches!(
            **n,
            "'s" | "is"
                | "was"
                | "has"
                | "had"
                | "been"
                | "'d"
                | "will"
                | "'ll"
                | "never"
                | "still"
                | "just"
                | "always"
        )
    });
    if verb.and_then(|v| verbs::forms(v)).is_some_and(|f| {
        weather.contains(&f.lemma)
            || matches!(f.lemma, "seem" | "turn" | "look" | "appear" | "feel" | "take" | "happen")
    }) {
        return true;
    }
    let time = ["week", "day", "year", "month", "while", "night", "morning", "time", "age", "ages"];
    let been_a = next.windows(2).any(|p| matches!(p[0], "been" | "'s" | "was" | "is") && matches!(p[1], "a" | "such"));
    if been_a && next.iter().any(|n| time.contains(&n.trim_end_matches('s'))) {
        return true;
    }
    // `it's hard to …`, `it's great that …`, `it's cold`, `it's late`.
    let weatherish =
        ["cold", "hot", "warm", "sunny", "raining", "snowing", "late", "early", "freezing", "windy", "dark"];
    let be = next.first().is_some_and(|n| matches!(*n, "'s" | "is" | "was"));
    if be
        && (next.iter().skip(1).take(3).any(|n| matches!(*n, "to" | "that"))
            || next.get(1).is_some_and(|n| weatherish.contains(n)))
    {
        return true;
    }
    // `It kills me to think …`, `It's awesome what items can mean`, `It's great having …`:
    // the clause after says what `it` stands for.
    let rest: Vec<&Word> = w[k + 1..].iter().take(7).collect();
    let semi_modal = |j: usize| {
        j > 0
            && rest[j - 1]
                .is(&["going", "have", "has", "had", "need", "needs", "used", "got", "want", "wants", "ought"])
    };
    let to_verb = (0..rest.len().saturating_sub(1)).any(|j| {
        rest[j].lower == "to" && !semi_modal(j) && verbs::forms(&rest[j + 1].lower).is_some_and(|f| f.is(Form::Base))
    });
    let what = be
        && rest.get(2).is_some_and(|t| {
            t.is(&[
                "what", "how", "whether", "when", "having", "seeing", "being", "knowing", "getting", "hearing",
                "watching", "finding",
            ])
        });
    to_verb || what
}

/// A phrase a pronoun may stand for, as an earlier piece names it.
#[derive(Clone, Debug)]
struct Candidate {
    /// What the pronoun is replaced by (`the dishwasher`, `My daughter Noor`).
    text: String,
    role: Role,
    plural: bool,
    /// A bare noun whose number its form does not settle (`rooibos`, `tickets`).
    either: bool,
    /// A person (`my mum`, `Femi`) or an animal (`our cat`): a `he`/`she` may stand for it.
    animate: bool,
    /// Never an `it`: a person or a name.
    person: bool,
    gender: Option<Gender>,
    /// The speaker or the one spoken to: no third-person pronoun stands for them.
    first: bool,
}

/// Where a candidate stood in its piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Its subject.
    Subject,
    /// What its verb acts on.
    Object,
    /// What a preposition names.
    Prepositional,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gender {
    Female,
    Male,
}

impl Candidate {
    fn agrees(&self, kind: Kind) -> bool {
        if self.first {
            return false;
        }
        match kind {
            Kind::He(_) => !self.plural && self.animate && self.gender != Some(Gender::Female),
            Kind::She(_) => !self.plural && self.animate && self.gender != Some(Gender::Male),
            Kind::It(_) => (!self.plural || self.either) && !self.person,
            Kind::They(_) => self.plural || self.either,
        }
    }
}

/// The phrase a pronoun of `kind` takes among one piece's candidates (`cs`): the subject
/// first for a subject or possessive pronoun other than `it`, what the verb acts on first
/// for an object pronoun and `it`; never one another pronoun of the same piece took.
fn choose<'c>(cs: &'c [Candidate], kind: Kind, taken: &[String]) -> Option<&'c Candidate> {
    let subject_first = !matches!(kind, Kind::It(_)) && kind.place() != Place::Object;
    let order: [Role; 3] = if subject_first {
        [Role::Subject, Role::Object, Role::Prepositional]
    } else {
        [Role::Object, Role::Prepositional, Role::Subject]
    };
    order.iter().find_map(|role| {
        let mut fit = cs.iter().filter(|c| c.role == *role && c.agrees(kind) && !taken.contains(&c.text));
        let first = fit.next()?;
        // Two that agree in one place (`my sister called my mum`): which one, the words do
        // not say; for `it`, a thing named by a common noun before a name.
        let second = fit.next();
        match (kind, second) {
            (Kind::It(_), _) | (_, None) => Some(first),
            _ if first.role == Role::Subject => Some(first),
            _ => None,
        }
    })
}

/// The candidates an earlier piece offers, in order: its subject (and a coordination's
/// members), what its verb acts on, what its prepositions name.
fn candidates(w: &[Word]) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut k = 0;
    let mut seen_verb = false;
    let mut after_prep = false;
    while k < w.len() {
        let t = &w[k];
        if t.is(PREPOSITIONS) {
            after_prep = true;
            k += 1;
            continue;
        }
        // A verb (not a noun after a determiner): what follows it is what it acts on.
        let after_det =
            k > 0 && [referent::DEFINITE, referent::INDEFINITE, referent::POSSESSIVE].iter().any(|l| w[k - 1].is(l));
        let gerund = |f: &verbs::Forms| f.is(Form::Gerund) && !(k > 0 && w[k - 1].is(AUXILIARIES));
        let verb = t.is(AUXILIARIES) || (!after_det && !t.cap && verbs::forms(&t.lower).is_some_and(|f| !gerund(&f)));
        if k > 0 && verb {
            seen_verb = true;
            after_prep = false;
            k += 1;
            continue;
        }
        let pronounish = t.is(&[
            "he", "she", "it", "they", "him", "her", "them", "his", "its", "their", "this", "that", "these", "those",
            "you",
        ]);
        match noun_phrase(w, k).filter(|_| !pronounish) {
            Some((p, end)) if p.det != Det::Pronoun && end > k && standing(w, k, end, &p) => {
                let role = if !seen_verb {
                    Role::Subject
                } else if after_prep {
                    Role::Prepositional
                } else {
                    Role::Object
                };
                let text = taken_up(w, k, end, &p);
                out.push(candidate(&p, text, role));
                for m in &p.members {
                    out.push(candidate(m, m.text.clone(), role));
                }
                seen_verb |= role == Role::Subject
                    && w.get(end).is_some_and(|n| n.is(AUXILIARIES) || verbs::forms(&n.lower).is_some());
                after_prep = false;
                k = end;
            }
            _ => {
                if verbs::forms(&t.lower).is_some() && seen_verb {
                    after_prep = false;
                }
                k += 1;
            }
        }
    }
    out
}

/// Whether the phrase at `k..end` can be what a pronoun stands for: not a light noun (`a
/// lot of`, `a great way`); a bare word only as what a verb acts on (`drink rooibos`, not
/// `get creative`, `was great`) or as a subject with its verb after it.
fn standing(w: &[Word], k: usize, end: usize, p: &Phrase) -> bool {
    if LIGHT.contains(&p.head.as_str()) {
        return false;
    }
    if p.det != Det::Bare {
        return true;
    }
    // `Representing inclusivity in my art …`: an activity, not a thing `it` would name.
    if adverbial(&p.head) || verbs::forms(&w[k].lower).is_some_and(|f| f.is(Form::Gerund)) {
        return false;
    }
    let before = w[..k].iter().rev().find(|t| !t.is(&["really", "just", "also", "still", "so", "very", "too", "even"]));
    let linking = [
        "be", "get", "feel", "seem", "look", "become", "sound", "stay", "remain", "go", "turn", "keep", "make", "find",
    ];
    match before {
        None => w.get(end).is_some_and(|t| t.is(AUXILIARIES) || referent::verb_here(w, end, p.plural)),
        Some(t) if t.is(AUXILIARIES) || t.lower.starts_with('\'') => false,
        // What an activity acts on (`Representing inclusivity …`) is no thing of its own.
        Some(t) if verbs::forms(&t.lower).is_some_and(|f| f.is(Form::Gerund)) => false,
        Some(t) => verbs::forms(&t.lower).is_some_and(|f| !linking.contains(&f.lemma)),
    }
}

/// Nouns that name no thing of their own (`a lot of hope`, `a great way to relax`).
#[rustfmt::skip]
const LIGHT: &[&str] = &[
    "lot", "bit", "way", "thing", "stuff", "kind", "sort", "couple", "bunch", "ton", "part", "deal", "load",
    "number", "amount", "one", "time", "moment", "lol",
];

/// A bare word that says how or when, not what (`only`, `really`, `everywhere`).
fn adverbial(head: &str) -> bool {
    head.is_empty()
        || head.ends_with("ly")
        || super::cues::time_word(head)
        || [
            "only",
            "also",
            "still",
            "just",
            "even",
            "everywhere",
            "somewhere",
            "anywhere",
            "there",
            "here",
            "too",
            "so",
            "very",
            "much",
            "back",
            "away",
            "together",
            "ok",
            "okay",
        ]
        .contains(&head)
}

/// The candidates before word `k` of the pronoun's own piece, for a pronoun whose
/// antecedent is in its own piece (`My brother sold his flat`).
fn candidates_before(w: &[Word]) -> impl Fn(usize) -> Vec<Candidate> + '_ {
    move |k| candidates(&w[..k]).into_iter().filter(|c| !c.first).collect()
}

fn candidate(p: &Phrase, text: String, role: Role) -> Candidate {
    let head = p.head.as_str();
    let named = p.det == Det::Name && p.head.is_empty();
    let person = named || PEOPLE.contains(&head) || FEMALE.contains(&head) || MALE.contains(&head);
    let animal = ANIMALS.contains(&head);
    let gender = if FEMALE.contains(&head) {
        Some(Gender::Female)
    } else if MALE.contains(&head) {
        Some(Gender::Male)
    } else {
        None
    };
    Candidate {
        text,
        role,
        plural: p.plural || !p.members.is_empty(),
        either: p.det == Det::Bare && p.members.is_empty() && p.plural,
        animate: person || animal,
        person,
        gender,
        first: p.det == Det::Speaker,
    }
}

/// The phrase at `k..end` as a pronoun's replacement: an indefinite taken up definitely
/// (`a dishwasher` → `the dishwasher`, `three hens` → `the three hens`), with a
/// prepositional phrase that names it (`a podcast about cycling`).
fn taken_up(w: &[Word], k: usize, end: usize, p: &Phrase) -> String {
    let mut end = end;
    // `a podcast about cycling`, `a novel by Elena Ferrante`: what it is about or whose.
    if w.get(end).is_some_and(|t| t.is(&["of", "about", "by"])) {
        if let Some((q, e)) = noun_phrase(w, end + 1) {
            let said = |q: &Phrase| {
                q.name.first().or(Some(&q.head)).is_some_and(|h| !h.is_empty() && !super::cues::time_word(h))
            };
            let pointing = w[end + 1..e].iter().any(|t| t.is(&["his", "her", "its", "their", "him", "them", "it"]));
            if said(&q) && !pointing && !matches!(q.det, Det::Pronoun | Det::Speaker) {
                end = e;
            }
        }
    }
    let body = referent::text_of(&w[k..end]);
    match p.det {
        Det::Indefinite => {
            let rest = referent::text_of(&w[k + 1..end]);
            if w[k].is(&["a", "an", "some", "one"]) {
                format!("the {rest}")
            } else {
                format!("the {body}")
            }
        }
        // `three hens`, `tickets` are taken up as `the three hens`, `the tickets`; a mass
        // noun stays as said (`green tea`).
        Det::Count => format!("the {body}"),
        Det::Bare if p.plural => format!("the {body}"),
        _ => body,
    }
}

/// What replaces the pronoun at `k` (and how many words it takes): the phrase, its
/// possessive (`the cheap guitar's`), or the phrase and the verb a contraction held
/// (`she's taking` → `My mum is taking`).
fn replacement(w: &[Word], k: usize, kind: Kind, c: &Candidate, t: &Word) -> (usize, String) {
    let mut text = c.text.clone();
    if kind.place() == Place::Possessor {
        text = if text.ends_with('s') && c.plural { format!("{text}'") } else { format!("{text}'s") };
    }
    // At a piece's start the phrase opens the sentence; inside it a determiner that
    // opened the earlier piece is written small (`My grandparents` → `visit my
    // grandparents`), a name as it was.
    let first = text.split(' ').next().unwrap_or("").to_lowercase();
    let determiner =
        [referent::DEFINITE, referent::POSSESSIVE, referent::INDEFINITE].iter().any(|l| l.contains(&first.as_str()))
            || ["both", "all"].contains(&first.as_str());
    if t.cap || k == 0 {
        text = capitalised(&text);
    } else if determiner {
        text = lowered(&text);
    }
    // A contracted verb (`'s`, `'re`, `'d`, `'ll`, `'ve`) is written out after a phrase.
    if let Some(v) = w.get(k + 1).filter(|v| v.lower.starts_with('\'')) {
        let next = w[k + 2..]
            .iter()
            .find(|n| !n.is(&["even", "just", "already", "never", "always", "still", "also", "really", "not"]))
            .map(|n| n.lower.as_str())
            .unwrap_or("");
        let participle = verbs::forms(next).is_some_and(|f| f.is(Form::Participle) && !f.is(Form::Base))
            || matches!(next, "been" | "got");
        let full = match v.lower.as_str() {
            "'s" if participle => {
                if c.plural {
                    "have"
                } else {
                    "has"
                }
            }
            "'s" => {
                if c.plural {
                    "are"
                } else {
                    "is"
                }
            }
            "'re" => "are",
            "'d" if participle => "had",
            "'d" => "would",
            "'ll" => "will",
            "'ve" => "have",
            "'m" => "am",
            other => other,
        };
        return (k + 2, format!("{text} {full}"));
    }
    (k + 1, text)
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |f| f.to_uppercase().chain(chars).collect())
}

fn lowered(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |f| f.to_lowercase().chain(chars).collect())
}

/// `w` written again with each `(from, to, text)` in place of its words.
fn rebuild(w: &[Word], replaced: &[(usize, usize, String)]) -> String {
    let mut parts: Vec<Word> = Vec::new();
    let mut k = 0;
    for (from, to, text) in replaced {
        parts.extend(w[k..*from].iter().cloned());
        parts.push(Word { text: text.clone(), lower: text.to_lowercase(), cap: false, mark: false });
        k = *to;
    }
    parts.extend(w[k..].iter().cloned());
    referent::text_of(&parts)
}

/// Nouns of people, by no gender.
#[rustfmt::skip]
const PEOPLE: &[&str] = &[
    "friend", "neighbour", "neighbor", "colleague", "boss", "manager", "lodger", "flatmate", "roommate", "partner",
    "teacher", "doctor", "dentist", "landlord", "landlady", "tutor", "coach", "cousin", "kid", "child", "baby",
    "parent", "sibling", "twin", "teenager", "student", "nurse", "vet", "plumber", "builder", "client", "boss",
    "housemate", "grandparent", "grandchild", "toddler", "person", "guest", "mate", "bestie", "in-law", "spouse",
    "therapist", "hairdresser", "barber", "trainer", "mentor", "classmate", "teammate", "nanny", "childminder",
];
#[rustfmt::skip]
const FEMALE: &[&str] = &[
    "mum", "mom", "mother", "sister", "daughter", "wife", "aunt", "auntie", "gran", "grandma", "granny", "grandmother",
    "niece", "girlfriend", "woman", "girl", "lady", "stepmother", "stepmum", "stepdaughter", "goddaughter",
    "mother-in-law", "sister-in-law", "daughter-in-law", "fiancée", "nan", "nana", "queen",
];
#[rustfmt::skip]
const MALE: &[&str] = &[
    "dad", "father", "brother", "son", "husband", "uncle", "grandad", "granddad", "grandpa", "grandfather", "nephew",
    "boyfriend", "man", "boy", "guy", "stepfather", "stepdad", "stepson", "godson", "father-in-law", "brother-in-law",
    "son-in-law", "fiancé", "lad", "king",
];
#[rustfmt::skip]
const ANIMALS: &[&str] = &[
    "cat", "dog", "puppy", "kitten", "rabbit", "bunny", "hamster", "guinea", "pig", "parrot", "budgie", "horse", "pony",
    "goat", "sheep", "cow", "chicken", "hen", "duck", "tortoise", "turtle", "snake", "lizard", "gecko", "rat", "mouse",
    "ferret", "fish", "goldfish", "spaniel", "collie", "terrier", "labrador", "beagle", "poodle", "whippet", "greyhound",
    "pet", "bird", "snail", "frog", "dragon", "alpaca", "donkey", "tom",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_takes_its_antecedent_from_the_piece_before() {
        assert_eq!(
            facts("I wrote a report and I sent it to Dries on Monday."),
            ["I wrote a report.", "I sent the report to Dries on Monday."]
        );
        assert_eq!(
            facts("My son got a hamster for his birthday; he named it Nugget."),
            ["My son got a hamster for his birthday.", "My son named the hamster Nugget."]
        );
        assert_eq!(
            facts("i bought a cheap guitar and its strings are awful"),
            ["I bought a cheap guitar.", "The cheap guitar's strings are awful."]
        );
    }

    #[test]
    fn a_pronoun_with_an_antecedent_of_its_own_or_none_stays() {
        assert_eq!(
            facts("My brother sold his flat and moved into his girlfriend's place."),
            split::pieces("My brother sold his flat and moved into his girlfriend's place.")
        );
        assert_eq!(facts("It's been a long week and I'm exhausted."), ["It's been a long week.", "I'm exhausted."]);
        assert_eq!(facts("She said yes and I'm over the moon!"), ["She said yes.", "I'm over the moon."]);
    }
}
