//! The question, as [`super::answer`] reads it: what kind it is (the speaker's name, who
//! am I, what do you know about me, or any other), whose it asks about, the words a line
//! must meet (each with the words that mean it in general English), the kind of answer it
//! wants.

use super::{with_lemmas, words, Line, PEOPLE};
use crate::store::retrieval::roots;
use crate::text::kinds;
use crate::text::textmath::is_stopword;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Name,
    /// The speaker's surname or full name: a name of more than one word.
    FullName,
    Identity,
    AboutMe,
    Topic,
}

/// What a line must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Want {
    Any,
    /// A resolved date (`when`, `what date`).
    Date,
    /// A number (`how old`, `how many`).
    Number,
    /// A clock time (`what time`).
    Time,
    /// A name (`what's my cat called`).
    Name,
    /// How long (`how long have I lived here`): a span of time, or the date it began.
    Duration,
    /// Where (`where do I work`, `whereabouts is our flat`): a line that says where.
    Place,
}

/// What a question asks.
#[derive(Clone, Debug)]
pub(super) struct Asked {
    pub(super) kind: Kind,
    /// Whose: `None` for the speaker; the word naming the person or thing otherwise.
    pub(super) holder: Option<String>,
    /// The words that meet the holder, read once per question (each line is tested by them).
    pub(super) holder_need: Option<Need>,
    /// Words a line must meet, each with the roots that meet it.
    pub(super) needs: Vec<Need>,
    /// Words naming the kind of answer: met if a line holds them, not required.
    pub(super) heads: Vec<Need>,
    /// Names the question names: a line must hold each.
    pub(super) names: Vec<String>,
    pub(super) want: Want,
    /// The question asks about the speaker (`I`, `me`, `we`).
    pub(super) speaker: bool,
    /// It asks what is ahead (`am I doing`, `are we going`, `next`, `coming up`): a line
    /// with a date counts more.
    pub(super) ahead: bool,
    /// It asks in the present (`do I live`): a line that says it no longer holds does not
    /// answer — unless it asks whether it `still` holds.
    pub(super) present: bool,
    /// The holder is the speaker's (`my cat`, `our house`), not a name's (`Yasmin's`).
    pub(super) mine: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Need {
    word: String,
    roots: BTreeSet<String>,
    /// The word's own roots.
    own: BTreeSet<String>,
}

impl Need {
    pub(super) fn new(word: &str) -> Need {
        let mut roots = with_lemmas(word);
        roots.insert(word.to_string());
        let own = roots.clone();
        // A member that names a kind of its own brings its members: `pets` → `dog` → `greyhound`.
        // The word and its lemma (`lived` → `live`) each name their groups.
        let mut named: Vec<String> = vec![word.to_string()];
        named.extend(own.iter().filter(|l| *l != word).cloned());
        let first = named.len();
        let mut k = 0;
        while k < named.len() && k < 64 {
            let name = named[k].clone();
            k += 1;
            for group in MEANS {
                let (names, members) = group.split_once(':').unwrap_or((group, ""));
                if names.split_whitespace().any(|w| w == name) {
                    roots.extend(names.split_whitespace().chain(members.split_whitespace()).flat_map(self::roots));
                    for m in members.split_whitespace() {
                        if k <= first && !named.iter().any(|n| n == m) {
                            named.push(m.to_string());
                        }
                    }
                }
            }
        }
        // A kind's members (`text::kinds`), but not a person's family (`kids` is no husband).
        if !PEOPLE.contains(&word) {
            for member in kinds::members(word) {
                roots.extend(self::roots(member));
            }
        }
        Need { word: word.to_string(), roots, own }
    }

    /// The line holds the word itself (or what it implies: `job` for `I'm a nurse`), not
    /// only a word that means it.
    pub(super) fn exact(&self, line: &Line<'_>) -> bool {
        !self.own.is_disjoint(&line.roots)
    }

