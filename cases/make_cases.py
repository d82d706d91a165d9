#!/usr/bin/env python3
"""Writes the project's own gate case files (17-*.json onward) beside the 16 public ones.

Each case states, by hand, what the gate must answer and a substring of the reason. Run it
from this folder after editing; the files it writes are committed.
"""
import copy
import json

NOW = 1767225600
DAY = 86400
POLICY = {"similarityThreshold": 0.9, "staleAfterDays": 30, "maxActiveFacts": 120,
          "protectedCategories": ["identity", "preferences", "commitments"]}
TRANSCRIPT = [
    "user: I live in Lisbon and work best in the morning.",
    "assistant: Good to know.",
    "user: I installed postgres 16 on the backup box.",
    "assistant: Nice.",
    "user: The kitchen leaks and the kettle is broken.",
    "assistant: Sorry to hear that.",
    "user: I promised Ana I would review her thesis by Friday.",
    "assistant: I will remember.",
    "user: I keep a bearded dragon called Saffron.",
    "assistant: Lovely.",
]


def item(i, block, text, category, age_days, active=True):
    return {"itemId": f"m_{i}", "block": block, "text": text, "category": category,
            "createdAt": NOW - age_days * DAY, "active": active}


ITEMS = [
    item(1, "scratch", "I live in Lisbon and work best in the morning.", "identity", 1),
    item(2, "scratch", "User lives in Lisbon and works best in the morning.", "identity", 1),
    item(3, "scratch", "The user installed postgres 16 on the backup box.", "context", 1),
    item(4, "scratch", "The kitchen leaks and the kettle is broken.", "event", 70),
    item(5, "human", "The user promised Ana to review her thesis by Friday.", "commitments", 70),
    item(6, "scratch", "I live in Porto and work best in the morning.", "identity", 1),
    item(7, "scratch", "The user keeps a bearded dragon.", "context", 2),
    item(8, "scratch", "The user keeps a bearded dragon called Saffron.", "context", 2),
    item(9, "scratch", "The old router was replaced.", "context", 40, active=False),
    item(10, "episodes", "The kettle is broken.", "event", 3),
    item(11, "scratch", "The kettle whistles loudly.", "context", 45),
    item(12, "persona", "The assistant is called Nyx.", "identity", 5),
]

CASES = []


def case(name, pass_, proposals, expect, policy=None, items=None):
    key = {"encode": "facts", "dedupe": "drop", "merge": "merge", "promote": "promote", "forget": "forget", "supersede": "supersede"}[pass_]
    CASES.append({
        "name": name, "now": NOW, "policy": policy or POLICY, "transcript": TRANSCRIPT,
        "items": items or ITEMS, "pass": pass_, "proposal": {key: proposals},
        "expect": [{"accepted": a, "reasonContains": r} for a, r in expect],
    })


def drop(i, of, reason="same fact"):
    return {"itemId": i, "duplicateOf": of, "reason": reason}


# ---- encode
case("encode accepts a fact naming a person from the transcript", "encode",
     [{"text": "The user promised Ana to review her thesis.", "category": "commitments", "block": "scratch"}], [(True, "")])
case("encode accepts inflected words traced through the stemmer", "encode",
     [{"text": "The user lives in Lisbon and works in the mornings.", "category": "identity", "block": "scratch"}], [(True, "")])
case("encode refuses a name absent from the transcript", "encode",
     [{"text": "The user promised Maria to review her thesis.", "category": "commitments", "block": "scratch"}], [(False, "Maria")])
case("encode refuses a capitalised common word not in the transcript", "encode",
     [{"text": "The user keeps the Kettle in the kitchen.", "category": "context", "block": "scratch"}], [(False, "Kettle")])
case("encode refuses a fact with no content", "encode",
     [{"text": "The user is.", "category": "context", "block": "scratch"}], [(False, "no content")])
case("encode refuses a missing text", "encode", [{"category": "context", "block": "scratch"}], [(False, "'text' is missing")])
case("encode refuses a text that is not a string", "encode",
     [{"text": 42, "category": "context", "block": "scratch"}], [(False, "must be a string")])
case("encode refuses a fact aimed at human", "encode",
     [{"text": "The user lives in Lisbon.", "category": "identity", "block": "human"}], [(False, "Promote")])
case("encode refuses an unknown block", "encode",
     [{"text": "The user lives in Lisbon.", "category": "identity", "block": "attic"}], [(False, "attic")])
case("encode refuses an empty category", "encode",
     [{"text": "The user lives in Lisbon.", "category": " ", "block": "scratch"}], [(False, "category")])
case("encode refuses a proposal that is not an object", "encode", ["The user lives in Lisbon."], [(False, "object")])
case("encode lists every invented token", "encode",
     [{"text": "The user migrated to Kubernetes on the backup box.", "category": "context", "block": "scratch"}],
     [(False, "migrated, kubernete")])
case("encode judges each fact on its own", "encode",
     [{"text": "The user keeps a bearded dragon called Saffron.", "category": "context", "block": "scratch"},
      {"text": "The user keeps a bearded dragon called Pepper.", "category": "context", "block": "scratch"}],
     [(True, ""), (False, "pepper")])

