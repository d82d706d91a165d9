//! Text measures: normalize, stem, content tokens, similarity, coverage and proper nouns
//! (the pair finder built on them is `text::pairs`). Deliberately small so every refusal fits in one sentence.
//!
//! ```
//! use nocturne_core::text::textmath::similarity;
//! let s = similarity("My stack is Airflow and Postgres.", "My stack is Airflow and Kubernetes.");
//! assert_eq!(format!("{s:.3}"), "0.667");
//! ```

use std::collections::BTreeSet;

/// Function words, pronouns and their contracted forms (`I'm` → `im`, `that's` → `thats`;
/// not `ill` or `well`, which are words too), the role words `user` / `assistant`, and the
/// negation contractions (`don't` → `dont`, `doesn't` → `doesnt`: a cue, never content — the
/// polarity rule checks negation, so `The user doesn't eat meat.` restates `I don't eat
/// meat.`). A token in this list never counts as content: it cannot make two facts
/// similar, and a claim may use it without finding it in its sources. Tokens are stemmed
/// before this test (`stem_token`), so the list also holds the stems of its own words (`does`
/// → `doe`, `this` → `thi`).
pub const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "aint",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "arent",
    "as",
    "assistant",
    "at",
    "be",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "cant",
    "could",
    "couldnt",
    "did",
    "didnt",
    "do",
    "doe",
    "does",
    "doesnt",
    "doing",
    "dont",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadnt",
    "has",
    "hasnt",
    "have",
    "havent",
    "having",
    "he",
    "her",
    "here",
    "heres",
    "hers",
    "herself",
    "hes",
    "him",
    "himself",
    "his",
    "how",
    "hows",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "isnt",
    "it",
    "its",
    "itself",
    "ive",
    "just",
    "me",
    "more",
    "most",
    "mustnt",
    "my",
    "myself",
    "neednt",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselve",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shant",
    "she",
    "shes",
    "should",
    "shouldnt",
    "so",
    "some",
    "such",
    "than",
    "that",
    "thats",
    "the",
    "their",
    "theirs",
    "them",
    "themselve",
    "themselves",
    "then",
    "there",
    "theres",
    "these",
    "they",
    "theyre",
    "theyve",
    "thi",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "user",
    "very",
    "was",
    "wasnt",
    "we",
    "were",
    "werent",
    "weve",
    "what",
    "whats",
    "when",
    "where",
    "wheres",
    "which",
    "while",
    "who",
    "whom",
    "whos",
    "why",
    "will",
    "with",
    "wont",
    "would",
    "wouldnt",
    "you",
    "youd",
    "youll",
    "your",
    "youre",
    "yours",
    "yourself",
    "yourselve",
    "yourselves",
    "youve",
];

/// Whether `token` (already normalized and stemmed) is a stopword.
pub fn is_stopword(token: &str) -> bool {
    STOPWORDS.binary_search(&token).is_ok()
}

/// Lowercase; delete apostrophes (`'` and `’`); every other non-alphanumeric character
/// becomes a space. `"User's box!"` → `"users box "`.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\'' || c == '’' {
            continue;
        }
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else {
            out.push(' ');
        }
    }
    out
}

