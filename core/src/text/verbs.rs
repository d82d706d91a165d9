//! English verb forms: a table of common verbs, irregular ones with their past and
//! participle, from which every form is derived by the spelling rules of English (`-s`/
//! `-es`/`-ies`, `-d`/`-ed`/`-ied` with a doubled final consonant, `-ing`). The splitter
//! (`text::split`) reads a clause's verbs through it; nothing here guesses a part of speech
//! from context — a word is a verb form when the table makes it one.
//!
//! ```
//! use nocturne_core::text::verbs::{forms, Form};
//! let f = forms("taught").unwrap();
//! assert!(f.is(Form::Past) && f.is(Form::Participle) && f.lemma == "teach");
//! assert!(forms("swimming").unwrap().is(Form::Gerund));
//! assert!(forms("lives").unwrap().is(Form::Third));
//! assert!(forms("Lisbon").is_none());
//! ```

use std::collections::HashMap;
use std::sync::OnceLock;

/// One grammatical form of a verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `teach`: after `I`, `we`, `they`, a modal, `to`, `do`.
    Base = 1,
    /// `teaches`: after he, she, it or one person or thing.
    Third = 2,
    /// `taught`: a finite past.
    Past = 4,
    /// `taught` after `have` or `be`.
    Participle = 8,
    /// `teaching`.
    Gerund = 16,
}

/// The forms a word can be, and of which verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forms {
    bits: u8,
    pub lemma: &'static str,
}

impl Forms {
    pub fn is(&self, form: Form) -> bool {
        self.bits & form as u8 != 0
    }

    /// The word is a finite past that is not also a participle (`grew`, `went`, `took`).
    pub fn past_only(&self) -> bool {
        self.is(Form::Past) && !self.is(Form::Participle)
    }

    /// The word is a participle that is neither a past nor a base form (`seen`, `born`,
    /// `taken`; not `run`).
    pub fn participle_only(&self) -> bool {
        self.is(Form::Participle) && !self.is(Form::Past) && !self.is(Form::Base)
    }

    /// A verb whose participle after `be` is a passive people say of their own lives
    /// (`was born … and raised …`, `has been accepted … and offered …`); after another
    /// verb's `be`, any other past is a past of its own (`was born … and moved …`).
    pub fn usually_passive(&self) -> bool {
        USUALLY_PASSIVE.contains(&self.lemma)
    }

    /// A verb whose forms are as often nouns (`work`, `dance`, `drinks`).
    pub fn also_a_noun(&self) -> bool {
        ALSO_NOUNS.contains(&self.lemma)
    }
}

impl Forms {
    /// A form guessed from a word's place for a verb the table lacks (no lemma).
    pub fn guessed(form: Form) -> Forms {
        Forms { bits: form as u8, lemma: "" }
    }

    /// A verb that takes a person and a thing, so its passive keeps an object (`was
    /// offered a scholarship`, `was given a bike`).
    pub fn takes_two_objects(&self) -> bool {
        [
            "offer", "give", "award", "grant", "pay", "send", "tell", "show", "promise", "ask", "teach", "lend",
            "allow", "deny", "hand",
        ]
        .contains(&self.lemma)
    }
}

/// The forms `word` (any case, apostrophes as typed) can be, if it is a verb of the table.
/// Words ending in `-ed` that the table lacks (`hospitalised`) count as a regular past
/// and participle.
pub fn forms(word: &str) -> Option<Forms> {
    let lower = word.to_lowercase();
    if let Some(f) = table().get(lower.as_str()) {
        return Some(*f);
    }
    // `retrain`, `re-read`, `outgrow`, `house-sit`: a prefix or a first part before a verb.
    if let Some((_, last)) = lower.rsplit_once('-') {
        if let Some(f) = table().get(last) {
            return Some(*f);
        }
    }
    for prefix in ["re", "un", "mis", "co", "pre", "over", "under", "out", "dis"] {
        if let Some(f) = lower.strip_prefix(prefix).filter(|rest| rest.len() > 3).and_then(|rest| table().get(rest)) {
            return Some(*f);
        }
    }
    let n = lower.chars().count();
    (n >= 6 && lower.ends_with("ed") && !lower.ends_with("eed") && !NOT_VERBS_IN_ED.contains(&lower.as_str()))
        .then_some(Forms { bits: Form::Past as u8 | Form::Participle as u8, lemma: "" })
}