# ---- dedupe
case("dedupe accepts a subset restatement", "dedupe", [drop("m_7", "m_8")], [(True, "1.000")])
case("dedupe refuses a ghost item", "dedupe", [drop("m_404", "m_1")], [(False, "m_404' does not exist")])
case("dedupe refuses an inactive item", "dedupe", [drop("m_9", "m_3")], [(False, "not active")])
case("dedupe refuses an inactive keeper", "dedupe", [drop("m_3", "m_9")], [(False, "duplicateOf m_9 is not active")])
case("dedupe refuses a chain through a dropped keeper", "dedupe",
     [drop("m_2", "m_1"), drop("m_1", "m_6")], [(True, ""), (False, "chain")])
case("dedupe refuses a drop into an item dropped earlier", "dedupe",
     [drop("m_7", "m_8"), drop("m_8", "m_7")], [(True, ""), (False, "earlier")])
case("dedupe refuses a missing duplicateOf", "dedupe", [{"itemId": "m_2", "reason": "same"}], [(False, "'duplicateOf' is missing")])
case("dedupe refuses a numeric itemId", "dedupe", [{"itemId": 2, "duplicateOf": "m_1", "reason": "same"}], [(False, "must be a string")])
case("dedupe refuses a missing reason", "dedupe", [{"itemId": "m_2", "duplicateOf": "m_1"}], [(False, "reason is empty")])
case("dedupe refuses a whitespace reason", "dedupe", [drop("m_2", "m_1", "   ")], [(False, "reason")])
case("dedupe refuses a different stack", "dedupe",
     [drop("m_11", "m_10")], [(False, "below the threshold")])
case("dedupe honours a lower threshold in the policy", "dedupe", [drop("m_6", "m_1")], [(True, "0.800")],
     policy={**POLICY, "similarityThreshold": 0.8})
case("dedupe refuses a proposal that is a list", "dedupe", [["m_2", "m_1"]], [(False, "object")])
# Was "dedupe accepts across blocks" (accepted): m_10 "The kettle is broken." is one of the
# two statements of m_4, and is no longer folded into it (one statement per fact: `text::split`). Across blocks: 126.
case("dedupe refuses folding a statement into a compound, across blocks too", "dedupe", [drop("m_10", "m_4")],
     [(False, "one statement of m_4")])

# ---- merge
def merge(into, frm, text, reason="same thing"):
    return {"intoId": into, "fromIds": frm, "mergedText": text, "reason": reason}


case("merge accepts a traceable union", "merge",
     [merge("m_3", ["m_4"], "The user installed postgres 16 on the backup box; the kettle is broken.")], [(True, "")])
case("merge accepts a restatement of a name from its sources", "merge",
     [merge("m_8", ["m_7"], "The user keeps a bearded dragon called Saffron.")], [(True, "")])
case("merge refuses a ghost source", "merge", [merge("m_3", ["m_77"], "x y z")], [(False, "fromIds 'm_77' does not exist")])
case("merge refuses a ghost target", "merge", [merge("m_70", ["m_3"], "x y z")], [(False, "intoId 'm_70' does not exist")])
case("merge refuses a source consumed earlier in the pass", "merge",
     [merge("m_8", ["m_7"], "The user keeps a bearded dragon called Saffron."),
      merge("m_3", ["m_7"], "The user installed postgres 16 on the backup box.")],
     [(True, ""), (False, "already removed by an earlier mutation")])
case("merge refuses an inactive source", "merge", [merge("m_3", ["m_9"], "The user installed postgres 16.")], [(False, "not active")])
case("merge refuses a target listed among its sources", "merge", [merge("m_3", ["m_3"], "x y z")], [(False, "also listed")])
case("merge refuses a source listed twice", "merge", [merge("m_3", ["m_4", "m_4"], "x y z")], [(False, "twice")])
case("merge refuses empty fromIds", "merge", [merge("m_3", [], "x y z")], [(False, "fromIds is empty")])
case("merge refuses fromIds that is a string", "merge", [merge("m_3", "m_4", "x y z")], [(False, "array")])
case("merge refuses a numeric entry in fromIds", "merge", [merge("m_3", [4], "x y z")], [(False, "must be a string")])
case("merge refuses an empty mergedText", "merge", [merge("m_3", ["m_4"], "  ")], [(False, "mergedText is empty")])
case("merge refuses an empty reason", "merge",
     [merge("m_3", ["m_4"], "The user installed postgres 16 on the backup box.", "")], [(False, "reason")])
case("merge refuses a persona fact mixed with scratch", "merge",
     [merge("m_12", ["m_3"], "The assistant is called Nyx.")], [(False, "two blocks")])
case("merge refuses a name found only in the transcript", "merge",
     [merge("m_3", ["m_4"], "The user installed postgres 16 on the backup box for Ana.")], [(False, "Ana")])

# ---- promote
def promote(i, to, reason="durable"):
    return {"itemId": i, "toBlock": to, "reason": reason}


