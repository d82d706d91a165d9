//! What a fact says without the word a question uses: `I can't take ibuprofen` says what
//! to avoid, `I'm a sonographer` and `My husband is a firefighter` say a job, `I used to …`
//! says what no longer holds — and the word lists those are read by.

use super::words;

/// What a fact says without the word a question uses: `I can't take ibuprofen` says what
/// to `avoid`; `I'm a sonographer` says the speaker's `job`; `Before that I lived …`,
/// `I used to …` say what no longer holds (`past`).
pub(super) fn implied(text: &str) -> Vec<&'static str> {
    let ws = words(text);
    let joined = format!(" {} ", ws.join(" "));
    let has = |p: &str| joined.contains(&format!(" {p} "));
    let mut out = Vec::new();
    let refuses = ["can't", "cannot", "can", "don't", "shouldn't", "mustn't"].iter().any(|n| {
        ["take", "eat", "have", "drink", "use"]
            .iter()
            .any(|v| has(&format!("{n} {v}")) && (*n != "can" || has(&format!("can not {v}"))))
    });
    let told_off =
        ["cut out", "stay off", "stay away from", "steer clear of", "not allowed", "avoid"].iter().any(|p| has(p));
    if refuses || told_off || has("allergic") || has("intolerant") {
        out.push("avoid");
    }
    if says_job(&ws, JOB_SAID) {
        out.push("job");
    }
    let health = ws.iter().any(|w| HEALTH.contains(&w.as_str()) || CONDITIONS.contains(&w.as_str()));
    if health {
        out.push("health");
    }
    // `I take metformin for my diabetes`: a medicine, named or not.
    let takes = ws.iter().any(|w| {
        matches!(w.as_str(), "take" | "takes" | "taking" | "prescribed" | "inject" | "on" | "controlled" | "managed")
    });
    let drug = ws.windows(2).any(|p| matches!(p[0].as_str(), "take" | "takes" | "taking" | "on") && drug_name(&p[1]));
    if takes && ws.iter().any(|w| CONDITIONS.contains(&w.as_str())) || drug {
        out.push("medication");
        out.push("health");
    }
    if has("before that")
        || has("used to")
        || has("no longer")
        || has("previously")
        || has("formerly")
        || has("died")
        || has("passed away")
        || has("my late")
    {
        out.push("past");
    }
    out
}

/// The words say what someone does for work by one of `said` (`I'm a nurse`, `is a
/// firefighter`), and not a taste, a size or a race (`I'm a huge fan`).
pub(super) fn says_job(ws: &[String], said: &[&str]) -> bool {
    let joined = format!(" {} ", ws.join(" "));
    said.iter().any(|p| joined.contains(&format!(" {p} "))) && !NOT_A_JOB.iter().any(|w| ws.iter().any(|x| x == w))
}

/// How a line says what another person does: `is a carpenter`, `works as a tram driver`.
pub(super) const THIRD_JOB: &[&str] = &["is a", "is an", "works as", "was a", "was an", "works for", "works at"];

/// Words that make a line about its speaker's health: care, medicine, injury, allergy.
#[rustfmt::skip]
const HEALTH: &[&str] = &[
    "allergic", "allergy", "allergies", "intolerant", "intolerance", "medication", "medicine", "pills", "tablets",
    "prescribed", "inhaler", "insulin", "doctor", "gp", "physio", "physiotherapist", "therapist", "therapy",
    "hospital", "surgery", "operation", "injury", "injured", "broke", "broken", "sprained", "fractured", "pregnant",
    "pain", "aches", "ache", "sick", "ill", "diagnosed", "symptoms", "chemo", "blood", "glasses", "deaf", "blind",
];

/// A word shaped like a medicine's name (`sertraline`, `metformin`, `ibuprofen`,
/// `omeprazole`): the endings pharmacology names them with.
fn drug_name(w: &str) -> bool {
    const ENDINGS: &[&str] = &[
        "ine", "ol", "in", "ide", "pril", "sartan", "statin", "mab", "azole", "pam", "lam", "done", "fen", "cillin",
        "mycin", "cycline", "afil", "xone", "vir", "tide", "olone", "asone", "lin",
    ];
    w.len() >= 7 && ENDINGS.iter().any(|e| w.ends_with(e)) && crate::text::verbs::forms(w).is_none()
}

/// Medical conditions by their names, and the words that say one is had.
#[rustfmt::skip]
const CONDITIONS: &[&str] = &[
    "disease", "illness", "disorder", "syndrome", "diabetic", "diabetes", "asthma", "asthmatic", "epilepsy",
    "epileptic", "arthritis", "migraine", "migraines", "coeliac", "celiac", "adhd", "autism", "autistic",
    "depression", "anxiety", "hypertension", "eczema", "psoriasis", "crohn", "lupus", "cancer", "dyslexia",
    "dyslexic", "insomnia", "cholesterol", "thyroid", "copd", "anaemia", "anemia", "fever", "hayfever", "flu",
    "sinusitis", "tinnitus", "gout", "ibs", "endometriosis", "pcos", "fibromyalgia", "dementia", "parkinson",
];

/// How a speaker says what they do: `I'm a nurse`, `I've been a bus driver for years`, `I run
/// a bakery`, `I teach maths`.
#[rustfmt::skip]
const JOB_SAID: &[&str] = &[
    "i'm a", "i'm an", "i am a", "i am an", "im a", "im an", "i work as", "i'm the", "i've been a", "i've been an",
    "i run a", "i run an", "i run my own", "i teach", "i lecture", "i was a", "i was an", "i work for", "i work at",
    "i freelance",
];

/// Words that make those a taste, a size or a race, not work (`I'm a huge fan`, `I run a
/// half marathon`).
#[rustfmt::skip]
const NOT_A_JOB: &[&str] = &[
    "fan", "vegetarian", "vegan", "bit", "person", "huge", "big", "little", "marathon", "race", "half", "mile", "kid",
    "child", "teenager", "baby", "rescue", "mess", "nightmare", "twin",
];