fn table() -> &'static HashMap<String, Forms> {
    static TABLE: OnceLock<HashMap<String, Forms>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t: HashMap<String, Forms> = HashMap::new();
        let mut add = |word: String, form: Form, lemma: &'static str| {
            let e = t.entry(word).or_insert(Forms { bits: 0, lemma });
            e.bits |= form as u8;
        };
        for &(base, past, participle) in IRREGULAR {
            add(base.into(), Form::Base, base);
            add(third(base), Form::Third, base);
            add(gerund(base), Form::Gerund, base);
            for p in past.split('/') {
                add(p.into(), Form::Past, base);
            }
            for p in participle.split('/') {
                add(p.into(), Form::Participle, base);
            }
        }
        for &base in REGULAR.iter().chain(FREQUENT) {
            let spellings = if let Some(stem) = base.strip_suffix("ize") {
                vec![base.to_string(), format!("{stem}ise")]
            } else {
                vec![base.to_string()]
            };
            for b in spellings {
                let lemma = base;
                add(b.clone(), Form::Base, lemma);
                add(third(&b), Form::Third, lemma);
                add(gerund(&b), Form::Gerund, lemma);
                for p in pasts(&b) {
                    add(p.clone(), Form::Past, lemma);
                    add(p, Form::Participle, lemma);
                }
            }
        }
        t
    })
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// `teach` → `teaches`, `study` → `studies`, `live` → `lives`.
fn third(base: &str) -> String {
    let chars: Vec<char> = base.chars().collect();
    let n = chars.len();
    if ["s", "sh", "ch", "x", "z", "o"].iter().any(|e| base.ends_with(e)) {
        format!("{base}es")
    } else if n > 1 && chars[n - 1] == 'y' && !is_vowel(chars[n - 2]) {
        format!("{}ies", &base[..base.len() - 1])
    } else {
        format!("{base}s")
    }
}

/// Whether the final consonant doubles before `-ed`/`-ing` (`stop` → `stopped`): one
/// syllable ending consonant–vowel–consonant, or a verb stressed on its last syllable.
fn doubles(base: &str) -> bool {
    if DOUBLING.contains(&base) {
        return true;
    }
    let chars: Vec<char> = base.chars().collect();
    let n = chars.len();
    let groups = chars.windows(2).filter(|w| !is_vowel(w[0]) && is_vowel(w[1])).count() + is_vowel(chars[0]) as usize;
    n >= 3
        && groups == 1
        && !is_vowel(chars[n - 1])
        && !matches!(chars[n - 1], 'w' | 'x' | 'y')
        && is_vowel(chars[n - 2])
        && !is_vowel(chars[n - 3])
}

/// The regular pasts of `base` (British and American spellings where they differ).
fn pasts(base: &str) -> Vec<String> {
    let chars: Vec<char> = base.chars().collect();
    let n = chars.len();
    let mut out = Vec::new();
    if base.ends_with('e') {
        out.push(format!("{base}d"));
    } else if n > 1 && chars[n - 1] == 'y' && !is_vowel(chars[n - 2]) {
        out.push(format!("{}ied", &base[..base.len() - 1]));
    } else if doubles(base) {
        out.push(format!("{base}{}ed", chars[n - 1]));
        if chars[n - 1] == 'l' {
            out.push(format!("{base}ed"));
        }
    } else {
        out.push(format!("{base}ed"));
        if chars[n - 1] == 'l' && n > 4 {
            out.push(format!("{base}led"));
        }
    }
    out
}