    /// `a or b`: either meets it.
    fn either(a: &str, b: &str) -> Need {
        let mut need = Need::new(a);
        let other = Need::new(b);
        need.roots.extend(other.roots);
        need.own.extend(other.own);
        need.word = format!("{a} or {b}");
        need
    }

    /// The line holds one of the words that meet it, or a longer word one of them begins
    /// (`physio` in `physiotherapist`, five letters at least: `vet` is not in `veteran`).
    pub(super) fn met(&self, line: &Line<'_>) -> bool {
        !self.roots.is_disjoint(&line.roots)
            || self.own.iter().any(|w| {
                w.chars().count() >= 5 && line.roots.iter().any(|r| r.len() > w.len() && r.starts_with(w.as_str()))
            })
    }

    /// The need names people (`siblings`, `kids`, `my sister`, `engaged`: to a fiancée).
    pub(super) fn people(&self) -> bool {
        PEOPLE.contains(&self.word.as_str()) || self.roots.iter().any(|r| PEOPLE.contains(&r.as_str()))
    }

    /// The word (`stepmother`) is one that meets it (`family`).
    pub(super) fn names(&self, word: &str) -> bool {
        self.roots.contains(word) || roots(word).iter().any(|r| self.roots.contains(r))
    }
}

/// Words that answer a question's word, general English: `names: members` — a question
/// naming one of the names is met by any member (`pets` by `dog`, not `dog` by `goldfish`);
/// a group with no `:` is words that mean the same, each met by any other.
#[rustfmt::skip]
const MEANS: &[&str] = &[
    "avoid: allergic allergy allergies intolerant react reaction hives",
    "allergy allergies allergic intolerant: swell swelling hives rash react reaction anaphylactic anaphylaxis epipen sting stings",
    "health healthy medical wellbeing ailment ailments: health",
    "condition conditions illness illnesses: health",
    "surgery surgeries operation operations: surgery operation operated removed replacement replaced transplant stitches",
    "suffer suffers suffering: health",
    "grow grew raised upbringing childhood: born raised grew hometown",
    "study studies studying student: university uni college school degree course studying studies student phd masters doctorate thesis",
    "alive: lives living",
    "baby: pregnant expecting due child",
    "disability disabilities disabled: wheelchair blind deaf crutches sighted cane hearing amputee",
    "training train: marathon race run running gym triathlon exam exams",
    "injury injuries injured hurt: broke broken sprained sprain fractured fracture torn surgery operation",
    "diet diets dietary restriction restrictions requirement requirements eat eating food: vegetarian vegan pescatarian gluten keto halal kosher lactose dairy coeliac celiac intolerant allergic",
    "milk dairy cheese cream yoghurt yogurt butter: lactose dairy",
    "from origin origins hometown: grew born raised native",
    "medicine medicines medication medications drug drugs antibiotic antibiotics painkiller painkillers meds pills tablets prescription prescriptions: pills tablets prescribed avoid medication inhaler insulin",
    "condition conditions medical: disease illness diagnosed disorder syndrome diabetic diabetes asthma asthmatic epilepsy epileptic arthritis migraine migraines coeliac celiac adhd autism autistic depression anxiety hypertension eczema psoriasis crohn's lupus",
    "flight flights fly flying flew plane planes",
    "holiday holidays vacation trip: travel travelling traveling flying fly going visiting",
    "travel travelling traveling trip: flying fly going",
    "wedding married marrying marry",
    "expire expires expiry: run runs valid",
    "like likes love loves enjoy fan prefer rather obsessed adore support follow follows favourite favorite",
    "dislike dislikes hate hates loathe loathes detest: stand",
    "favourite favorite choice: love most best go-to",
    "sibling siblings: brother brothers sister sisters twin",
    "kid kids child children: son sons daughter daughters twin twins boys girls stepson stepdaughter stepkids stepchildren baby",
    "related relation relationship relative: family",
    "due: expecting pregnant expected",
    "parents: mum mom mother dad father",
    "family relatives: stepmother stepfather stepmum stepmom stepdad stepbrother stepsister partner spouse husband wife boyfriend girlfriend fiancé fiance fiancee son sons daughter daughters kid kids child children baby mum mom mother dad father parents brother brothers sister sisters sibling siblings twin twins grandma grandmother grandad grandfather grandpa granny aunt uncle cousin niece nephew grandson granddaughter grandchildren grandkids stepson stepdaughter",
    "partner spouse: husband wife boyfriend girlfriend fiancé fiancee fiance",
    "live lives living home city town stay staying place: based moved move flat apartment house share flatmate housemate roommate bungalow cottage studio yurt farmhouse house-sitting",
    "race races: marathon triathlon run running",
    "author authors: writer novels novel books",
    "composer composers: music",
    "job work works working career profession living occupation employer: promoted employed freelance",
    "pet pets animal animals: dog dogs cat cats puppy kitten dragon lizard tortoise turtle rabbit hamster fish goldfish parrot bird hen hens chicken chickens bee bees goat goats horse pony snake guinea axolotl gecko ferret chinchilla tarantula tarantulas budgie budgies parakeet cockatiel iguana donkey donkeys alpaca alpacas llama sheep pig pigs duck ducks hedgehog",
    "dog dogs: puppy puppies beagle labrador lurcher terrier spaniel collie retriever poodle whippet greyhound dachshund pug bulldog husky corgi",
    "cat cats: kitten kittens",
    "breed breeds: beagle labrador lurcher terrier spaniel collie retriever poodle whippet greyhound dachshund pug bulldog husky corgi tabby siamese persian",
    "grandchildren grandchild grandkids grandkid: grandson grandsons granddaughter granddaughters",
    "summer: june july august",
    "winter: december january february",
    "spring: march april may",
    "autumn fall: september october november",
    "eat eating: food pasta bread gluten coeliac celiac intolerant allergic vegan vegetarian",
    "surname lastname",
    "starting start starts",
    "plans plan: going flying trip",
    "supplement supplements: vitamin vitamins omega omega-3 magnesium iron zinc probiotic probiotics capsules",
    "react reaction reacts reacting: itch itchy itches rash swell swelling hives allergic allergy sneeze",
    "skin: eczema psoriasis rash acne dermatitis rosacea",
    "back: disc discs spine spinal sciatica slipped",
    "grandparents grandparent: grandmother grandma grandad granddad grandfather grandpa nan nana granny gran nonna nonno abuela abuelo",
    "engaged engagement: fiancée fiance fiancé fiancee",
    "own owns: rent rents renting bought mortgage",
    "house home place: farmhouse cottage bungalow flat apartment studio yurt bathroom kitchen loft garden roof",
    "employ employs employer employed employment: work works job freelance self-employed",
    "author authors writer writers novelist",
    "sing sang singing: song songs karaoke",
    "watch watching watched: film films movie movies series show shows drama dramas tv documentaries documentary anime telly netflix",
    "like likes: always usually go-to",
    "check checked checking checkup check-up: test tests scan screening appointment",
];

/// Words a question is asked with, that say nothing of what it is about.
#[rustfmt::skip]
const ASKING: &[&str] = &[
    "remember", "know", "tell", "recall", "say", "said", "mention", "mentioned", "again", "anything", "something",
    "everything", "think", "happen", "please", "remind", "wonder", "wondering", "ever", "already", "exactly",
    "do", "does", "did", "done", "doing", "have", "has", "had", "get", "got", "go", "going", "be", "is", "am", "are",
    "was", "were", "can", "could", "would", "should", "will", "any", "kind", "sort", "type", "name", "names", "called",
    "call", "when", "date", "day", "time", "old", "age", "many", "much", "where", "who", "what", "which", "how", "why",
    "whats", "who's", "what's", "where's", "when's", "i", "me", "my", "we", "us", "our", "you", "your", "u", "so",
    "now", "currently", "still", "right", "yeah", "people", "next", "upcoming", "coming", "up", "this", "that",
    "alone", "take", "normal", "regular", "usual", "want", "you've", "hear", "i'd", "myself", "all", "stored",
    "memory", "hold", "or", "told", "telling", "getting", "long", "summarise", "summarize", "list",
    "according", "supposed", "meant", "keep", "anyone", "anybody", "someone", "days", "these", "nowadays", "moment",
    "usually", "spend", "spent", "what've", "where'd", "what'd", "who'd", "how'd", "when'd", "where've", "who've",
    "i've", "we've", "wheres", "whos", "whens", "every", "each", "daily", "taking", "whereabouts",
];

impl Asked {
    pub(super) fn read(question: &str) -> Asked {
        let ws = plain_words(question);
        let has = |w: &str| ws.iter().any(|x| x == w);
        let kind = kind_of(&ws);
        let holder = holder(question, &ws);
        let want = want(&ws, holder.is_some());
        let wh = ws.iter().position(|w| matches!(w.as_str(), "what" | "which" | "whats" | "what's"));
        let verb = ws
            .iter()
            .enumerate()
            .skip(wh.map_or(0, |w| w + 1))
            .find(|(_, w)| ASKING.contains(&w.as_str()))
            .map(|(k, _)| k);
        let mut needs = Vec::new();
        let mut heads = Vec::new();
        let skip = |w: &String| {
            ASKING.contains(&w.as_str()) || is_stopword(w) || roots(w).is_empty() || Some(w) == holder.as_ref()
        };
        let mut k = 0;
        while k < ws.len() {
            let w = &ws[k];
            k += 1;
            if skip(w)
                || HOLDER_ADJECTIVES.contains(&w.as_str()) && ws.get(k).is_some_and(|n| Some(n) == holder.as_ref())
            {
                continue;
            }
            // `Can I eat normal pasta?`: what is eaten names the kind of answer (a diet).
            let eaten = ws[..k - 1].iter().any(|w| matches!(w.as_str(), "eat" | "drink" | "eating" | "drinking"));
            let head = wh.is_some_and(|h| k - 1 > h) && verb.is_none_or(|v| k - 1 < v) || eaten;
            // `window or aisle`: either.
            let need = match ws.get(k..k + 2) {
                Some([or, other]) if or == "or" && !skip(other) => {
                    k += 2;
                    Need::either(w, other)
                }
                _ => Need::new(w),
            };
            // `health problems`, `any issues`: a word that only says a kind of answer.
            if head || SOFT.contains(&need.word.as_str()) {
                heads.push(need);
            } else {
                needs.push(need);
            }
        }
        // `Where am I from?`: asks for the speaker's origin.
        if has("where") && ws.last().is_some_and(|w| w == "from") {
            needs.push(Need::new("from"));
        }
        // `What's my house like?`: `like` asks for what it is, not for a taste.
        if ws.last().is_some_and(|w| w == "like")
            && holder.is_some()
            && ws.iter().any(|w| w == "what" || w == "what's" || w == "whats")
        {
            needs.retain(|n| n.word != "like");
        }
        // `What do I do?`: asks for the speaker's work.
        let last = ws.iter().rev().find(|w| !matches!(w.as_str(), "again" | "now" | "exactly"));
        if needs.is_empty() && heads.is_empty() && holder.is_none() && last.is_some_and(|w| w == "do") {
            needs.push(Need::new("job"));
        }
        let names = crate::text::textmath::proper_nouns(question).into_iter().map(|n| n.to_lowercase()).collect();
        let speaker = ws.iter().any(|w| matches!(w.as_str(), "i" | "me" | "we" | "us" | "i'm" | "myself"));
        let ahead = has("next")
            || has("coming")
            || has("upcoming")
            || ws.windows(2).any(|p| matches!(p[0].as_str(), "am" | "are") && p[1].ends_with("ing"))
            || ws.windows(3).any(|p| {
                matches!(p[0].as_str(), "am" | "are") && matches!(p[1].as_str(), "i" | "we") && p[2].ends_with("ing")
            });
        let contracted = question.to_lowercase().replace('’', "'");
        let contracted = contracted.split_whitespace().any(|w| matches!(w, "what's" | "who's" | "where's" | "how's"));
        let present = contracted
            || ws.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "do" | "does" | "am" | "is" | "are" | "now" | "what's" | "who's" | "where's" | "whats"
                )
            });
        let present = present && !has("still");
        let mine = ws.iter().any(|w| w == "my" || w == "our");
        let holder_need = holder.as_deref().map(Need::new);
        Asked { kind, holder, holder_need, needs, heads, names, want, speaker, ahead, present, mine }
    }
}