case("promote accepts an event to episodes", "promote", [promote("m_4", "episodes")], [(True, "episodes")])
case("promote accepts a fact to persona", "promote", [promote("m_3", "persona")], [(True, "")])
case("promote refuses scratch as a target", "promote", [promote("m_1", "scratch")], [(False, "'scratch' is not one of")])
case("promote refuses a capitalised block name", "promote", [promote("m_1", "Human")], [(False, "Human")])
case("promote refuses an item already there", "promote", [promote("m_5", "human")], [(False, "already in human")])
case("promote refuses a ghost item", "promote", [promote("m_41", "human")], [(False, "does not exist")])
case("promote refuses an inactive item", "promote", [promote("m_9", "human")], [(False, "not active")])
case("promote refuses a second move of the same item", "promote",
     [promote("m_1", "human"), promote("m_1", "persona")], [(True, ""), (False, "earlier mutation")])
case("promote refuses a missing toBlock", "promote", [{"itemId": "m_1", "reason": "x"}], [(False, "'toBlock' is missing")])
case("promote refuses an empty reason", "promote", [promote("m_1", "human", "")], [(False, "reason")])

# ---- forget
def forget(i, policy="stale", reason="old"):
    return {"itemId": i, "reason": reason, "policy": policy}


SMALL = [item(1, "human", "I live in Lisbon.", "identity", 1),
         item(2, "scratch", "The kettle is broken.", "event", 1),
         item(3, "scratch", "The user installed postgres 16.", "context", 10),
         item(4, "episodes", "The kitchen leaks.", "event", 2)]
CAP3 = {**POLICY, "maxActiveFacts": 3}

case("forget accepts a stale context fact", "forget", [forget("m_11")], [(True, "stale")])
case("forget records the verified rule, not the claimed one", "forget", [forget("m_11", "capacity")], [(True, "stale rule")])
case("forget accepts the lowest-salience fact over capacity", "forget", [forget("m_3", "capacity")], [(True, "capacity")],
     policy=CAP3, items=SMALL)
case("forget refuses a fact outside the overflow set", "forget", [forget("m_4", "capacity")], [(False, "lowest-salience")],
     policy=CAP3, items=SMALL)
case("forget refuses a second capacity forget once back under the cap", "forget",
     [forget("m_3", "capacity"), forget("m_2", "capacity")], [(True, ""), (False, "not over capacity")],
     policy={**POLICY, "maxActiveFacts": 3}, items=SMALL)
case("forget refuses a protected identity even over capacity", "forget", [forget("m_1", "capacity")], [(False, "protected")],
     policy={**POLICY, "maxActiveFacts": 1}, items=SMALL)
case("forget honours custom protected categories", "forget", [forget("m_4")], [(False, "'event' is protected")],
     policy={**POLICY, "protectedCategories": ["event"]})
case("forget refuses a ghost item", "forget", [forget("m_99")], [(False, "m_99' does not exist")])
case("forget refuses an item already forgotten", "forget", [forget("m_9")], [(False, "not active")])
case("forget refuses forgetting twice in a pass", "forget",
     [forget("m_11"), forget("m_11")], [(True, ""), (False, "already removed")])
case("forget refuses an empty reason", "forget", [forget("m_11", reason="")], [(False, "reason")])
case("forget refuses a non-string policy claim", "forget", [{"itemId": "m_11", "reason": "old", "policy": 7}], [(False, "'policy' must be a string")])
case("forget names the age and threshold it measured", "forget", [forget("m_7")], [(False, "2.0d old (staleAfterDays=30)")])
case("forget honours a shorter staleAfterDays", "forget", [forget("m_7")], [(True, "")],
     policy={**POLICY, "staleAfterDays": 1})

# ---- supersede
MOVES = [item(1, "human", "I live in Lisbon.", "identity", 40),
         item(2, "human", "I live in Porto.", "identity", 2),
         item(3, "scratch", "My dog is called Rex.", "context", 40),
         item(4, "scratch", "My dog is called Bolt.", "context", 2),
         item(5, "scratch", "I live in Porto.", "identity", 1),
         item(6, "human", "User lives in Lisbon.", "identity", 1),
         item(7, "human", "I prefer green tea.", "preferences", 1),
         item(8, "human", "I lived in Faro.", "identity", 50, active=False)]


def sup(old, new, reason="moved"):
    return {"oldId": old, "newId": new, "reason": reason}


case("supersede accepts a newer city", "supersede", [sup("m_1", "m_2")], [(True, "supersedes")], items=MOVES)
case("supersede accepts a protected identity fact", "supersede", [sup("m_1", "m_2")], [(True, "")], items=MOVES,
     policy={**POLICY, "protectedCategories": ["identity"]})