/// `live` → `living`, `die` → `dying`, `stop` → `stopping`.
fn gerund(base: &str) -> String {
    let chars: Vec<char> = base.chars().collect();
    let n = chars.len();
    if let Some(stem) = base.strip_suffix("ie") {
        format!("{stem}ying")
    } else if base.ends_with('e') && !["ee", "ye", "oe"].iter().any(|e| base.ends_with(e)) && base != "be" {
        format!("{}ing", &base[..base.len() - 1])
    } else if doubles(base) {
        format!("{base}{}ing", chars[n - 1])
    } else {
        format!("{base}ing")
    }
}

/// Irregular verbs: base, past(s), participle(s) (`/` between alternatives). `be`, `have`
/// and `do` are read as auxiliaries by the splitter, but are verbs here too.
#[rustfmt::skip]
const IRREGULAR: &[(&str, &str, &str)] = &[
    ("arise", "arose", "arisen"), ("awake", "awoke", "awoken"), ("babysit", "babysat", "babysat"),
    ("bear", "bore", "born/borne"), ("beat", "beat", "beaten"), ("become", "became", "become"),
    ("begin", "began", "begun"), ("bend", "bent", "bent"), ("bet", "bet", "bet"), ("bind", "bound", "bound"), ("bite", "bit", "bitten"),
    ("bleed", "bled", "bled"), ("blow", "blew", "blown"), ("break", "broke", "broken"), ("breed", "bred", "bred"),
    ("bring", "brought", "brought"), ("broadcast", "broadcast", "broadcast"), ("build", "built", "built"),
    ("burn", "burnt/burned", "burnt/burned"), ("buy", "bought", "bought"), ("cast", "cast", "cast"), ("catch", "caught", "caught"),
    ("choose", "chose", "chosen"), ("come", "came", "come"), ("cost", "cost", "cost"), ("creep", "crept", "crept"),
    ("cut", "cut", "cut"), ("deal", "dealt", "dealt"), ("dig", "dug", "dug"), ("do", "did", "done"),
    ("draw", "drew", "drawn"), ("dream", "dreamt/dreamed", "dreamt/dreamed"), ("drink", "drank", "drunk"),
    ("drive", "drove", "driven"), ("eat", "ate", "eaten"), ("fall", "fell", "fallen"), ("feed", "fed", "fed"),
    ("feel", "felt", "felt"), ("fight", "fought", "fought"), ("find", "found", "found"), ("flee", "fled", "fled"),
    ("fly", "flew", "flown"), ("forecast", "forecast/forecasted", "forecast/forecasted"), ("forbid", "forbade", "forbidden"), ("forget", "forgot", "forgotten/forgot"),
    ("forgive", "forgave", "forgiven"), ("freeze", "froze", "frozen"), ("get", "got", "got/gotten"),
    ("give", "gave", "given"), ("go", "went", "gone"), ("grind", "ground", "ground"), ("grow", "grew", "grown"),
    ("hang", "hung", "hung"), ("have", "had", "had"), ("hear", "heard", "heard"), ("hide", "hid", "hidden"),
    ("hit", "hit", "hit"), ("hold", "held", "held"), ("hurt", "hurt", "hurt"), ("keep", "kept", "kept"),
    ("kneel", "knelt", "knelt"), ("know", "knew", "known"), ("lay", "laid", "laid"), ("lead", "led", "led"),
    ("lean", "leant/leaned", "leant/leaned"), ("leap", "leapt/leaped", "leapt/leaped"),
    ("learn", "learnt/learned", "learnt/learned"), ("leave", "left", "left"), ("lend", "lent", "lent"),
    ("let", "let", "let"), ("light", "lit", "lit"), ("lose", "lost", "lost"), ("make", "made", "made"),
    ("mean", "meant", "meant"), ("meet", "met", "met"), ("mislead", "misled", "misled"),
    ("mistake", "mistook", "mistaken"), ("misunderstand", "misunderstood", "misunderstood"),
    ("mow", "mowed", "mown/mowed"), ("outgrow", "outgrew", "outgrown"), ("overcome", "overcame", "overcome"),
    ("oversleep", "overslept", "overslept"), ("overtake", "overtook", "overtaken"), ("pay", "paid", "paid"),
    ("prove", "proved", "proven/proved"), ("put", "put", "put"), ("quit", "quit", "quit"), ("read", "read", "read"),
    ("rebuild", "rebuilt", "rebuilt"), ("redo", "redid", "redone"), ("repay", "repaid", "repaid"), ("reset", "reset", "reset"), ("rewrite", "rewrote", "rewritten"),
    ("ride", "rode", "ridden"), ("ring", "rang", "rung"), ("rise", "rose", "risen"), ("run", "ran", "run"),
    ("say", "said", "said"), ("see", "saw", "seen"), ("seek", "sought", "sought"), ("sell", "sold", "sold"),
    ("send", "sent", "sent"), ("set", "set", "set"), ("sew", "sewed", "sewn/sewed"), ("shake", "shook", "shaken"),
    ("shed", "shed", "shed"), ("shine", "shone", "shone"), ("shoot", "shot", "shot"), ("show", "showed", "shown/showed"),
    ("shrink", "shrank", "shrunk"), ("shut", "shut", "shut"), ("sing", "sang", "sung"), ("sink", "sank", "sunk"),
    ("sit", "sat", "sat"), ("sublet", "sublet", "sublet"), ("proofread", "proofread", "proofread"), ("sleep", "slept", "slept"), ("slide", "slid", "slid"), ("smell", "smelt/smelled", "smelt/smelled"),
    ("speak", "spoke", "spoken"), ("spell", "spelt/spelled", "spelt/spelled"), ("spend", "spent", "spent"),
    ("spill", "spilt/spilled", "spilt/spilled"), ("spin", "spun", "spun"), ("spit", "spat", "spat"), ("split", "split", "split"),
    ("spread", "spread", "spread"), ("stand", "stood", "stood"), ("steal", "stole", "stolen"),
    ("stick", "stuck", "stuck"), ("sting", "stung", "stung"), ("strike", "struck", "struck"),
    ("swear", "swore", "sworn"), ("sweep", "swept", "swept"), ("swim", "swam", "swum"), ("swing", "swung", "swung"),
    ("take", "took", "taken"), ("teach", "taught", "taught"), ("tear", "tore", "torn"), ("tell", "told", "told"),
    ("think", "thought", "thought"), ("throw", "threw", "thrown"), ("undergo", "underwent", "undergone"), ("undertake", "undertook", "undertaken"),
    ("understand", "understood", "understood"), ("upset", "upset", "upset"), ("wake", "woke", "woken"),
    ("wear", "wore", "worn"), ("weep", "wept", "wept"), ("win", "won", "won"), ("wind", "wound", "wound"),
    ("withdraw", "withdrew", "withdrawn"), ("write", "wrote", "written"),
];