/// A text's words, lowercase, without punctuation, one space apart: two texts with the
/// same wording say the same words. `"I live in Ghent."` → `"i live in ghent"`.
pub fn wording(text: &str) -> String {
    normalize(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Strip a possessive, then drop one trailing `s` unless the word ends in `ss` or `us` or
/// is at most 3 characters long. Not a real stemmer, on purpose.
pub fn stem_token(token: &str) -> String {
    let mut t = token;
    for possessive in ["'s", "’s"] {
        if let Some(stripped) = t.strip_suffix(possessive) {
            t = stripped;
            break;
        }
    }
    let keep = t.chars().count() <= 3 || t.ends_with("ss") || t.ends_with("us");
    match t.strip_suffix('s') {
        Some(stripped) if !keep => stripped.to_string(),
        _ => t.to_string(),
    }
}

/// The words of `text` as written (letters and digits, apostrophes kept inside), in order:
/// what a question or a subject is built from when it must quote the fact's own words.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
}

/// The token one written word counts as (`Lisbon's` → `lisbon`).
pub fn word_token(word: &str) -> String {
    stem_token(normalize(word).trim())
}

/// Every token of `text`, normalized and stemmed, stopwords included, in order.
pub fn tokens(text: &str) -> Vec<String> {
    normalize(text).split_whitespace().map(stem_token).collect()
}

/// The set of content tokens: stemmed tokens minus [`STOPWORDS`].
pub fn content_tokens(text: &str) -> BTreeSet<String> {
    tokens(text).into_iter().filter(|t| !is_stopword(t)).collect()
}

/// Containment similarity |A ∩ B| / min(|A|, |B|) over content-token sets; 0 when either
/// side has no content. A restatement that adds words is the same fact.
pub fn similarity(a: &str, b: &str) -> f64 {
    set_similarity(&content_tokens(a), &content_tokens(b))
}

/// [`similarity`] over token sets already computed.
pub fn set_similarity(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let smaller = a.len().min(b.len());
    if smaller == 0 {
        return 0.0;
    }
    let shared = if a.len() <= b.len() {
        a.iter().filter(|t| b.contains(*t)).count()
    } else {
        b.iter().filter(|t| a.contains(*t)).count()
    };
    shared as f64 / smaller as f64
}

/// How much of a claim its sources account for.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// Share of the claim's content tokens found in the sources' vocabulary (1.0 for a
    /// claim with no content tokens).
    pub score: f64,
    /// The claim's content tokens found in no source, in the claim's order.
    pub missing: Vec<String>,
}

impl Coverage {
    /// Whether every content token of the claim is in the sources.
    pub fn is_full(&self) -> bool {
        self.missing.is_empty()
    }
}

/// The vocabulary of some source texts: every stemmed token, stopwords kept, because a
/// rewrite may legitimately turn a function word into content.
pub fn vocabulary<'a>(sources: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    sources.into_iter().flat_map(tokens).collect()
}

/// coverage(claim, sources): share of the claim's content tokens found in the sources'
/// vocabulary, with the tokens that are missing.
pub fn coverage<'a>(claim: &str, sources: impl IntoIterator<Item = &'a str>) -> Coverage {
    coverage_in(claim, &vocabulary(sources))
}

/// [`coverage`] against a vocabulary already built with [`vocabulary`].
pub fn coverage_in(claim: &str, vocab: &BTreeSet<String>) -> Coverage {
    let mut seen = BTreeSet::new();
    let mut total = 0usize;
    let mut missing = Vec::new();
    for t in tokens(claim) {
        if is_stopword(&t) || !seen.insert(t.clone()) {
            continue;
        }
        total += 1;
        if !vocab.contains(&t) {
            missing.push(t);
        }
    }
    let score = if total == 0 { 1.0 } else { (total - missing.len()) as f64 / total as f64 };
    Coverage { score, missing }
}

/// Capitalised words that are not at a sentence start (the first word, or a word after
/// `.`, `!`, `?` or `:`), possessive stripped. The pronoun `I` and other stopwords are
/// not names. `"Marco moved to Lisbon in March, said Ana."` → {Ana, Lisbon, March}.
pub fn proper_nouns(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut sentence_start = true;
    for raw in text.split_whitespace() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
        let word = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")).unwrap_or(word);
        let capitalised = word.chars().next().is_some_and(char::is_uppercase);
        if capitalised && !sentence_start && !is_stopword(normalize(word).trim()) {
            names.insert(word.to_string());
        }
        if !word.is_empty() || raw.chars().any(|c| matches!(c, '.' | '!' | '?' | ':')) {
            let end = raw.trim_end_matches(['"', ')', '”', '’', '\'']);
            sentence_start = end.ends_with(['.', '!', '?', ':']);
        }
    }
    names
}