case("supersede accepts a pet's new name", "supersede", [sup("m_3", "m_4")], [(True, "")], items=MOVES)
case("supersede refuses an older fact replacing a newer one", "supersede", [sup("m_2", "m_1")], [(False, "not newer")], items=MOVES)
case("supersede refuses facts in two blocks", "supersede", [sup("m_1", "m_5")], [(False, "one block")], items=MOVES)
case("supersede refuses a duplicate", "supersede", [sup("m_1", "m_6")], [(False, "Dedupe")], items=MOVES)
case("supersede refuses facts about different things", "supersede", [sup("m_1", "m_7")], [(False, "not about the same thing")], items=MOVES)
case("supersede refuses a ghost", "supersede", [sup("m_1", "m_42")], [(False, "newId 'm_42' does not exist")], items=MOVES)
case("supersede refuses an inactive fact", "supersede", [sup("m_8", "m_2")], [(False, "not active")], items=MOVES)
case("supersede refuses a fact superseded earlier in the pass", "supersede", [sup("m_1", "m_2"), sup("m_1", "m_6")],
     [(True, ""), (False, "already removed by an earlier mutation")], items=MOVES)
case("supersede refuses a self-pair", "supersede", [sup("m_1", "m_1")], [(False, "itself")], items=MOVES)
case("supersede refuses an empty reason", "supersede", [sup("m_3", "m_4", "")], [(False, "reason")], items=MOVES)

# Meaning, not only words (`gate::meaning`): polarity and single-valued slots.
NEG_TRANSCRIPT = [
    "user: I am not allergic to peanuts.",
    "assistant: Noted.",
    "user: I don't eat meat and I live in Ghent.",
    "assistant: Good to know.",
    "user: I no longer live in Lisbon.",
    "user: I speak English. I moved to a new flat last month.",
]


def neg_case(name, pass_, proposals, expect, items=None):
    case(name, pass_, proposals, expect, items=items or ITEMS)
    CASES[-1]["transcript"] = NEG_TRANSCRIPT


def fact(text, category="preferences"):
    return {"text": text, "category": category}


neg_case("encode refuses a fact that drops the user's not", "encode",
         [fact("The user is allergic to peanuts.")], [(False, 'the user said "not allergic"; the fact drops "not"')])
neg_case("encode refuses a fact that drops don't", "encode",
         [fact("The user eats meat.")], [(False, "drops \"don't\"")])
neg_case("encode refuses a fact that drops no longer", "encode",
         [fact("I live in Lisbon.", "identity")], [(False, "drops \"no longer\"")])
neg_case("encode refuses a fact that adds a negation", "encode",
         [fact("The user does not live in Ghent.", "identity")], [(False, "adds a negation")])
neg_case("encode accepts a faithful negation", "encode",
         [fact("The user is not allergic to peanuts."), fact("The user does not eat meat."), fact("I live in Ghent.", "identity")],
         [(True, ""), (True, ""), (True, "")])

POLAR = [item(1, "human", "I eat meat.", "preferences", 40),
         item(2, "human", "I don't eat meat.", "preferences", 1),
         item(3, "human", "I work best in the morning.", "preferences", 1),
         item(4, "human", "I live in Lisbon.", "identity", 40),
         item(5, "human", "I no longer live in Lisbon.", "identity", 1)]
neg_case("dedupe refuses opposite polarity as a contradiction", "dedupe",
         [drop("m_2", "m_1")], [(False, "opposite polarity")], items=POLAR)
neg_case("merge refuses merged text that drops a source's negation", "merge",
         [merge("m_2", ["m_3"], "I eat meat and work best in the morning.")], [(False, "drops \"don't\"")], items=POLAR)
neg_case("merge accepts merged text that keeps each source's polarity", "merge",
         [merge("m_2", ["m_3"], "I don't eat meat and I work best in the morning.")], [(True, "")], items=POLAR)
neg_case("supersede accepts the opposite statement", "supersede",
         [sup("m_4", "m_5")], [(True, "opposite")], items=POLAR)

def with_turn(i, block, text, category, age_days, turn):
    it = item(i, block, text, category, age_days)
    it["sourceTurn"] = turn
    return it


MANY = [item(1, "scratch", "I keep a bearded dragon.", "context", 40),
        item(2, "scratch", "I keep a cat.", "context", 1),
        with_turn(3, "scratch", "I speak Portuguese.", "context", 40, 0),
        with_turn(4, "scratch", "I speak English.", "context", 1, 5),
        item(5, "scratch", "My sister lives in Ghent.", "context", 40),
        item(6, "scratch", "My brother lives in Ghent.", "context", 1),
        item(7, "scratch", "I play tennis on Mondays.", "context", 40),
        item(8, "scratch", "I now play chess on Mondays.", "context", 1)]
neg_case("supersede refuses a many-valued predicate", "supersede",
         [sup("m_1", "m_2")], [(False, '"keep" can hold several values at once and the newer fact states no change')], items=MANY)
neg_case("supersede refuses when the change cue is in another clause", "supersede",
         [sup("m_3", "m_4")], [(False, "states no change")], items=MANY)
neg_case("supersede refuses a slot filled for different holders", "supersede",
         [sup("m_5", "m_6")], [(False, "different holders")], items=MANY)
neg_case("supersede accepts a change the user stated", "supersede",
         [sup("m_7", "m_8")], [(True, "stated a change")], items=MANY)