/// Regular verbs, base forms (an `-ize` verb is also read as `-ise`).
#[rustfmt::skip]
const REGULAR: &[&str] = &[
    "accept", "access", "accompany", "achieve", "act", "adapt", "add", "adjust", "admire", "admit", "adopt", "adore",
    "advise", "afford", "agree", "aim", "allow", "announce", "annoy", "answer", "apologize", "appear", "apply",
    "appreciate", "approve", "argue", "arrange", "arrive", "ask", "attach", "attempt", "attend", "avoid", "bake",
    "balance", "ban", "bank", "base", "bathe", "battle", "beg", "behave", "believe", "belong", "blame", "block",
    "board", "boil", "book", "borrow", "bother", "bounce", "bowl", "box", "brew", "brush", "budget", "bully", "burst",
    "bury", "calculate", "call", "camp", "cancel", "care", "carry", "carve", "cause", "celebrate", "change", "charge",
    "chase", "chat", "cheat", "check", "cheer", "chew", "clean", "clear", "climb", "close", "coach", "code",
    "collect", "colour", "color", "combine", "commute", "compare", "compete", "complain", "complete", "compose",
    "concentrate", "confess", "confirm", "connect", "consider", "consult", "contact", "contain", "continue",
    "contribute", "control", "convert", "convince", "cook", "copy", "correct", "cough", "count", "cover", "crash",
    "crawl", "create", "cross", "crush", "cry", "cure", "curl", "cycle", "damage", "dance", "dare", "date", "decide",
    "declare", "decorate", "delay", "delete", "deliver", "demand", "deny", "depend", "describe", "deserve", "design",
    "desire", "destroy", "develop", "die", "disagree", "disappear", "discover", "discuss", "dislike", "divide",
    "divorce", "donate", "double", "doubt", "download", "drag", "drain", "dress", "drop", "drown", "dry", "dump",
    "earn", "edit", "educate", "embarrass", "emigrate", "employ", "empty", "encourage", "end", "enjoy", "enrol",
    "enroll", "enter", "entertain", "escape", "establish", "estimate", "examine", "exchange", "excite", "excuse",
    "exercise", "exist", "expand", "expect", "experience", "explain", "explode", "explore", "export", "express",
    "face", "fail", "faint", "fancy", "farm", "fasten", "fear", "fetch", "file", "fill", "film", "finish", "fire",
    "fish", "fit", "fix", "flash", "float", "flood", "flow", "fold", "follow", "force", "form", "freelance",
    "frighten", "fry", "garden", "gather", "gaze", "glue", "grab", "graduate", "greet", "grill", "grin", "guarantee",
    "guard", "guess", "guide", "hammer", "handle", "happen", "harm", "hate", "head", "heal", "heat", "help", "hike",
    "hire", "hop", "hope", "host", "hospitalize", "hug", "hum", "hunt", "hurry", "identify", "ignore", "imagine",
    "immigrate", "import", "impress", "improve", "include", "increase", "influence", "inform", "inherit", "inject",
    "injure", "insist", "inspect", "install", "instruct", "insure", "intend", "interest", "interrupt", "introduce",
    "invent", "invest", "invite", "iron", "jog", "join", "joke", "judge", "juggle", "jump", "kick", "kill", "kiss",
    "knit", "knock", "label", "land", "last", "laugh", "launch", "leak", "lecture", "lick", "lift", "like", "limit", "link",
    "list", "listen", "live", "load", "lock", "look", "love", "manage", "march", "mark", "marry", "match", "matter",
    "measure", "melt", "memorize", "mend", "mention", "mentor", "milk", "mind", "miss", "mix", "moan", "move",
    "multiply", "murder", "nap", "need", "nest", "nod", "note", "notice", "nurse", "obey", "object", "observe",
    "obtain", "occur", "offend", "offer", "officiate", "open", "operate", "order", "organize", "own", "pack",
    "paddle", "paint", "park", "part", "participate", "pass", "pause", "perform", "permit", "persuade", "phone",
    "pick", "place", "plan", "plant", "play", "please", "plug", "point", "poke", "polish", "pop", "possess", "post",
    "pour", "practise", "practice", "pray", "preach", "prefer", "prepare", "present", "preserve", "press", "pretend",
    "prevent", "print", "produce", "program", "promise", "promote", "protect", "provide", "publish", "pull", "pump",
    "punch", "punish", "purchase", "push", "qualify", "question", "race", "rain", "raise", "rate", "reach", "realize",
    "recall", "receive", "recognize", "recommend", "record", "recover", "recycle", "reduce", "referee", "reflect",
    "refuse", "regret", "reject", "relax", "release", "relocate", "rely", "remain", "remember", "remind", "remove",
    "renovate", "rent", "repair", "repaint", "repeat", "replace", "reply", "report", "request", "require", "rescue",
    "research", "resign", "respect", "rest", "retire", "return", "review", "revise", "rob", "rock", "roll", "row",
    "rub", "ruin", "rule", "rush", "sail", "save", "scare", "scream", "search", "serve", "settle", "shave", "shelter",
    "shop", "shout", "shower", "sign", "signal", "sketch", "skate", "ski", "skip", "slip", "smile", "smoke", "snow",
    "solve", "sound", "spare", "spark", "specialize", "spoil", "sponsor", "spot", "spray", "sprint", "squeeze",
    "stamp", "stare", "start", "stay", "steer", "step", "stir", "stop", "store", "stream", "stress", "stretch",
    "struggle", "study", "stuff", "submit", "succeed", "suffer", "suggest", "suit", "supply", "support", "suppose",
    "surf", "surprise", "surround", "survive", "suspect", "swap", "switch", "talk", "tap", "taste", "tease",
    "telephone", "tempt", "terrify", "test", "text", "thank", "tick", "tidy", "tie", "tip", "tire", "tolerate",
    "touch", "tour", "tow", "trace", "trade", "train", "transfer", "translate", "transport", "trap", "travel",
    "treat", "tremble", "trick", "trip", "trouble", "trust", "try", "tutor", "type", "undress", "unite", "unlock",
    "unpack", "update", "upgrade", "upload", "urge", "use", "vanish", "visit", "volunteer", "vote", "wait", "walk",
    "wander", "want", "warm", "warn", "wash", "waste", "watch", "water", "wave", "weigh", "welcome", "whisper",
    "whistle", "wipe", "wish", "wonder", "work", "worry", "wrap", "yawn", "yell", "zip", "breastfeed", "diagnose",
    "bike", "skydive", "snowboard", "meditate", "vape", "commit", "refer", "occupy", "attract",
    "compost", "crochet", "quilt", "ferment", "homeschool", "foster", "babble", "stutter",
    "limp", "speed", "overeat", "undercook", "kayak", "carpool", "moonlight", "track", "name", "sleepwalk",
    "shear", "pickle", "tune", "share", "click", "bless", "widow", "baptize", "invoice", "snore", "sculpt",
    "upholster", "unite", "canoe", "hitchhike", "backpack", "busk", "bartend", "waitress", "nanny", "vlog", "blog",
    "tweet", "stream", "golf", "bowl", "curl", "ski", "skydive", "scuba", "fence", "box", "wrestle", "sprint",
];