/// Every capitalised word anywhere in `texts`, sentence starts included: the names a text
/// may use without inventing them.
pub fn capitalised_words<'a>(texts: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for text in texts {
        for raw in text.split_whitespace() {
            let word = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
            let word = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")).unwrap_or(word);
            if word.chars().next().is_some_and(char::is_uppercase) {
                out.insert(word.to_string());
            }
        }
    }
    out
}

/// The names in `claim` that appear capitalised nowhere in `sources`.
pub fn new_proper_nouns<'a>(claim: &str, sources: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let known = capitalised_words(sources);
    proper_nouns(claim).into_iter().filter(|n| !known.contains(n)).collect()
}

/// Estimated tokens of `text`, as a small model's tokenizer cuts it: a token per four
/// bytes of words and spaces, and one for each digit and each punctuation mark (tokenizers
/// such as SmolLM2's give every digit its own token: `2026-11-30` is ten). Every prompt
/// budget and block size is counted with it.
///
/// ```
/// use nocturne_core::text::textmath::estimate_tokens;
/// assert_eq!(estimate_tokens("- [m_1234] I live in Lisbon. (2026-11-30)"), 26); // SmolLM2: 26
/// ```
pub fn estimate_tokens(text: &str) -> u64 {
    let (mut words, mut single) = (0u64, 0u64);
    for c in text.chars() {
        if c.is_ascii_digit() || !(c.is_alphanumeric() || c.is_whitespace()) {
            single += 1;
        } else {
            words += c.len_utf8() as u64;
        }
    }
    words.div_ceil(4) + single
}

/// How many of `facts` facts may hold a content token before it stops telling which of
/// them belong together: one in 25, and at least 8.
pub fn common_limit(facts: usize) -> usize {
    (facts / 25).max(8)
}

/// The content tokens held by more than [`common_limit`] of `texts`: a frame every fact of
/// a kind repeats (`photo` and `shared` where each picture is `Photo shared: a photo of
/// …`) says nothing about whether two of them are about one thing.
///
/// ```
/// use nocturne_core::text::textmath::common_tokens;
/// let mut texts = vec!["I walked my dog."; 9];
/// texts.push("I fed my cat.");
/// let common = common_tokens(texts.iter().copied());
/// assert!(common.contains("dog") && !common.contains("cat"));
/// ```
pub fn common_tokens<'a>(texts: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let mut held: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut facts = 0;
    for text in texts {
        facts += 1;
        for t in content_tokens(text) {
            *held.entry(t).or_default() += 1;
        }
    }
    let limit = common_limit(facts);
    held.into_iter().filter(|(_, n)| *n > limit).map(|(t, _)| t).collect()
}

/// Whether `score` reaches `threshold`, tolerant of float noise in the last place.
pub fn reaches(score: f64, threshold: f64) -> bool {
    score + 1e-12 >= threshold
}

/// Whether two facts contradict each other in the textmath sense: they share a *subject*
/// — at least one content token, and at least half of the smaller fact's — while each has
/// a *value* token the other lacks, and they are not duplicates (similarity below
/// `threshold`). "I live in Lisbon." / "I live in Porto.": subject {live}, values {lisbon}
/// and {porto}.
pub fn conflicts(a: &BTreeSet<String>, b: &BTreeSet<String>, threshold: f64) -> bool {
    let shared = a.intersection(b).count();
    let smaller = a.len().min(b.len());
    shared >= 1
        && 2 * shared >= smaller
        && a.len() > shared
        && b.len() > shared
        && !reaches(set_similarity(a, b), threshold)
}

