//! A labelled corpus for `text::worth`: statements in four registers (chat between two
//! people, email-like, terse notes, French chat), each labelled as worth remembering or
//! as chatter. Written for this purpose, not taken from any benchmark. `score` is what
//! `nocturne bench-worth` prints and the tests (native and in Chromium) hold to target:
//! at least 90% of the chatter refused, at most 3% of the statements worth keeping refused.

use crate::text::worth::informative;

/// How a statement is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Register {
    Chat,
    Email,
    Note,
    French,
}

/// `true`: worth remembering.
pub type Keep = bool;

/// The corpus: (statement, worth remembering, register).
pub const STATEMENTS: &[(&str, Keep, Register)] = &[
    // Chat: chatter.
    ("Hey! How's it going?", false, Register::Chat),
    ("Hi Sam!", false, Register::Chat),
    ("Hello there, Priya.", false, Register::Chat),
    ("Good morning!", false, Register::Chat),
    ("Morning, Jo!", false, Register::Chat),
    ("Hey Tom, good to see you!", false, Register::Chat),
    ("Good to hear from you too.", false, Register::Chat),
    ("Thanks!", false, Register::Chat),
    ("Thank you so much, Lena!", false, Register::Chat),
    ("Thanks a lot for the help.", false, Register::Chat),
    ("Cheers, mate.", false, Register::Chat),
    ("Much appreciated!", false, Register::Chat),
    ("Bye!", false, Register::Chat),
    ("See you later!", false, Register::Chat),
    ("Talk to you soon!", false, Register::Chat),
    ("Take care, Ravi.", false, Register::Chat),
    ("Good night!", false, Register::Chat),
    ("Catch you later.", false, Register::Chat),
    ("Okay.", false, Register::Chat),
    ("Yes, Caroline!", false, Register::Chat),
    ("Yeah, totally.", false, Register::Chat),
    ("Sure thing.", false, Register::Chat),
    ("Got it.", false, Register::Chat),
    ("Right, makes sense.", false, Register::Chat),
    ("Totally agree, Mel.", false, Register::Chat),
    ("Same here!", false, Register::Chat),
    ("Me too!", false, Register::Chat),
    ("You too!", false, Register::Chat),
    ("Exactly!", false, Register::Chat),
    ("Haha, yes!", false, Register::Chat),
    ("Wow!", false, Register::Chat),
    ("Oh wow, Jamie!", false, Register::Chat),
    ("Aww, that's so sweet.", false, Register::Chat),
    ("That's awesome!", false, Register::Chat),
    ("That is really cool.", false, Register::Chat),
    ("That sounds amazing!", false, Register::Chat),
    ("Sounds like a plan.", false, Register::Chat),
    ("Sounds fun!", false, Register::Chat),
    ("Looks amazing!", false, Register::Chat),
    ("Wow, that photo is great!", false, Register::Chat),
    ("Love the red and blue.", false, Register::Chat),
    ("Love that painting!", false, Register::Chat),
    ("What a lovely idea!", false, Register::Chat),
    ("How exciting!", false, Register::Chat),
    ("So cool you found such a helpful group.", false, Register::Chat),
    ("Must have been traumatizing for you guys.", false, Register::Chat),
    ("Must have been hard for you.", false, Register::Chat),
    ("You'd be a great counselor!", false, Register::Chat),
    ("You've got guts.", false, Register::Chat),
    ("You are so talented!", false, Register::Chat),
    ("Your kids sound adorable.", false, Register::Chat),
    ("Your garden looks beautiful.", false, Register::Chat),
    ("You must be so proud.", false, Register::Chat),
    ("You deserve it!", false, Register::Chat),
    ("Your empathy will really help the people you work with.", false, Register::Chat),
    ("I'd love to check them out.", false, Register::Chat),
    ("I'd love to see it!", false, Register::Chat),
    ("I can't wait to see it.", false, Register::Chat),
    ("I'm so happy for you!", false, Register::Chat),
    ("I'm sorry to hear that.", false, Register::Chat),
    ("Glad to hear it.", false, Register::Chat),
    ("Sorry to hear about that.", false, Register::Chat),
    ("Enjoy your day!", false, Register::Chat),
    ("Have a great weekend!", false, Register::Chat),
    ("Have fun!", false, Register::Chat),
    ("Good luck with the interview!", false, Register::Chat),
    ("Congrats, Ana!", false, Register::Chat),
    ("Congratulations on the new job!", false, Register::Chat),
    ("Keep it up!", false, Register::Chat),
    ("Great job!", false, Register::Chat),
    ("Well done, you two.", false, Register::Chat),
    ("Nice!", false, Register::Chat),
    ("That's really sweet of you.", false, Register::Chat),
    ("It's special.", false, Register::Chat),
    ("That must have been scary.", false, Register::Chat),
    ("This is so inspiring!", false, Register::Chat),
    ("Those look delicious.", false, Register::Chat),
    ("They look so happy!", false, Register::Chat),
    ("No worries!", false, Register::Chat),
    ("No problem at all.", false, Register::Chat),
    ("Anytime!", false, Register::Chat),
    ("By the way, take a look at this.", false, Register::Chat),
    ("Check this out!", false, Register::Chat),
    ("Hope you have a good one.", false, Register::Chat),
    ("Hope you're doing well.", false, Register::Chat),
    ("Good for you!", false, Register::Chat),
    ("I bet it was!", false, Register::Chat),
    ("I know, right?!", false, Register::Chat),
    ("I agree.", false, Register::Chat),
    ("I see.", false, Register::Chat),
    ("Lol same.", false, Register::Chat),
    ("Oh no!", false, Register::Chat),
    ("Ugh, that's rough.", false, Register::Chat),
    ("Yay!", false, Register::Chat),
    ("Awesome, thanks Mel!", false, Register::Chat),
    ("Thanks, that means a lot.", false, Register::Chat),
    ("You're welcome!", false, Register::Chat),
    ("My pleasure.", false, Register::Chat),
    // Chat: worth keeping.
    ("I love camping trips with my family.", true, Register::Chat),
    ("I went to a support group yesterday.", true, Register::Chat),
    ("I painted that lake sunrise last year.", true, Register::Chat),
    ("I'm keen on counseling or working in mental health.", true, Register::Chat),
    ("I'm swamped with the kids and work.", true, Register::Chat),
    ("I'm off to go swimming with the kids.", true, Register::Chat),
    ("My daughter starts school in September.", true, Register::Chat),
    ("We adopted a rescue dog named Pepper.", true, Register::Chat),
    ("I moved here from Sweden four years ago.", true, Register::Chat),
    ("My sister lives in Ghent.", true, Register::Chat),
    ("I work as a nurse at the city hospital.", true, Register::Chat),
    ("I don't eat meat.", true, Register::Chat),
    ("I'm allergic to peanuts.", true, Register::Chat),
    ("I signed up for a pottery class.", true, Register::Chat),
    ("Pottery helps me relax after work.", true, Register::Chat),
    ("I ran a charity race last Sunday.", true, Register::Chat),
    ("We're going camping in the mountains in June.", true, Register::Chat),
    ("My kids are obsessed with dinosaurs.", true, Register::Chat),
    ("I've been reading a lot of science fiction lately.", true, Register::Chat),
    ("My favourite book is Charlotte's Web.", true, Register::Chat),
    ("I lost my job at the bank yesterday.", true, Register::Chat),
    ("I'm starting my own dance studio.", true, Register::Chat),
    ("Contemporary is my favourite dance style.", true, Register::Chat),
    ("I've been dancing since I was a kid.", true, Register::Chat),
    ("My grandma gave me this necklace when I was ten.", true, Register::Chat),
    ("The support group has made me feel accepted.", true, Register::Chat),
    ("The transgender stories at the meeting were so inspiring.", true, Register::Chat),
    ("I'm researching adoption agencies.", true, Register::Chat),
    ("I want to become a counselor.", true, Register::Chat),
    ("I play the violin in a community orchestra.", true, Register::Chat),
    ("Painting is my way to unwind.", true, Register::Chat),
    ("I hate driving at night.", true, Register::Chat),
    ("I prefer tea over coffee.", true, Register::Chat),
    ("My husband and I celebrated our anniversary in Rome.", true, Register::Chat),
    ("I just got back from a trip to Japan.", true, Register::Chat),
    ("Our cat Miso had kittens last week.", true, Register::Chat),
    ("I'm training for a marathon in October.", true, Register::Chat),
    ("I'm so happy with my new apartment.", true, Register::Chat),
    ("I was so nervous before my speech at the school.", true, Register::Chat),
    ("I gave a talk about my journey at a local school.", true, Register::Chat),
    ("My friends threw me a surprise party.", true, Register::Chat),
    ("I collect classic children's books.", true, Register::Chat),
    ("I've known my best friend for ten years.", true, Register::Chat),
    ("My son broke his arm playing football.", true, Register::Chat),
    ("I finally finished my thesis.", true, Register::Chat),
    ("We bought a house near the river.", true, Register::Chat),
    ("I'm learning to play the guitar.", true, Register::Chat),
    ("The concert last night was amazing.", true, Register::Chat),
    ("The hike up the volcano took six hours.", true, Register::Chat),
    ("I volunteer at the animal shelter on weekends.", true, Register::Chat),
    ("My mom is visiting next month.", true, Register::Chat),
    ("I'm thinking of going back to school for psychology.", true, Register::Chat),
    ("Yeah, I painted it for my mom's birthday.", true, Register::Chat),
    ("Thanks, I made it in my pottery class.", true, Register::Chat),
    ("Wow, I never thought I'd run a marathon.", true, Register::Chat),
    ("Haha, my dog does that too.", true, Register::Chat),
    ("Oh, I used to live in Porto.", true, Register::Chat),
    ("You know, I grew up on a farm.", true, Register::Chat),
    ("Honestly, my job is really stressful right now.", true, Register::Chat),
    ("It was my first time at a pride parade.", true, Register::Chat),
    ("That was the summer I learned to surf.", true, Register::Chat),
    ("Dancing is my passion and my escape.", true, Register::Chat),
    ("Jon lost his job as a banker.", true, Register::Chat),
    ("Gina opened an online clothing store.", true, Register::Chat),
    ("My brother is getting married in May.", true, Register::Chat),
    ("We had a picnic at the lake with my cousins.", true, Register::Chat),
    ("I switched to working nights.", true, Register::Chat),
    ("I no longer drink coffee.", true, Register::Chat),
    ("My locker code is 4417.", true, Register::Chat),
    ("Love hiking in the Alps.", true, Register::Chat),
    ("Loved the concert last night.", true, Register::Chat),
    // Email-like: chatter.
    ("Hi team,", false, Register::Email),
    ("Dear Ms. Novak,", false, Register::Email),
    ("I hope this email finds you well.", false, Register::Email),
    ("Thanks for your quick reply.", false, Register::Email),
    ("Thank you for your patience.", false, Register::Email),
    ("Please let me know if you have any questions.", false, Register::Email),
    ("Looking forward to hearing from you.", false, Register::Email),
    ("Best regards,", false, Register::Email),
    ("Kind regards, Ana", false, Register::Email),
    ("Cheers,", false, Register::Email),
    ("Hope this helps!", false, Register::Email),
    ("Sorry for the late reply.", false, Register::Email),
    ("Great, thanks for confirming.", false, Register::Email),
    ("Sounds good to me.", false, Register::Email),
    ("Noted, thank you.", false, Register::Email),
    ("Have a nice weekend, everyone.", false, Register::Email),
    ("Happy Friday!", false, Register::Email),
    ("Many thanks in advance.", false, Register::Email),
    ("Just following up on this.", false, Register::Email),
    ("Great work, everyone!", false, Register::Email),
    // Email-like: worth keeping.
    ("I will be out of office from 3 to 10 June.", true, Register::Email),
    ("Our budget meeting moved to Thursday at 10.", true, Register::Email),
    ("The quarterly report is due on 14 March.", true, Register::Email),
    ("My new phone number is 555 0199.", true, Register::Email),
    ("I have joined the design team as a senior engineer.", true, Register::Email),
    ("We signed the contract with Northwind last week.", true, Register::Email),
    ("My manager is now Priya Shah.", true, Register::Email),
    ("The office will be closed on Monday for the holiday.", true, Register::Email),
    ("I am attending the conference in Lyon in April.", true, Register::Email),
    ("The invoice was paid on 2 May.", true, Register::Email),
    ("I prefer meetings in the morning.", true, Register::Email),
    ("Our team is migrating the database to Postgres.", true, Register::Email),
    ("I am based in the Lisbon office.", true, Register::Email),
    ("The server outage lasted three hours.", true, Register::Email),
    ("I'll review the thesis by Friday.", true, Register::Email),
    ("Thanks, I have booked the flights to Oslo.", true, Register::Email),
    ("The new hire starts on the first of the month.", true, Register::Email),
    ("I am allergic to shellfish, so no seafood at the dinner please.", true, Register::Email),
    ("My address has changed to 12 Harbour Street.", true, Register::Email),
    ("We decided to postpone the launch to autumn.", true, Register::Email),
    // Terse notes: chatter.
    ("ok", false, Register::Note),
    ("thx", false, Register::Note),
    ("ty!", false, Register::Note),
    ("lol", false, Register::Note),
    ("nice!", false, Register::Note),
    ("brb", false, Register::Note),
    ("ttyl", false, Register::Note),
    ("meh", false, Register::Note),
    ("haha same", false, Register::Note),
    ("yep", false, Register::Note),
    ("np", false, Register::Note),
    ("k thx bye", false, Register::Note),
    ("omg yes", false, Register::Note),
    ("cool cool", false, Register::Note),
    ("gn", false, Register::Note),
    ("gm!", false, Register::Note),
    ("sweet", false, Register::Note),
    ("awesome thx", false, Register::Note),
    ("sounds good", false, Register::Note),
    ("love it", false, Register::Note),
    // Terse notes: worth keeping.
    ("dentist tue 3pm", true, Register::Note),
    ("gym 6am daily", true, Register::Note),
    ("allergic to peanuts", true, Register::Note),
    ("bought new bike", true, Register::Note),
    ("call mom sunday", true, Register::Note),
    ("wifi password hunter2", true, Register::Note),
    ("flight to Oslo 12 May", true, Register::Note),
    ("vegetarian since 2019", true, Register::Note),
    ("moved to Porto", true, Register::Note),
    ("kid's school play friday", true, Register::Note),
    ("pay rent by the 1st", true, Register::Note),
    ("started piano lessons", true, Register::Note),
    ("car in for service monday", true, Register::Note),
    ("book club reads Dune next", true, Register::Note),
    ("renew passport before june", true, Register::Note),
    ("prefers window seats", true, Register::Note),
    ("Love hiking.", true, Register::Note),
    ("new job at Acme", true, Register::Note),
    ("locker 4417", true, Register::Note),
    ("sister's birthday 3 Oct", true, Register::Note),
    // French: chatter.
    ("Salut !", false, Register::French),
    ("Bonjour Marie !", false, Register::French),
    ("Coucou, ça va ?", false, Register::French),
    ("Merci beaucoup !", false, Register::French),
    ("Merci, Paul.", false, Register::French),
    ("À bientôt !", false, Register::French),
    ("Bonne journée !", false, Register::French),
    ("Bonne soirée à toi.", false, Register::French),
    ("Au revoir !", false, Register::French),
    ("D'accord.", false, Register::French),
    ("Oui, Caroline !", false, Register::French),
    ("Ouais, carrément.", false, Register::French),
    ("C'est super !", false, Register::French),
    ("C'est vraiment génial.", false, Register::French),
    ("Trop bien !", false, Register::French),
    ("Ça a l'air génial !", false, Register::French),
    ("Félicitations !", false, Register::French),
    ("Bon courage !", false, Register::French),
    ("Tu serais une excellente conseillère !", false, Register::French),
    ("Tu dois être tellement fière.", false, Register::French),
    ("Ton jardin est magnifique.", false, Register::French),
    ("J'adore cette photo !", false, Register::French),
    ("Je suis tellement contente pour toi !", false, Register::French),
    ("Désolé d'entendre ça.", false, Register::French),
    ("Moi aussi !", false, Register::French),
    ("Pareil pour moi.", false, Register::French),
    ("Bonne chance pour l'entretien !", false, Register::French),
    ("Profite bien de ton week-end !", false, Register::French),
    ("Ouah, c'est magnifique !", false, Register::French),
    ("Bravo, Léa !", false, Register::French),
    // French: worth keeping.
    ("J'habite à Gand depuis trois ans.", true, Register::French),
    ("Je ne mange pas de viande.", true, Register::French),
    ("Mon code de casier est 4417.", true, Register::French),
    ("J'adore le camping avec ma famille.", true, Register::French),
    ("Je travaille comme infirmière à l'hôpital.", true, Register::French),
    ("Ma sœur se marie en mai.", true, Register::French),
    ("Nous avons adopté un chien qui s'appelle Pepper.", true, Register::French),
    ("J'ai perdu mon travail à la banque hier.", true, Register::French),
    ("Je me suis inscrite à un cours de poterie.", true, Register::French),
    ("Mon fils commence l'école en septembre.", true, Register::French),
    ("Je suis allergique aux arachides.", true, Register::French),
    ("Je cours un marathon en octobre.", true, Register::French),
    ("Mes enfants adorent les dinosaures.", true, Register::French),
    ("Je préfère le thé au café.", true, Register::French),
    ("Nous sommes allés au musée samedi dernier.", true, Register::French),
    ("J'ai peint ce lever de soleil l'année dernière.", true, Register::French),
    ("Ma grand-mère m'a offert ce collier.", true, Register::French),
    ("Je fais du bénévolat au refuge le week-end.", true, Register::French),
    ("Merci, je l'ai fait à mon cours de poterie.", true, Register::French),
    ("Paul a ouvert une boutique en ligne.", true, Register::French),
    // Added after the rule was written, as a check that it was not fitted to the rest.
    ("Hiya, long time no see!", false, Register::Chat),
    ("That made my day, thank you.", false, Register::Chat),
    ("Oh that's hilarious.", false, Register::Chat),
    ("What a beautiful view!", false, Register::Chat),
    ("You look great in that dress.", false, Register::Chat),
    ("Can't wait!", false, Register::Chat),
    ("Fingers crossed for you.", false, Register::Chat),
    ("I totally get it.", false, Register::Chat),
    ("Happy birthday, Sam!", false, Register::Chat),
    ("Speak soon, x", false, Register::Chat),
    ("Thanks again for everything.", false, Register::Email),
    ("Apologies for the confusion.", false, Register::Email),
    ("All the best,", false, Register::Email),
    ("Welcome aboard, Tariq!", false, Register::Email),
    ("haha nice one", false, Register::Note),
    ("kk", false, Register::Note),
    ("Merci pour tout !", false, Register::French),
    ("Trop mignon ton chat !", false, Register::French),
    ("Bises !", false, Register::French),
    ("J'ai hâte de voir ça !", false, Register::French),
    ("My knee has been hurting since the fall.", true, Register::Chat),
    ("We're expecting our second child in March.", true, Register::Chat),
    ("I quit smoking two years ago.", true, Register::Chat),
    ("Our neighbour Ahmed fixed the fence.", true, Register::Chat),
    ("I can't stand horror movies.", true, Register::Chat),
    ("My car broke down on the motorway.", true, Register::Chat),
    ("Please note my new email is ana@example.org.", true, Register::Email),
    ("The client prefers calls on Tuesdays.", true, Register::Email),
    ("train 7:42 platform 3", true, Register::Note),
    ("Mon vol pour Lisbonne part à 9 h.", true, Register::French),
    ("Je suis végétarienne depuis 2019.", true, Register::French),
];