/// More regular verbs: those of English's commonest words whose past is said at least
/// one and a half times as often as their `-s` form (so `boat`, `game`, `star`, more often
/// nouns, are not here), read off word-frequency and inflection tables at development
/// time (`wordfreq`, `lemminflect`; neither ships).
#[rustfmt::skip]
const FREQUENT: &[&str] = &[
    "absorb", "abuse", "accelerate", "accommodate", "accomplish", "accuse", "acknowledge", "acquire", "activate",
    "addict", "advance", "advertise", "affect", "affiliate", "alter", "analyze", "anticipate", "assault", "assess",
    "associate", "assume", "assure", "bail", "bash", "blink", "breathe", "buzz", "capture", "cease", "cement",
    "charter", "choke", "chop", "cite", "clarify", "collapse", "communicate", "compensate", "comply", "compromise",
    "conclude", "condemn", "conduct", "confront", "confuse", "conquer", "consist", "construct", "consume", "convey",
    "cooperate", "cope", "corrupt", "crow", "curse", "dash", "decline", "decrease", "defeat", "defend", "define",
    "delight", "demonstrate", "depart", "detect", "determine", "differ", "dip", "direct", "disappoint", "disclose",
    "disgrace", "disguise", "dismiss", "dispatch", "distinguish", "distract", "distress", "distribute", "dive", "dodge",
    "dominate", "doom", "drift", "eliminate", "embrace", "emerge", "emphasize", "endure", "enforce", "engage",
    "enhance", "ensure", "erase", "evaluate", "evolve", "excel", "exclude", "execute", "exhaust", "exile", "expose",
    "extend", "extract", "facilitate", "fade", "favour", "flip", "flush", "focus", "forge", "fulfill", "gain", "gamble",
    "generate", "govern", "grant", "grasp", "hack", "hail", "halt", "harvest", "hatch", "haul", "hook", "hype",
    "illustrate", "implement", "imply", "impose", "incorporate", "initiate", "insert", "inspire", "integrate",
    "interact", "interpret", "investigate", "invoice", "involve", "justify", "kayak", "lease", "levy", "license",
    "lodge", "lure", "maintain", "manipulate", "manufacture", "merge", "mess", "mock", "modify", "mount", "mute",
    "navigate", "neglect", "negotiate", "nickname", "notify", "obscure", "oppose", "opt", "outline", "outrage", "owe",
    "pace", "pee", "peel", "perceive", "pierce", "pinch", "pitch", "plague", "pledge", "poison", "praise", "predict",
    "proceed", "prompt", "pronounce", "propose", "pursue", "react", "realise", "reckon", "recognise", "regain",
    "register", "regulate", "reinforce", "relate", "relieve", "render", "renew", "repeal", "resemble", "reside",
    "resist", "resolve", "respond", "restore", "restrict", "resume", "retain", "retreat", "retrieve", "reveal",
    "reverse", "revive", "rig", "rip", "roast", "satisfy", "schedule", "score", "screw", "sculpt", "seal", "secure",
    "seem", "seize", "separate", "shape", "shock", "shove", "slap", "slaughter", "smash", "snore", "specify", "stab",
    "stain", "stimulate", "strengthen", "subscribe", "suppress", "surrender", "sustain", "swallow", "tan", "temper",
    "tend", "testify", "threaten", "thrill", "thrive", "tilt", "toast", "torture", "toss", "transform", "transmit",
    "trigger", "trim", "turn", "twist", "underestimate", "upholster", "utilize", "utter", "veil", "verify", "violate",
    "whip", "wreck",
    // Asked of an assistant (`Summarise this`, `Nudge me on Sunday`).
    "summarize", "recap", "nudge", "ping", "purge", "disregard", "jot", "brainstorm", "shorten", "scale",
    "scratch", "rephrase", "reword", "paraphrase", "simplify", "tweak", "draft", "quiz", "rank", "sort", "alert",
    "condense", "abridge",
];