neg_case("supersede accepts a shared one-value slot", "supersede",
         [sup("m_1", "m_2")], [(True, "one-value slot")], items=MOVES)


# ---- memory worth keeping, speakers, sized blocks, atomic merges (`text::worth`, `gate::merge`, `gate::promote`)
SIZED = dict(POLICY, humanTokens=60, personaTokens=40, mergeMaxWords=40)
TALK = [
    "user: Wow, that photo is great! Thanks so much, Ana! I love camping trips with my family.",
    "assistant: Noted.",
    "user: I don't eat meat. I live in Ghent and my locker code is 4417.",
    "assistant: Noted.",
    "user: Melanie: I love painting. I live in Porto.",
    "user: Caroline: I love painting. I live in Lisbon.",
]


def talk_case(name, pass_, proposals, expect, items=None, policy=None):
    case(name, pass_, proposals, expect, policy=policy or SIZED, items=items)
    CASES[-1]["transcript"] = TALK


def said(i, block, text, category, age_days, speaker):
    it = item(i, block, text, category, age_days)
    it["speaker"] = speaker
    return it


talk_case("encode refuses a reaction: it states nothing to remember", "encode",
          [fact("Wow, that photo is great!")], [(False, "states nothing to remember")])
talk_case("encode refuses thanks", "encode",
          [fact("Thanks so much, Ana!")], [(False, "states nothing to remember: thanks")])
talk_case("encode refuses praise of the other person", "encode",
          [fact("You would be a great counselor.")], [(False, "reaction to the other person")])
talk_case("encode accepts an opinion about one's own life", "encode",
          [fact("I love camping trips with my family.", "preferences")], [(True, "")])
talk_case("encode accepts a restatement whose negation is contracted", "encode",
          [fact("The user doesn't eat meat.", "preferences")], [(True, "")])
talk_case("encode accepts a speaker's name as the source's own word", "encode",
          [fact("Melanie loves painting.", "preferences")], [(True, "")])

FULL = [item(1, "human", "I live in Lisbon and work best in the early morning hours.", "identity", 10),
        item(2, "human", "I prefer green tea over coffee in the afternoon at work.", "preferences", 10),
        item(3, "human", "I keep a bearded dragon called Saffron at home with me.", "identity", 10),
        item(4, "scratch", "I speak Portuguese.", "identity", 1),
        item(5, "scratch", "I went to the hardware store yesterday.", "identity", 1),
        item(6, "scratch", "I promised Ana I would review her thesis.", "commitments", 1),
        item(7, "persona", "The assistant is called Nyx.", "identity", 5)]
