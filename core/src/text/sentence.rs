//! Cutting text into sentences: at a `.`, `!` or `?` that ends one (not after `Dr.` or an
//! initial), a `;` between words (not in `tl;dr`), a line end. The splitter ([`super::split`]) cuts each sentence further.

/// The sentences of `text`, each with its closing mark: a `.`, `!` or `?` followed by a
/// space or the end (not after an abbreviation such as `Dr.` or an initial), a `;`, a
/// line end.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|x| x.1);
        let ends = match c {
            '\n' => true,
            // `tl;dr of that email`: a `;` inside a word ends nothing.
            ';' => !(k > 0 && chars[k - 1].1.is_alphanumeric() && next.is_some_and(char::is_alphanumeric)),
            '.' | '!' | '?' | '…' => {
                next.is_none_or(|n| n.is_whitespace() || matches!(n, '"' | '\'' | ')' | '”' | '’'))
                    && !(c == '.' && abbreviation(&text[start..i]))
                    && !next.is_some_and(|n| matches!(n, '.' | '!' | '?'))
            }
            _ => false,
        };
        if ends {
            let end = i + c.len_utf8();
            if text[start..end].chars().any(char::is_alphanumeric) {
                out.push(&text[start..end]);
            }
            start = end;
        }
    }
    if text[start..].chars().any(char::is_alphanumeric) {
        out.push(&text[start..]);
    }
    out.into_iter().map(str::trim).collect()
}

/// `Dr.`, `Mrs.`, `St.`, `e.g.`, a lone initial (a capital: `J. R. R. Tolkien`; a lowercase
/// letter ends a sentence, `… about the ş.`): a full stop that ends no sentence.
fn abbreviation(before: &str) -> bool {
    let last = before.rsplit(|c: char| c.is_whitespace()).next().unwrap_or("");
    let bare = last.trim_start_matches(|c: char| !c.is_alphanumeric());
    let w = bare.to_lowercase();
    (bare.chars().count() == 1 && bare.chars().all(char::is_uppercase) && bare != "I" && bare != "A")
        || ["mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "mt"]
            .contains(&w.as_str())
}