/// Two-syllable verbs that double their final consonant (`prefer` → `preferred`).
#[rustfmt::skip]
const DOUBLING: &[&str] = &[
    "admit", "cancel", "commit", "compel", "control", "enrol", "equip", "excel", "expel", "transmit", "label", "level", "model", "occur",
    "omit", "patrol", "permit", "prefer", "program", "rebel", "refer", "regret", "signal", "submit", "transfer",
    "travel", "upset", "kidnap", "worship", "quarrel", "recap", "dial", "fuel", "total", "marvel", "channel", "tunnel",
    "forget", "begin", "forbid",
];

/// Verbs said in the passive of someone's life (`raised`, `diagnosed`, `offered`).
#[rustfmt::skip]
const USUALLY_PASSIVE: &[&str] = &[
    "accept", "admit", "adopt", "arrest", "award", "baptize", "bear", "bring", "bully", "call", "diagnose",
    "discharge", "divorce", "educate", "elect", "employ", "fire", "give", "hire", "hospitalize", "injure", "invite",
    "marry", "name", "offer", "pay", "promote", "raise", "release", "sentence", "station", "train",
    "transfer", "treat", "vaccinate", "base", "locate", "select", "nominate", "recruit", "sack", "lay", "hurt",
    "bite", "draft", "deploy", "post", "assign", "appoint", "ordain", "christen", "confirm", "bless",
    "abandon", "rescue", "foster", "evacuate", "kidnap", "rob", "attack", "sue", "fine", "ban", "suspend",
    "expel", "honour", "honor", "knight", "cure", "heal", "bless", "widow", "unite", "baptise",
];