/// The kind of answer the question's words ask for (`when` a date, `how long` a span,
/// `what time` a clock time, `how old` a number, `where` a place); `holder`: it asks of
/// someone or something's (`what's my cat called` wants a name).
fn want(ws: &[String], holder: bool) -> Want {
    let has = |w: &str| ws.iter().any(|x| x == w);
    if ws.windows(2).any(|p| p[0] == "how" && p[1] == "long") {
        Want::Duration
    } else if has("when") || has("date") {
        Want::Date
    } else if ws.windows(2).any(|p| matches!(p[0].as_str(), "what" | "which" | "whats" | "what's") && p[1] == "time") {
        // `what time`, not `all the time`.
        Want::Time
    } else if has("old") || has("age") || has("many") || has("much") {
        Want::Number
    } else if holder && (has("name") || has("called")) {
        Want::Name
    } else if has("where") || has("whereabouts") || has("where's") || has("wheres") {
        Want::Place
    } else {
        Want::Any
    }
}

/// The question's words, with what chat shortens written out (`abt` → `about`) and set
/// phrases said by the word that means them (`stay away from` → `avoid`, `on my own` →
/// `alone`, `line of work` → `job`, `hand in` → `due`, `brought me up` → `raised`).
fn plain_words(question: &str) -> Vec<String> {
    const SHORT: &[(&str, &str)] = &[("abt", "about"), ("u", "you"), ("ur", "your"), ("r", "are")];
    const PHRASES: &[(&str, &str)] = &[
        ("stay away from", "avoid"),
        ("keep away from", "avoid"),
        ("steer clear of", "avoid"),
        ("on my own", "alone"),
        ("by myself", "alone"),
        ("line of work", "job"),
        ("do for work", "job"),
        ("do for a living", "job"),
        ("hand in", "due"),
        ("brought me up", "raised"),
        ("bring me up", "raised"),
        ("not keen on", "dislike"),
        ("don't like", "dislike"),
        ("do not like", "dislike"),
        ("these days", "now"),
        ("at the moment", "now"),
        ("turn a year older", "birthday"),
    ];
    let ws: Vec<String> = words(question)
        .into_iter()
        .map(|w| SHORT.iter().find(|(s, _)| *s == w).map_or(w, |(_, l)| l.to_string()))
        .collect();
    let mut out = Vec::new();
    let mut k = 0;
    'next: while k < ws.len() {
        for (phrase, word) in PHRASES {
            let p: Vec<&str> = phrase.split(' ').collect();
            if ws[k..].iter().take(p.len()).map(String::as_str).eq(p.iter().copied()) {
                out.push(word.to_string());
                k += p.len();
                continue 'next;
            }
        }
        out.push(ws[k].clone());
        k += 1;
    }
    out
}