def tokens(text):
    """`textmath::estimate_tokens`: a token per four bytes of words and spaces, one per digit or mark."""
    single = sum(1 for c in text if c.isdigit() or not (c.isalnum() or c.isspace()))
    words = sum(len(c.encode()) for c in text if not (c.isdigit() or not (c.isalnum() or c.isspace())))
    return -(-words // 4) + single


HELD = sum(tokens(i["text"]) for i in FULL if i["block"] == "human")
talk_case("promote refuses a fact into a full human block, with the figures", "promote",
          [promote("m_4", "human")], [(False, f"human is full: {HELD + tokens(FULL[3]['text'])} of 45 tokens")], items=FULL,
          policy=dict(SIZED, humanTokens=45))
talk_case("promote refuses an event into human", "promote",
          [promote("m_5", "human")], [(False, "episodes")], items=FULL, policy=dict(SIZED, humanTokens=400))
talk_case("promote refuses a plan into human", "promote",
          [promote("m_6", "human")], [(False, "plans belong in episodes")], items=FULL, policy=dict(SIZED, humanTokens=400))
talk_case("promote accepts a durable fact into human while it has room", "promote",
          [promote("m_4", "human")], [(True, "")], items=FULL, policy=dict(SIZED, humanTokens=400))

TWENTY = [item(n, "scratch", t, "context", 2) for n, t in enumerate([
    "I bought a red kite.", "The boiler needs a new valve.", "My cousin plays the oboe.", "The library closes early.",
    "I lost my umbrella.", "The bakery sells rye bread.", "My bike has a flat tyre.", "The garden gate squeaks.",
    "I planted basil seeds.", "The train was delayed.", "My neighbour paints murals.", "The lamp flickers at night.",
    "I ordered new boots.", "The pool reopens soon.", "My aunt knits scarves.", "The printer jams often.",
    "I found an old coin.", "The museum shows fossils.", "My laptop fan is loud.", "The river flooded the path."], start=1)]
talk_case("merge refuses joining twenty statements that share no subject", "merge",
          [merge("m_1", [f"m_{n}" for n in range(2, 21)], "; ".join(i["text"].rstrip(".") for i in TWENTY) + ".")],
          [(False, "share no subject")], items=TWENTY, policy=dict(SIZED, mergeMaxWords=400))
LONG = [item(1, "scratch", "The garden shed behind the old house needs a new roof before the heavy autumn storms arrive in the valley later this year.", "context", 2),
        item(2, "scratch", "The garden shed behind the old house also needs a fresh coat of dark green paint on every single wall and on the door.", "context", 2),
        item(3, "scratch", "The garden shed needs a new lock.", "context", 2)]
talk_case("merge refuses a merged text longer than the bound", "merge",
          [merge("m_1", ["m_2"], LONG[0]["text"].rstrip(".") + "; " + LONG[1]["text"])], [(False, "more than the 40")], items=LONG)
talk_case("merge accepts two statements about one subject within the bound", "merge",
          [merge("m_3", ["m_2"], "The garden shed needs a new lock; The garden shed behind the house also needs a fresh coat of green paint.")],
          [(True, "")], items=LONG)

SPEAKERS = [said(1, "human", "I love painting.", "preferences", 3, "Melanie"),
            said(2, "human", "I love painting.", "preferences", 2, "Caroline"),
            said(3, "human", "I live in Porto.", "identity", 3, "Melanie"),
            said(4, "human", "I live in Lisbon.", "identity", 2, "Caroline"),
            item(5, "scratch", "I live in Ghent and my locker code is 4417.", "identity", 2),
            item(6, "scratch", "My locker code is 4417.", "identity", 1),
            item(7, "human", "I live in Lisbon.", "identity", 40),
            item(8, "scratch", "I live in Porto.", "identity", 1),
            item(9, "scratch", "User lives in Lisbon.", "identity", 1)]
talk_case("dedupe refuses one speaker's words as another's duplicate", "dedupe",
          [drop("m_2", "m_1")], [(False, "different people (Caroline and Melanie)")], items=SPEAKERS)
talk_case("dedupe refuses folding a statement into a compound that holds it", "dedupe",
          [drop("m_6", "m_5")], [(False, "one statement of m_5")], items=SPEAKERS)
talk_case("supersede refuses one speaker's change as another's", "supersede",
          [sup("m_3", "m_4")], [(False, "different people")], items=SPEAKERS)
talk_case("supersede accepts a newer fact in scratch over one in a sized human block", "supersede",
          [sup("m_7", "m_8")], [(True, "one-value slot")], items=SPEAKERS)
talk_case("dedupe accepts across blocks", "dedupe", [drop("m_9", "m_7")], [(True, "")], items=SPEAKERS)
# Issue 41: a compound whose second statement leaves its subject out is still a compound.
ELIDED = [item(1, "scratch", "I live in Ghent.", "identity", 3),
          item(2, "scratch", "I teach chemistry at a secondary school.", "identity", 3),
          item(3, "scratch", "I live in Ghent and teach chemistry at a secondary school.", "identity", 1)]
talk_case("dedupe refuses folding statements into a compound with an elided subject", "dedupe",
          [drop("m_1", "m_3"), drop("m_2", "m_3")], [(False, "one statement of m_3"), (False, "one statement of m_3")],
          items=ELIDED)

# Issue 47: forget by value. A passing state goes after its while; a durable fact called
# passing, or an old one under a policy that does not forget by age, is refused with why.
BY_VALUE = {"similarityThreshold": 0.9, "staleAfterDays": None, "maxActiveFacts": None,
            "protectedCategories": ["identity", "preferences", "commitments"],
            "transientGraceDays": 1, "commitmentGraceDays": 7}
PASSING = [item(1, "scratch", "I'm exhausted today.", "context", 3),
           item(2, "scratch", "I keep bees.", "context", 400),
           item(3, "episodes", "I went to Japan last year.", "event", 400)]
talk_case("forget accepts a passing state after its while", "forget",
          [forget("m_1", "transient", "that day is over")], [(True, "passing state whose while ended")],
          items=PASSING, policy=BY_VALUE)
talk_case("forget refuses a durable fact called passing", "forget",
          [forget("m_2", "transient", "probably over")], [(False, "was called a passing state")],
          items=PASSING, policy=BY_VALUE)
talk_case("forget refuses an old event where forgetting by age is off", "forget",
          [forget("m_3", "stale", "a year old")], [(False, "forgetting by age is off")],
          items=PASSING, policy=BY_VALUE)

# Issue 41, found on a LoCoMo conversation: a picture caption's frame (`photo`, `shared`)
# joined two unrelated pictures; one word in common passed as a restatement; a new thing
# replaced an old one on the cue `new`. Fresh wording here, not the conversation's.
PICTURES = [item(n, "scratch", f"Photo shared: a photo of {what}.", "context", 2) for n, what in enumerate(
    ["a red kayak on a lake", "a cake with candles", "a cat asleep on a rug", "a bridge at dusk", "a stack of books",
     "a mountain trail in fog", "a bowl of ramen", "a vintage bicycle", "a garden full of tulips"], start=1)]
PICTURES += [item(10, "scratch", "I painted the kayak red.", "context", 2),
             item(11, "scratch", "The red kayak leaks a little.", "context", 1)]
talk_case("merge refuses two pictures joined by their caption's frame", "merge",
          [merge("m_1", ["m_3"], "Photo shared: a photo of a red kayak on a lake; a photo of a cat asleep on a rug.")],
          [(False, "\"photo\", \"shared\" count for nothing")], items=PICTURES)
talk_case("merge accepts two facts sharing uncommon words among common ones", "merge",
          [merge("m_11", ["m_1"], "The red kayak leaks a little; Photo shared: a photo of a red kayak on a lake.")],
          [(True, "")], items=PICTURES)
MENTION = [item(1, "scratch", "This is Biscuit.", "context", 3),
           item(2, "scratch", "I took Biscuit to the vet on Monday.", "context", 1),
           item(3, "scratch", "I have a parrot.", "context", 3),
           item(4, "scratch", "I have a parrot named Kiwi.", "context", 1)]
case("dedupe refuses a fact that only mentions the other's one word", "dedupe",
     [drop("m_1", "m_2")], [(False, "rests on a mention")], items=MENTION)
case("dedupe accepts a one-word fact the longer one restates whole", "dedupe",
     [drop("m_3", "m_4")], [(True, "1.000")], items=MENTION)
NEWS = [item(1, "scratch", "I got a new puppy last week.", "context", 3),
        item(2, "scratch", "I got her a new collar.", "context", 1),
        item(3, "scratch", "My phone is an old Nokia.", "context", 3),
        item(4, "scratch", "My new phone is a Pixel.", "context", 1)]
case("supersede refuses a new thing as a change of an old one", "supersede",
     [sup("m_1", "m_2")], [(False, "\"new\" in m_2 describes \"collar\"")], items=NEWS)
case("supersede accepts a new thing that replaces the old one", "supersede",
     [sup("m_3", "m_4")], [(True, "\"new\"")], items=NEWS)

CUES = [item(1, "scratch", "And you're part of that.", "context", 3),
        item(2, "scratch", "Music is a huge part of my life, not just a hobby.", "context", 1),
        item(3, "scratch", "Chess is my thing.", "context", 3),
        item(4, "scratch", "Now the chess club meets in the library on Thursdays after work.", "context", 1)]
case("supersede refuses one shared word read as the opposite statement", "supersede",
     [sup("m_1", "m_2")], [(False, "not one statement said both ways")], items=CUES)
case("supersede refuses a change of something the older fact only mentions", "supersede",
     [sup("m_3", "m_4")], [(False, "of something else")], items=CUES)

FRAGMENTS = [item(1, "scratch", "I bake sourdough on weekends.", "context", 3),
             item(2, "scratch", "Baking the sourdough now.", "context", 1),
             item(3, "scratch", "My bakery idea needs a good oven.", "context", 3),
             item(4, "scratch", "It changed my oven plans.", "context", 1)]
case("supersede refuses a fragment as a stated change", "supersede",
     [sup("m_1", "m_2")], [(False, "a fragment states no change")], items=FRAGMENTS)
case("supersede refuses a change of what it points at", "supersede",
     [sup("m_3", "m_4")], [(False, "points at")], items=FRAGMENTS)

case("encode keeps a fact the model names twice once", "encode",
     [{"text": "I live in Lisbon.", "category": "identity"}, {"text": "I live in Lisbon", "category": "identity"},
      {"text": "I installed postgres 16 on the backup box.", "category": "context"}],
     [(True, ""), (False, "already kept in this pass"), (True, "")])

CLAUSES = [item(1, "scratch", "Keep going for your dreams and don't quit.", "context", 3),
           item(2, "scratch", "Keep going after your dreams.", "context", 1),
           item(3, "scratch", "I am not allergic to peanuts.", "context", 3),
           item(4, "scratch", "I am allergic to peanuts.", "context", 1),
           item(5, "scratch", "They have been practicing the routine hard.", "context", 3),
           item(6, "scratch", "I won't quit the routine, even when it's hard.", "context", 1),
           item(7, "scratch", "I am busy with my writing these days.", "context", 3),
           item(8, "scratch", "I can't do any writing right now.", "context", 1)]
case("supersede refuses a polarity that is another clause's", "supersede",
     [sup("m_1", "m_2")], [(False, "keeps the polarity of the clause")], items=CLAUSES)
case("supersede accepts the same statement said the other way", "supersede",
     [sup("m_3", "m_4")], [(True, "")], items=CLAUSES)
case("supersede refuses a change stated of another person", "supersede",
     [sup("m_5", "m_6")], [(False, "a change (\"quit\") stated of one is not a change of the other")], items=CLAUSES)
case("supersede refuses right now as a stated change", "supersede",
     [sup("m_7", "m_8")], [(False, "")], items=CLAUSES)

# Issue 66: a supersession needs the same referent with a new value; an indefinite names a
# new one of a kind; what was past stays true; what is added replaces nothing.
REFERENTS = [item(1, "scratch", "I have a book called Dune on my shelf.", "context", 30),
             item(2, "scratch", "I have a book called Emma on my shelf now.", "context", 1),
             item(3, "scratch", "There's a colleague named Femke on my team.", "context", 30),
             item(4, "scratch", "There's a colleague named Joost on my team.", "context", 1),
             item(5, "scratch", "My older dog is a collie called Mack.", "context", 30),
             item(6, "scratch", "My younger dog is a terrier called Pip.", "context", 1),
             item(7, "scratch", "Sebastian studied in Salamanca.", "context", 30),
             item(8, "scratch", "Sebastian studies in Madrid now.", "context", 1),
             item(9, "scratch", "I'm learning Portuguese this year.", "context", 30),
             item(10, "scratch", "I'm also taking a pottery class this year.", "context", 1),
             item(11, "scratch", "My cat is called Miso.", "context", 30),
             item(12, "scratch", "My cat is called Tofu now.", "context", 1),
             item(13, "scratch", "I drive an old Ford Fiesta.", "context", 30),
             item(14, "scratch", "I sold the Fiesta last month.", "context", 1),
             item(15, "scratch", "I'm on nights at the moment.", "context", 30),
             item(16, "scratch", "I'm on early shifts at the moment.", "context", 1)]
case("supersede refuses a book called Emma as a new value of a book called Dune", "supersede",
     [sup("m_1", "m_2")], [(False, "names a new book (indefinite")], items=REFERENTS)
case("supersede refuses a colleague named Joost as a new value of a colleague named Femke", "supersede",
     [sup("m_3", "m_4")], [(False, "names a new colleague (indefinite")], items=REFERENTS)
case("supersede refuses one description's value as another's", "supersede",
     [sup("m_5", "m_6")], [(False, "different holders")], items=REFERENTS)
case("supersede refuses to retire what was past", "supersede",
     [sup("m_7", "m_8")], [(False, "tells of the past")], items=REFERENTS)
case("supersede refuses what the newer fact adds", "supersede",
     [sup("m_9", "m_10")], [(False, "adds to what m_9 says")], items=REFERENTS)
case("supersede accepts a new name of one referent", "supersede",
     [sup("m_11", "m_12")], [(True, "now")], items=REFERENTS)
case("supersede accepts the end of the thing the older fact names", "supersede",
     [sup("m_13", "m_14")], [(True, "ends the Fiesta")], items=REFERENTS)
case("supersede accepts what holds now of a state said for a while", "supersede",
     [sup("m_15", "m_16")], [(True, "held for a while")], items=REFERENTS)

# Issue 66: a merge keeps absolute time. `yesterday` said two days before NOW is 30 Dec 2025's
# yesterday, 29 Dec 2025; merged into a fact said ten days before, it would name another day.
DATES = [item(1, "scratch", "Last week I went to a restaurant called Nopa.", "event", 10),
         item(2, "scratch", "Yesterday I went to a bar called Zuni.", "event", 2)]
case("merge refuses a relative date whose anchor the merge loses", "merge",
     [{"intoId": "m_1", "fromIds": ["m_2"], "mergedText": "Last week I went to a restaurant called Nopa; yesterday I went to a bar called Zuni.", "reason": "outings"}],
     [(False, "write the day it names (29 Dec 2025)")], items=DATES)
case("merge accepts a relative date written as the day it names", "merge",
     [{"intoId": "m_1", "fromIds": ["m_2"], "mergedText": "Last week I went to a restaurant called Nopa; on 29 Dec 2025 I went to a bar called Zuni.", "reason": "outings"}],
     [(True, "")], items=DATES)

# Issue 66, under every policy: an indefinite brings in a new thing, so two facts that each
# introduce one of a kind, described apart, are two things; one that only adds to the
# other's description may be the same one told again.
KINDS = [item(1, "scratch", "I read a book called Dune.", "event", 9),
         item(2, "scratch", "I read a book called Emma.", "event", 9),
         item(3, "scratch", "Photo shared: a photo of a red kayak on a lake.", "context", 2),
         item(4, "scratch", "Photo shared: a photo of a cat asleep on a rug.", "context", 2),
         item(5, "scratch", "I bought a kayak.", "event", 4),
         item(6, "scratch", "I bought a kayak and I paddle it on the lake.", "event", 4),
         item(7, "scratch", "Photo shared: a picture of a bowl of ice cream.", "context", 2)]
case("merge refuses two books each introduced as a new one", "merge",
     [merge("m_1", ["m_2"], "I read a book called Dune; I read a book called Emma.")],
     [(False, "each introduce a new book")], items=KINDS)
case("merge refuses two pictures under a policy with no word bound", "merge",
     [merge("m_3", ["m_4"], "Photo shared: a photo of a red kayak on a lake; a photo of a cat asleep on a rug.")],
     [(False, "each introduce a new photo")], items=KINDS)
case("merge refuses a photo and a picture described apart", "merge",
     [merge("m_3", ["m_7"], "Photo shared: a photo of a red kayak on a lake; a picture of a bowl of ice cream.")],
     [(False, "each introduce a new photo")], items=KINDS)
case("merge accepts a new one told again with more", "merge",
     [merge("m_6", ["m_5"], "I bought a kayak and I paddle it on the lake.")],
     [(True, "")], items=KINDS)

if __name__ == "__main__":
    for n, c in enumerate(CASES, start=17):
        slug = c["pass"]
        with open(f"{n:02d}-{slug}.json", "w") as f:
            json.dump(c, f, indent=1)
            f.write("\n")
    print(f"wrote {len(CASES)} cases")