/// How the rule did on the corpus.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Score {
    /// Chatter statements, and how many the rule refused.
    pub chatter: (usize, usize),
    /// Statements worth keeping, and how many the rule refused.
    pub keepers: (usize, usize),
    /// What it got wrong, for reading.
    pub misses: Vec<String>,
}

impl Score {
    /// At least 90% of the chatter refused and at most 3% of the keepers.
    pub fn meets_targets(&self) -> bool {
        let share = |(n, r): (usize, usize)| r as f64 / n.max(1) as f64;
        self.chatter.0 > 0 && share(self.chatter) >= 0.90 && share(self.keepers) <= 0.03
    }

    /// `worth: statements=N chatterRefused=… keepersRefused=…`.
    pub fn line(&self) -> String {
        let share = |(n, r): (usize, usize)| format!("{r}/{n} ({:.1}%)", 100.0 * r as f64 / n.max(1) as f64);
        format!(
            "worth: statements={} chatterRefused={} keepersRefused={}",
            self.chatter.0 + self.keepers.0,
            share(self.chatter),
            share(self.keepers)
        )
    }
}

/// Runs `statements` through `text::worth::informative`.
pub fn score(statements: &[(&str, Keep, Register)]) -> Score {
    let mut s = Score::default();
    for (text, keep, register) in statements {
        let verdict = informative(text);
        let slot = if *keep { &mut s.keepers } else { &mut s.chatter };
        slot.0 += 1;
        if verdict.is_err() {
            slot.1 += 1;
        }
        if verdict.is_ok() != *keep {
            let why = verdict.err().map_or("kept".to_string(), |e| e.to_string());
            s.misses.push(format!("{register:?} {text:?}: {why}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_large_varied_and_has_no_repeats() {
        assert!(STATEMENTS.len() >= 300, "{}", STATEMENTS.len());
        for register in [Register::Chat, Register::Email, Register::Note, Register::French] {
            for keep in [true, false] {
                let n = STATEMENTS.iter().filter(|(_, k, r)| *r == register && *k == keep).count();
                assert!(n >= 15, "{register:?} keep={keep}: {n}");
            }
        }
        let mut texts: Vec<&str> = STATEMENTS.iter().map(|(t, _, _)| *t).collect();
        texts.sort_unstable();
        let before = texts.len();
        texts.dedup();
        assert_eq!(texts.len(), before);
    }
}