/// Words that name only the kind of answer, wherever they stand (`Do I have any health
/// problems?`): a line need not hold them.
#[rustfmt::skip]
const SOFT: &[&str] = &[
    "problem", "problems", "issue", "issues", "concern", "concerns", "trouble", "stuff", "things", "wrong", "unusual",
    "exotic", "big", "title", "guy", "man", "woman", "person", "alive", "around", "plans", "plan", "become",
    "becoming",
];

/// Words between `my` and what it owns (`my next gig`, `my new flat`).
const HOLDER_ADJECTIVES: &[&str] =
    &["next", "new", "old", "current", "first", "last", "upcoming", "own", "usual", "fave", "favourite", "favorite"];

/// Name, who-am-I, about-me, or any other question.
fn kind_of(ws: &[String]) -> Kind {
    let text = format!(" {} ", ws.join(" "));
    let has = |p: &str| text.contains(&format!(" {p} "));
    let mine = has("my name") || has("my nickname") || has("am i called") || has("i'm called") || has("call me");
    if ["my surname", "my last name", "my full name", "my family name"].iter().any(|p| has(p)) {
        return Kind::FullName;
    }
    let own_name = |w: &str| matches!(w, "name" | "real" | "actual" | "proper" | "first" | "given");
    let mine = mine || ws.windows(3).any(|w| w[0] == "my" && w[2] == "name" && own_name(&w[1]));
    if mine && !ws.windows(3).any(|w| w[0] == "my" && w[2] == "name" && !own_name(&w[1])) {
        return Kind::Name;
    }
    if has("go by") && has("name") && (has("i") || has("me")) {
        return Kind::Name;
    }
    // `Who am I?`, `who am i again`, not `Who am I engaged to?`.
    let who_am_i = ws.windows(3).position(|w| w[0] == "who" && w[1] == "am" && w[2] == "i").is_some_and(|k| {
        // Nothing after, or a phrase that says how (`in a nutshell`, `according to your notes`).
        ws.get(k + 3).is_none_or(|w| ASKING.contains(&w.as_str()) || KNOWING.contains(&w.as_str()) || is_stopword(w))
    });
    // `Who's this you're talking to?`, `what's my story`, `sum me up`, `describe me`.
    let talking = has("who") && (has("talking to") || has("speaking to") || has("chatting with"));
    let story =
        ["my deal", "my story", "sum me up", "describe me", "introduce me", "my life story"].iter().any(|p| has(p));
    if who_am_i || talking || story || has("who i am") || has("who do you think i am") || has("who you think i am") {
        return Kind::Identity;
    }
    let about = has("about me")
        || has("about myself")
        || has("on me")
        || has("about us")
        || has("have i told you")
        || has("did i tell you")
        || has("what do you know")
        || has("what do you remember")
        || has("what you know")
        || has("what you remember");
    let rest: Vec<&String> = ws
        .iter()
        .filter(|w| {
            !ASKING.contains(&w.as_str())
                && !is_stopword(w)
                && !KNOWING.contains(&w.as_str())
                && !matches!(w.as_str(), "myself" | "all" | "got" | "hold" | "stored" | "memory")
        })
        .collect();
    if about && rest.is_empty() {
        return Kind::AboutMe;
    }
    Kind::Topic
}

