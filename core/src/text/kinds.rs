//! Kinds of things a question may name by their general word ("What pets does Nate
//! have?", "Which European countries…", "What martial arts…") and the words that name
//! members of each ("turtle", "Spain", "karate"): hypernyms, so retrieval can find the fact
//! that says "my turtles" for a question that says "pets". The table is general English,
//! written kind by kind from what the words mean, not from any corpus.

use crate::text::textmath::normalize;

/// The member words of every kind `question` names, each once, in table order.
///
/// ```
/// use nocturne_core::text::kinds::members;
/// let words = members("What pets does Nate have?");
/// assert!(words.contains(&"turtle") && words.contains(&"dog"));
/// assert!(members("What did Nate eat?").is_empty());
/// ```
pub fn members(question: &str) -> Vec<&'static str> {
    let text = format!(" {} ", words_of(question));
    let mut out: Vec<&'static str> = Vec::new();
    for (names, words) in KINDS {
        if names.split(',').any(|name| text.contains(&format!(" {} ", name.trim()))) {
            for w in words.split_whitespace() {
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

/// `text` lowercased, its words separated by single spaces, punctuation dropped.
fn words_of(text: &str) -> String {
    let lower = normalize(text);
    let spaced: String = lower.chars().map(|c| if c.is_alphanumeric() { c } else { ' ' }).collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each kind: the names a question calls it by (comma-separated, each a word or phrase
/// as lowercased words), and its members' words.
const KINDS: &[(&str, &str)] = &[
    (
        "pet, pets, animal, animals",
        "dog dogs puppy puppies cat cats kitten kittens turtle turtles tortoise fish goldfish hamster \
         hamsters rabbit rabbits bunny parrot bird birds horse horses pony snake lizard gecko iguana \
         ferret guinea chinchilla budgie canary",
    ),
    (
        "sport, sports",
        "soccer football basketball baseball tennis golf hockey volleyball rugby cricket softball \
         badminton squash lacrosse swimming cycling running skiing snowboarding surfing skating \
         boxing wrestling climbing rowing sailing fencing gymnastics marathon triathlon",
    ),
    (
        "exercise, exercises, workout, workouts, fitness",
        "running jogging run yoga pilates weightlifting weights lifting gym cardio squats pushups \
         crossfit cycling biking swimming hiking stretching aerobics rowing spin treadmill \
         kickboxing boxing zumba dance dancing",
    ),
    (
        "martial art, martial arts",
        "karate judo taekwondo kung fu jiu jitsu aikido kickboxing muay thai boxing mma wrestling \
         krav maga capoeira",
    ),
    (
        "outdoor activity, outdoor activities, outdoors",
        "hiking hike camping camp fishing kayaking canoeing climbing biking cycling surfing skiing \
         sailing picnic gardening hunting birdwatching trail beach park mountains lake",
    ),
    (
        "hobby, hobbies, activity, activities, interest, interests, pastime, pastimes",
        "painting drawing reading writing cooking baking gardening knitting sewing photography \
         pottery dancing singing music guitar piano gaming games hiking camping fishing \
         volunteering yoga running swimming cycling crafts chess puzzles museum",
    ),
    (
        "dessert, desserts, sweets",
        "cake cakes cupcake cupcakes cookie cookies pie pies ice cream brownie brownies pudding tart \
         chocolate cheesecake donut donuts doughnut muffin muffins pastry pastries gelato sorbet \
         mousse macaron tiramisu custard candy fudge cobbler crumble parfait flan",
    ),
    (
        "child, children, kid, kids, family, families, relative, relatives",
        "son sons daughter daughters kids kid children child baby toddler husband wife mom mother \
         dad father brother brothers sister sisters sibling siblings parents grandma grandpa \
         grandmother grandfather aunt uncle cousin cousins niece nephew fam spouse",
    ),
    (
        "relationship, relationships, married, single, dating",
        "single married divorced engaged dating breakup boyfriend girlfriend partner husband wife \
         widowed wedding fiance fiancee ex",
    ),
    ("identity", "transgender trans gay lesbian bisexual queer nonbinary lgbtq woman man"),
    (
        "country, countries, abroad",
        "france spain italy germany portugal greece england britain uk ireland scotland \
         netherlands belgium switzerland austria sweden norway denmark finland iceland poland \
         czech hungary croatia turkey russia ukraine romania bulgaria serbia usa america canada \
         mexico brazil argentina chile peru colombia cuba japan china korea india thailand \
         vietnam indonesia philippines malaysia singapore australia zealand egypt morocco kenya \
         nigeria africa israel dubai emirates",
    ),
    (
        "european country, european countries, europe",
        "france spain italy germany portugal greece england britain uk ireland scotland wales \
         netherlands holland belgium switzerland austria sweden norway denmark finland iceland \
         poland czech hungary croatia slovenia slovakia romania bulgaria serbia montenegro \
         albania estonia latvia lithuania luxembourg malta cyprus monaco",
    ),
    (
        "city, cities, town, towns",
        "paris london rome berlin madrid barcelona amsterdam vienna prague lisbon dublin tokyo \
         beijing shanghai seoul bangkok sydney toronto vancouver montreal mexico york boston \
         chicago seattle miami austin denver portland atlanta dallas houston phoenix vegas \
         orleans francisco diego angeles nashville philadelphia detroit",
    ),
    (
        "us city, us cities, american city, american cities",
        "york boston chicago seattle miami austin denver portland atlanta dallas houston phoenix \
         vegas orleans francisco diego angeles nashville philadelphia detroit minneapolis \
         baltimore charlotte honolulu orlando tampa pittsburgh cleveland memphis sacramento",
    ),
    (
        "book, books, novel, novels, author, authors",
        "book books novel novels author wrote series read reading library chapter fantasy fiction \
         memoir biography",
    ),
    ("movie, movies, film, films", "movie movies film films cinema theater watched trilogy sequel"),
    ("tv, shows, series", "show shows series season episode episodes watched watching binge netflix sitcom"),
    (
        "game, games, video game, video games, gaming",
        "game games gaming console xbox playstation nintendo switch pc steam controller \
         tournament multiplayer rpg shooter",
    ),
    (
        "writing, writings, write, writer",
        "writing wrote write poem poems poetry story stories novel script scripts screenplay blog \
         journal essay article lyrics",
    ),
    (
        "instrument, instruments",
        "guitar piano violin drums ukulele flute saxophone cello bass trumpet keyboard harp clarinet",
    ),
    (
        "job, jobs, work, career, profession, occupation",
        "job work career employer company office boss colleague colleagues coworker coworkers hired \
         promotion internship business",
    ),
    (
        "injury, injuries, injured, hurt",
        "injury injured hurt sprain sprained broke broken fracture surgery hospital ankle knee \
         shoulder wrist back accident",
    ),
    (
        "collect, collects, collection, collections",
        "collection collect collecting stamps coins cards vinyl records figurines comics",
    ),
    (
        "event, events",
        "festival concert parade conference workshop fair party ceremony meetup rally march \
         fundraiser competition tournament contest exhibition show",
    ),
    (
        "cause, causes, charity, charities",
        "charity donate donated volunteer volunteering fundraiser nonprofit shelter advocacy \
         campaign awareness",
    ),
    (
        "food, foods, dish, dishes, meal, meals",
        "pizza pasta burger burgers sushi tacos salad soup steak curry noodles sandwich rice \
         chicken",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_names_its_kind_and_a_word_inside_another_word_does_not() {
        let words = members("Which European countries has Maria been to?");
        assert!(words.contains(&"spain"));
        assert!(members("What martial arts has John done?").contains(&"karate"));
        // "carpet" holds "pet"; "cityscape" holds "city": neither names a kind.
        assert!(members("Where is the carpet from?").is_empty());
        assert!(members("She drew a cityscape.").is_empty());
    }

    #[test]
    fn every_member_is_lowercase_words() {
        for (names, words) in KINDS {
            for w in names.split(',').flat_map(str::split_whitespace).chain(words.split_whitespace()) {
                assert!(w.chars().all(|c| c.is_ascii_lowercase()), "{w:?}");
            }
        }
    }
}