/// Verbs whose forms are common nouns too: a lone one after `and` is more likely a noun
/// (`I love music and dance`).
#[rustfmt::skip]
const ALSO_NOUNS: &[&str] = &[
    "bank", "bike", "board", "book", "box", "brush", "budget", "call", "camp", "care", "change", "chat", "cheer",
    "code", "colour", "color", "cook", "cough", "cover", "cycle", "dance", "date", "design", "dream", "dress",
    "drink", "drop", "dump", "end", "exercise", "face", "farm", "fear", "file", "film", "fish", "fix", "flood",
    "flow", "form", "garden", "guard", "guess", "guide", "hammer", "head", "heat", "help", "hike", "hope", "hug",
    "iron", "jog", "joke", "jump", "kick", "kiss", "label", "land", "laugh", "lecture", "light", "limit", "link",
    "list", "load", "lock", "look", "love", "march", "mark", "match", "milk", "mind", "nap", "need", "nest", "note",
    "nurse", "object", "order", "pack", "paint", "park", "part", "pass", "pause", "phone", "place", "plan", "plant",
    "play", "point", "post", "present", "print", "promise", "question", "race", "rain", "rate", "record", "rent",
    "repair", "report", "request", "research", "rest", "return", "review", "ride", "ring", "rock", "roll", "row",
    "rule", "run", "rush", "sail", "shop", "shout", "shower", "sign", "signal", "sketch", "sleep", "smile", "smoke",
    "snow", "sound", "spark", "speed", "spot", "spray", "sprint", "stamp", "start", "step", "stop", "store",
    "stream", "stress", "study", "stuff", "suit", "supply", "support", "surf", "swap", "swim", "switch", "talk",
    "taste", "test", "text", "tick", "tip", "tour", "trade", "train", "transfer", "travel", "treat", "trick", "trip",
    "trouble", "trust", "try", "tutor", "type", "update", "use", "visit", "vote", "wait", "walk", "wash", "waste",
    "watch", "water", "wave", "wish", "work", "worry", "wrap", "yawn", "zip", "quilt", "compost", "crochet",
    "drive", "bet", "cut", "cost", "deal", "hit", "hurt", "set", "show", "spin", "split", "spread",
    "win", "wind", "catch", "fall", "fight", "lead", "read", "rise", "sink", "tear", "wear", "break",
];