/// Words that ask what is known, with no topic of their own (`What have you learned about me
/// so far?`).
const KNOWING: &[&str] = &[
    "info",
    "information",
    "details",
    "shared",
    "life",
    "point",
    "learned",
    "learnt",
    "gathered",
    "figured",
    "kept",
    "noted",
    "saved",
    "far",
    "yet",
    "basically",
    "actually",
    "exactly",
    "everything",
    "anything",
    "stuff",
    "things",
];

/// Whose the question asks about: `my sister` → `sister`; `my flight` → `flight`;
/// `Yasmin's wedding` → `yasmin`; the speaker → `None`.
fn holder(question: &str, ws: &[String]) -> Option<String> {
    if let Some(k) = ws.iter().position(|w| w == "my" || w == "our") {
        let mut n = k + 1;
        while ws.get(n).is_some_and(|w| HOLDER_ADJECTIVES.contains(&w.as_str())) && n + 1 < ws.len() {
            n += 1;
        }
        if let Some(next) = ws.get(n).filter(|n| n.as_str() != "name") {
            return Some(next.clone());
        }
    }
    question.split_whitespace().skip(1).find_map(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
        let name = w.strip_suffix("'s").or_else(|| w.strip_suffix("’s"))?;
        name.chars().next().is_some_and(char::is_uppercase).then(|| name.to_lowercase())
    })
}