/// The shared and the differing content tokens of two facts: (subject, only in a, only in b).
pub fn subject_and_values(a: &str, b: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (ta, tb) = (content_tokens(a), content_tokens(b));
    (
        ta.intersection(&tb).cloned().collect(),
        ta.difference(&tb).cloned().collect(),
        tb.difference(&ta).cloned().collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_a_negation_contraction_is_a_cue_not_an_invented_token() {
        let cov = coverage("The user doesn't eat meat.", ["I don't eat meat."]);
        assert!(cov.is_full(), "missing {:?}", cov.missing);
        for w in ["dont", "doesnt", "didnt", "isnt", "wont", "cant", "havent"] {
            assert!(is_stopword(w), "{w}");
        }
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn regression_stemmed_stopwords_count_as_content() {
        for w in STOPWORDS {
            assert!(is_stopword(&stem_token(w)), "'{w}' stems to '{}', which is not a stopword", stem_token(w));
        }
        assert!(content_tokens("The user does not like this").len() == 1, "only 'like' is content");
    }

    #[test]
    fn spec_similarity_reference_values() {
        let rows = [
            (
                "I live in Lisbon and work best in the morning.",
                "User lives in Lisbon and works best in the morning.",
                "1.000",
            ),
            ("The user keeps a bearded dragon.", "The user keeps a bearded dragon called Saffron.", "1.000"),
            (
                "I live in Lisbon and work best in the morning.",
                "I live in Porto and work best in the morning.",
                "0.800",
            ),
            ("My stack is Airflow and Postgres.", "My stack is Airflow and Kubernetes.", "0.667"),
        ];
        for (a, b, want) in rows {
            assert_eq!(format!("{:.3}", similarity(a, b)), want, "{a} / {b}");
        }
    }

    #[test]
    fn spec_coverage_reference_values() {
        let sources = ["I installed postgres 16 on the backup box.", "The kitchen leaks and the kettle is broken."];
        let c = coverage("The user installed postgres 16 on the backup box near the kettle.", sources);
        assert_eq!(format!("{:.3}", c.score), "0.857");
        assert_eq!(c.missing, ["near"]);
        let c = coverage("The user migrated to Kubernetes on the backup box.", sources);
        assert_eq!(format!("{:.3}", c.score), "0.500");
        assert_eq!(c.missing, ["migrated", "kubernete"]);
    }

    #[test]
    fn stem_token_rules() {
        for (word, stem) in [
            ("lisbon's", "lisbon"),
            ("camps", "camp"),
            ("business", "business"),
            ("gas", "gas"),
            ("kubernetes", "kubernete"),
            ("campus", "campus"),
        ] {
            assert_eq!(stem_token(word), stem);
        }
    }

    #[test]
    fn regression_apostrophe_does_not_make_a_phantom_token() {
        assert_eq!(normalize("user's"), "users");
        assert!(!content_tokens("The user's kettle").contains("s"));
    }

    #[test]
    fn proper_nouns_skip_sentence_starts() {
        let names: Vec<_> = proper_nouns("Marco moved to Lisbon in March, said Ana.").into_iter().collect();
        assert_eq!(names, ["Ana", "Lisbon", "March"]);
        assert!(proper_nouns("Lisbon is nice. The weather is warm.").is_empty());
        assert!(proper_nouns("Yesterday I went out").is_empty(), "the pronoun I is not a name");
        assert_eq!(
            proper_nouns("user: Saffron is my dragon, said Ana's friend.").into_iter().collect::<Vec<_>>(),
            ["Ana"]
        );
    }

    #[test]
    fn conflicts_share_a_subject_and_differ_in_value() {
        let t = |s: &str| content_tokens(s);
        assert!(conflicts(&t("I live in Lisbon."), &t("I live in Porto."), 0.9));
        assert!(conflicts(&t("My dog is called Rex."), &t("My dog is called Bolt."), 0.9));
        assert!(!conflicts(&t("I live in Lisbon."), &t("User lives in Lisbon."), 0.9), "a duplicate is not a conflict");
        assert!(!conflicts(&t("I keep a bearded dragon."), &t("The cat next door is called Miso."), 0.9));
        assert!(
            !conflicts(
                &t("I installed postgres 16 on the backup box."),
                &t("The backup box sits near the router."),
                0.9
            ),
            "two of five tokens shared is not the same subject"
        );
    }
}