/// Words ending in `-ed` that are no verb form.
#[rustfmt::skip]
const NOT_VERBS_IN_ED: &[&str] = &[
    "hundred", "hundreds", "kindred", "sacred", "naked", "wicked", "beloved", "rugged", "ragged", "crooked",
    "wretched", "talented", "scented", "bearded", "hatred", "shared", "limited",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_forms_follow_the_spelling_rules() {
        for (word, form, lemma) in [
            ("studies", Form::Third, "study"),
            ("studied", Form::Past, "study"),
            ("stopped", Form::Participle, "stop"),
            ("living", Form::Gerund, "live"),
            ("dying", Form::Gerund, "die"),
            ("travelled", Form::Past, "travel"),
            ("traveled", Form::Past, "travel"),
            ("preferred", Form::Past, "prefer"),
            ("teaches", Form::Third, "teach"),
            ("realised", Form::Past, "realize"),
            ("visited", Form::Past, "visit"),
            ("opened", Form::Past, "open"),
        ] {
            let f = forms(word).unwrap_or_else(|| panic!("{word} is no verb form"));
            assert!(f.is(form) && f.lemma == lemma, "{word}: {f:?}");
        }
    }

    #[test]
    fn irregular_forms_tell_past_from_participle() {
        assert!(forms("grew").unwrap().past_only());
        assert!(forms("born").unwrap().participle_only());
        assert!(forms("taught").unwrap().is(Form::Past));
        assert!(!forms("went").unwrap().is(Form::Participle));
    }

    #[test]
    fn names_nouns_and_adjectives_are_not_verbs() {
        for word in ["Lisbon", "coffee", "politics", "hundred", "sacred", "seed", "bed"] {
            assert!(forms(word).is_none(), "{word}");
        }
    }
}
