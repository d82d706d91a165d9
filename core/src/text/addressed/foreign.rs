//! An instruction to the assistant in another language: the words that name its
//! instructions, memory and passwords, and what it is told to do with them, in the other
//! languages a message may come in.

/// Words naming, in the other languages a message may come in (Spanish, German, French,
/// Italian, Dutch, Polish; accents left off), the assistant's instructions, memory,
/// passwords, what came before, and what it is told to do with them.
const FOREIGN: &[(&str, &[&str])] = &[
    (
        "ignore",
        &[
            "ignora",
            "ignorad",
            "ignoriere",
            "ignorier",
            "ignoriert",
            "ignorez",
            "ignoruj",
            "zignoruj",
            "negeer",
            "ignorare",
            "ignorate",
            "ignorar",
        ],
    ),
    (
        "forget",
        &[
            "olvida",
            "olvidad",
            "vergiss",
            "vergesst",
            "oublie",
            "oubliez",
            "dimentica",
            "dimenticate",
            "vergeet",
            "zapomnij",
        ],
    ),
    (
        "previous",
        &[
            "anterior",
            "anteriores",
            "vorherigen",
            "vorherige",
            "bisherigen",
            "precedentes",
            "precedente",
            "precedenti",
            "vorige",
            "eerdere",
            "poprzednie",
            "poprzednich",
            "wczesniejsze",
        ],
    ),
    (
        "instructions",
        &[
            "instrucciones",
            "anweisungen",
            "istruzioni",
            "instructies",
            "instrukcje",
            "instrukcji",
            "polecenia",
            "reglas",
            "regeln",
            "regles",
            "regole",
            "regels",
            "zasady",
        ],
    ),
    (
        "memory",
        &[
            "memoria",
            "speicher",
            "gedachtnis",
            "memoire",
            "geheugen",
            "pamiec",
            "erinnerungen",
            "recuerdos",
            "souvenirs",
            "ricordi",
            "herinneringen",
            "wspomnienia",
        ],
    ),
    (
        "passwords",
        &[
            "contrasena",
            "contrasenas",
            "passwort",
            "passworter",
            "kennwort",
            "kennworter",
            "passe",
            "wachtwoord",
            "wachtwoorden",
            "haslo",
            "hasla",
        ],
    ),
    (
        "reveal",
        &[
            "revela", "revelad", "muestra", "verrate", "zeige", "revele", "revelez", "montre", "divulgue", "rivela",
            "mostra", "onthul", "toon", "ujawnij", "pokaz", "wypisz", "podaj",
        ],
    ),
    (
        "user",
        &[
            "usuario",
            "usuaria",
            "benutzer",
            "benutzers",
            "nutzer",
            "nutzers",
            "utilisateur",
            "utilisatrice",
            "utente",
            "gebruiker",
            "uzytkownik",
            "uzytkownika",
        ],
    ),
    (
        "send",
        &[
            "envia", "enviad", "envie", "sende", "schicke", "schick", "envoie", "envoyez", "invia", "inviate", "stuur",
            "verstuur", "wyslij",
        ],
    ),
    ("data", &["datos", "daten", "donnees", "dati", "gegevens", "dane", "danych"]),
    ("system", &["sistema", "systeme", "systeem", "systemu", "systems"]),
    (
        "answer",
        &[
            "responde",
            "responda",
            "contesta",
            "antworte",
            "antwortet",
            "reponds",
            "repondez",
            "rispondi",
            "rispondete",
            "antwoord",
            "odpowiadaj",
            "odpowiedz",
        ],
    ),
    ("from now on", &["ahora", "jetzt", "desormais", "dorenavant", "poi", "voortaan", "teraz"]),
    (
        "delete",
        &[
            "borra",
            "elimina",
            "eliminad",
            "losche",
            "loscht",
            "entferne",
            "supprime",
            "supprimez",
            "efface",
            "effacez",
            "cancella",
            "verwijder",
            "wis",
            "usun",
            "skasuj",
        ],
    ),
];

/// Two or more of [`FOREIGN`]'s notions in a text, at least one in a word English lacks:
/// an instruction in another language.
pub(super) fn foreign(text: &str) -> Option<String> {
    let plain: String = text.chars().map(unaccented).collect::<String>().to_lowercase();
    let words: Vec<&str> = plain.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let mut found: Vec<(&str, &str)> = Vec::new();
    for w in &words {
        if let Some((notion, _)) = FOREIGN.iter().find(|(_, ws)| ws.contains(w)) {
            if !found.iter().any(|(n, _)| n == notion) {
                found.push((notion, w));
            }
        }
    }
    (found.len() >= 2).then(|| found.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" … "))
}

/// A Latin letter without its accent (`é` → `e`, `ł` → `l`, `ß` → `s`).
fn unaccented(c: char) -> char {
    const FROM: &str = "áàâäãåąéèêëęíìîïóòôöõøúùûüýÿñńçćčłśšźżžßőű";
    const TO: &str = "aaaaaaaeeeeeiiiiooooooouuuuyynncccllsszzzsou";
    FROM.chars().position(|f| f == c).and_then(|k| TO.chars().nth(k)).unwrap_or(c)
}
