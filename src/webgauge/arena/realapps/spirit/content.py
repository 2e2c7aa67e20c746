"""The seed's forum content, a pure function of the seed: members, twelve categories of a hobby
and gear community, a few thousand topics with reply threads, likes, favourites and subscriptions.

Sentences are built with agreement, not by filling slots: every piece of gear is a noun with a
grammatical number (``the derailleur`` / ``the brake pads``), and every verb phrase, pronoun and
auxiliary that refers to it is chosen in that number (``Why does my Kestrel derailleur skip ...``,
``Why do my Kestrel brake pads squeal ...``; ``I bought it`` / ``I bought them``). The rule set:
a title or sentence about gear takes the third person singular verb (``-s``; ``does``, ``is``,
``has``) when the gear noun is singular and the plain form (``do``, ``are``, ``have``) when it is
plural; past-tense verbs and modal verbs (``stopped``, ``won't``) are the same in both; a pronoun
is ``it`` / ``them``, ``its`` / ``their``. :func:`agrees` checks a title against the rule set.

Public seeds draw members from the public part of the arena's name pools and gear brands from
:data:`BRANDS`. Held-out seeds (at or above :data:`~webgauge.arena.content.pools.HELDOUT_BASE`)
take members and brands from the world's coined vocabulary (:func:`~webgauge.arena.content.pools.
pool_for` with purpose ``spirit-forum``), so every held-out topic title names a brand that is in no
list and held-out members' names are coined too.

Nothing here touches Spirit: :func:`world` returns plain records and the seed script writes them
through Spirit's own models, so the stored rows are what Spirit itself makes of them.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field

from ...content.pools import Pool, pool_for, slice_of_seed

__all__ = ["BRANDS", "CATEGORIES", "N_TOPICS", "N_USERS", "PURPOSE", "Category", "Comment", "Member", "Topic",
           "World", "agrees", "world"]

PURPOSE = "spirit-forum"
N_USERS = 320
N_TOPICS = 2200
N_BRANDS = 24
EPOCH = "2025-01-06T08:00:00+00:00"  # minute 0 of the forum's history

BRANDS = ("Kestrel", "Marlow", "Halvard", "Brightwater", "Orla", "Tamsin", "Ridgeback", "Fenwick", "Corvo",
          "Lumen", "Saltmarsh", "Aldren", "Westbrook", "Pellam", "Quillon", "Sorrel", "Vantor", "Ebbing",
          "Larkspur", "Thornbury", "Caldera", "Nimbus", "Redfern", "Ashgrove")


@dataclass(frozen=True)
class Gear:
    noun: str
    plural: bool


def _g(*nouns: str) -> tuple[Gear, ...]:
    """Gear nouns; a trailing ``*`` marks a plural noun (``brake pads*``)."""
    return tuple(Gear(n.rstrip("*"), n.endswith("*")) for n in nouns)


@dataclass(frozen=True)
class Trouble:
    sg: str  # third person singular: "skips under load"
    base: str  # plain form: "skip under load"


def _t(*pairs: str) -> tuple[Trouble, ...]:
    """Verb phrases written ``verb|rest`` in the plain form; the singular adds -s (-es after a sibilant or -o)."""
    out = []
    for p in pairs:
        verb, rest = p.split("|", 1)
        base = verb.split("/")[0]
        sg = base + ("es" if base.endswith(("sh", "ch", "ss", "us", "x", "o")) else "s")
        out.append(Trouble(f"{sg} {rest}".strip(), f"{base} {rest}".strip()))
    return tuple(out)


@dataclass(frozen=True)
class CategoryDef:
    title: str
    description: str
    gear: tuple[Gear, ...]
    troubles: tuple[Trouble, ...]
    uses: tuple[str, ...]
    when: tuple[str, ...]
    tips: tuple[str, ...]  # reply sentences that fit the category


CATEGORIES: tuple[CategoryDef, ...] = (
    CategoryDef("Road Cycling", "Group rides, training plans, road bikes and the kit that goes with them.",
                _g("frame", "wheelset", "saddle", "crankset", "handlebar tape", "tyres*", "bib shorts*",
                   "power meter"),
                _t("creak|when climbing out of the saddle", "feel/feel|harsh on rough tarmac",
                   "wear/wear|out after a few hundred kilometres", "rub|against the frame on steep climbs",
                   "lose/lose|air overnight", "slip|in the wet"),
                ("long sportives", "winter training", "a first century ride", "commuting on chip seal"),
                ("after a wet ride", "in cold weather", "since the last service", "on every long descent"),
                ("Check the tyre pressure first; most people ride far too hard.",
                 "A bike fit made a bigger difference for me than any upgrade.",
                 "Clean and re-grease the contact points before you replace anything.")),
    CategoryDef("Mountain Biking", "Trails, suspension set-up, tubeless tyres and muddy weekends.",
                _g("fork", "dropper post", "rear shock", "tubeless tyres*", "flat pedals*", "knee pads*",
                   "hydration pack", "brake rotors*"),
                _t("sag/sag|too much on drops", "leak/leak|sealant through the sidewall",
                   "stick/stick|halfway down", "make/make|a clunking noise on roots", "lose/lose|pressure mid-ride",
                   "howl/howl|on long descents"),
                ("enduro racing", "bike park days", "rocky alpine trails", "muddy winter riding"),
                ("after a wash", "on cold mornings", "since I changed the oil", "on the second lap"),
                ("Set the sag with your riding kit on, not in street clothes.",
                 "Bed in new rotors properly before judging the brakes.",
                 "Top up the sealant every three months, more often in summer.")),
    CategoryDef("Bike Maintenance", "Repairs, tools, cleaning and keeping a bike running for years.",
                _g("chain", "cassette", "derailleur", "brake pads*", "bottom bracket", "headset", "cables*",
                   "torque wrench"),
                _t("skip|under load", "squeal/squeal|after rain", "click|with every pedal stroke",
                   "need/need|adjusting every week", "wear/wear|out much faster than expected",
                   "feel/feel|gritty when I turn the cranks"),
                ("a touring bike", "an old steel frame", "a gravel bike", "a commuter that lives outside"),
                ("after a wet week", "since I fitted a new chain", "in cold weather", "after the last rebuild"),
                ("Measure chain wear with a proper checker before you replace the cassette.",
                 "Degrease everything and start again; half the noises go away.",
                 "Use a torque wrench on carbon parts, every time.")),
    CategoryDef("Hiking & Camping", "Routes, tents, stoves and sleeping well outdoors.",
                _g("tent", "sleeping bag", "stove", "backpack", "hiking boots*", "trekking poles*",
                   "rain jacket", "water filter"),
                _t("let/let|water in during heavy rain", "feel/feel|colder than the rating says",
                   "rub/rub|my heels raw", "clog/clog|after a few litres", "sag/sag|in the wind",
                   "weigh/weigh|more than the listing claims"),
                ("a week in the Highlands", "winter camping", "long-distance trails", "a first solo trip"),
                ("on the second night", "in heavy rain", "above the tree line", "after a season of use"),
                ("Pitch it once in the garden before you take it anywhere.",
                 "Wool socks and a liner pair solved my blisters.",
                 "Temperature ratings assume you sleep on a good mat.")),
    CategoryDef("Photography", "Cameras, lenses, editing and the stories behind the shots.",
                _g("lens", "camera body", "tripod", "flash", "lens filters*", "batteries*", "camera strap",
                   "memory cards*"),
                _t("focus/focus|slowly in low light", "drain/drain|overnight", "show/show|dust spots at f/16",
                   "overheat/overheat|during long video clips", "wobble/wobble|in the wind",
                   "produce/produce|soft corners wide open"),
                ("street photography", "wildlife at dawn", "astrophotography", "weddings on a budget"),
                ("in cold weather", "after the firmware update", "at high ISO", "on long exposures"),
                ("Shoot a test chart before you blame the lens.",
                 "Keep spare batteries in an inside pocket when it is cold.",
                 "Update the firmware and reset the settings; it fixed mine.")),
    CategoryDef("Coffee & Espresso", "Grinders, machines, beans and the pursuit of a better cup.",
                _g("grinder", "espresso machine", "kettle", "scale", "milk jug", "burrs*", "portafilter",
                   "paper filters*"),
                _t("clump|at fine settings", "channel/channel|no matter how I tamp",
                   "take/take|ages to heat up", "drift/drift|by a few grams",
                   "leave/leave|a papery taste", "leak/leak|around the group head"),
                ("light roasts", "milk drinks", "a small office", "travelling"),
                ("after descaling", "since I changed beans", "first thing in the morning", "after a few weeks"),
                ("Weigh the dose and the output; guessing is where it goes wrong.",
                 "Single-dose and give the grinder a quick purge.",
                 "Use fresher beans before you change any hardware.")),
    CategoryDef("Home Workshop", "Woodworking, power tools, jigs and projects from the garage.",
                _g("table saw", "router", "chisels*", "workbench", "dust extractor", "hand plane", "clamps*",
                   "cordless drill"),
                _t("burn/burn|the edges of hardwood", "go|blunt quickly", "wobble/wobble|under load",
                   "clog/clog|with fine dust", "chatter/chatter|on end grain", "slip|when tightened hard"),
                ("building furniture", "a small garage shop", "cutting dovetails", "a first workbench"),
                ("on oak", "after sharpening", "at full speed", "with a new blade"),
                ("Sharpen before you buy anything new.",
                 "Wax the table and the fence; it made a big difference here.",
                 "Dust extraction is worth more than the next tool.")),
    CategoryDef("Gardening", "Vegetables, borders, soil and everything that grows.",
                _g("greenhouse", "raised beds*", "lawn mower", "hedge trimmer", "compost bin", "seed trays*",
                   "water butt", "pruning shears*"),
                _t("get/get|too hot by midday", "rot/rot|at the corners", "struggle/struggle|with long grass",
                   "smell/smell|of ammonia", "crack/crack|after one winter", "overflow/overflow|in every storm"),
                ("tomatoes", "a small city garden", "growing from seed", "a windy allotment"),
                ("after the first frost", "in a wet spring", "since we moved it", "in midsummer"),
                ("Add more brown material; it should smell like a forest floor.",
                 "Shade paint on the glass helped more than vents.",
                 "Mulch heavily in autumn and let the worms do the work.")),
    CategoryDef("Audio & Headphones", "Headphones, speakers, amplifiers and listening at home.",
                _g("headphones*", "amplifier", "turntable", "speakers*", "earbuds*", "DAC", "cables*",
                   "subwoofer"),
                _t("hum/hum|when the laptop charges", "crackle/crackle|at low volume",
                   "sound/sound|thin next to my old pair", "drop/drop|the connection every few minutes",
                   "run/run|too fast at 33 rpm", "distort/distort|on bass-heavy tracks"),
                ("a small flat", "classical music", "gaming", "long flights"),
                ("after the update", "since I moved the desk", "with the window open", "after an hour"),
                ("Try a different outlet first; a ground loop causes most hums.",
                 "Let new pads settle for a week before judging them.",
                 "Room placement matters more than the price tag.")),
    CategoryDef("Running", "Training, races, shoes and staying injury free.",
                _g("running shoes*", "GPS watch", "heart-rate strap", "trail shoes*", "running vest",
                   "insoles*", "headtorch", "compression socks*"),
                _t("lose/lose|grip on wet rock", "drop/drop|the signal under trees", "chafe/chafe|after ten miles",
                   "read/read|far too high at the start", "wear/wear|through at the heel",
                   "bounce/bounce|when I speed up"),
                ("a first marathon", "ultra training", "winter running", "parkrun"),
                ("after an hour", "in cold rain", "on long runs", "since the last update"),
                ("Wet the strap before you start; dry contacts read high.",
                 "Rotate two pairs of shoes and they last longer.",
                 "Build mileage slowly and the niggles stay small.")),
    CategoryDef("Home Brewing", "Beer, cider and kombucha made at home, from kits to all-grain.",
                _g("fermenter", "airlock", "hydrometer", "bottles*", "wort chiller", "mash tun", "kegs*",
                   "siphon"),
                _t("stop/stop|bubbling after two days", "taste/taste|of cardboard", "leak/leak|around the lid",
                   "foam/foam|over when I open them", "read/read|too high after a week",
                   "lose/lose|the seal overnight"),
                ("a first all-grain batch", "pale ales", "cider from garden apples", "lagers in a cold garage"),
                ("after bottling", "in a warm kitchen", "since I switched yeast", "after a month"),
                ("Trust the hydrometer, not the airlock.",
                 "Sanitise everything twice and keep the fermenter cool.",
                 "Oxygen after fermentation is the usual cause of that taste.")),
    CategoryDef("Board Games", "Strategy games, co-ops, game nights and what to play next.",
                _g("expansion", "deluxe edition", "card sleeves*", "insert", "dice tower", "miniatures*",
                   "playmat", "rulebook"),
                _t("slow/slow|the game down too much", "warp/warp|after a few plays",
                   "fall/fall|apart when the box is on its side", "break/break|the balance of the base game",
                   "take/take|forever to set up", "confuse/confuse|new players"),
                ("two players", "a family game night", "a group of six", "solo play"),
                ("with new players", "after a few plays", "at higher player counts", "with the promo cards"),
                ("Play the base game a few times before adding anything.",
                 "Bag the components by round and set-up halves.",
                 "The community variant fixes most of that.")),
)

# reply sentences any category can use (no gear in them, so no agreement to keep)
_GENERIC = (
    "Same here, I have been wondering about this for weeks.",
    "Thanks for posting this; it saved me a lot of trial and error.",
    "I had exactly the same problem last year.",
    "Following, as I am about to buy one myself.",
    "Great write-up, thanks for taking the time.",
    "Have you contacted the shop where you bought it?",
    "Mine was replaced under warranty without any fuss.",
    "That matches what the local club told me.",
    "I would not spend more money until you have ruled out the simple things.",
    "Could you post a photo? It is hard to tell from the description.",
    "Good luck, and please let us know how it turns out.",
    "I have the older version and never had that issue.",
)
_THANKS = ("Thanks, everyone. {fix} and it is sorted now.", "Quick update: {fix}, and the problem is gone.",
           "Thanks for the ideas. {fix}; it seems fine so far.")
_FIXES = ("I followed the advice above", "The shop replaced it", "A full clean did the trick",
          "It was a loose part after all", "A firmware update fixed it", "I went back to the old settings")
SPAM = ("Cheap replica watches with free worldwide shipping, visit our store today.",
        "Earn 500 a day working from home, message me for the details.",
        "Best prices on discount sunglasses, limited offer, click my profile.",
        "Buy followers and likes for your channel, fast delivery guaranteed.")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


@dataclass(frozen=True)
class Member:
    username: str
    nickname: str  # what Spirit shows on every post (the member's real name)
    email: str
    password: str
    location: str
    is_moderator: bool = False


@dataclass(frozen=True)
class Comment:
    author: str  # username
    body: str
    minute: int  # minutes after EPOCH
    likers: tuple[str, ...] = ()  # usernames
    spam: bool = False


@dataclass(frozen=True)
class Topic:
    title: str
    category: int  # index into CATEGORIES
    brand: str
    gear: str  # the gear noun the topic is about
    comments: tuple[Comment, ...]  # the first is the opening post
    is_pinned: bool = False
    is_closed: bool = False
    subscribers: tuple[str, ...] = ()  # members with an active subscription (notification)
    favorites: tuple[str, ...] = ()

    @property
    def author(self) -> str:
        return self.comments[0].author

    @property
    def replies(self) -> tuple[Comment, ...]:
        return self.comments[1:]


@dataclass(frozen=True)
class Category:
    title: str
    description: str


@dataclass(frozen=True)
class World:
    seed: int
    members: tuple[Member, ...]
    categories: tuple[Category, ...]
    brands: tuple[str, ...]
    topics: tuple[Topic, ...] = field(repr=False)

    def to_json(self) -> dict:
        return {"seed": self.seed, "epoch": EPOCH, "members": [asdict(m) for m in self.members],
                "categories": [asdict(c) for c in self.categories],
                "topics": [asdict(t) for t in self.topics]}

    def member(self, username: str) -> Member:
        return next(m for m in self.members if m.username == username)

    @property
    def moderators(self) -> tuple[Member, ...]:
        return tuple(m for m in self.members if m.is_moderator)


def _members(rng: random.Random, pool: Pool, n: int) -> tuple[Member, ...]:
    names = pool.people(n + 40)
    cities = pool.words("city")
    out: list[Member] = []
    seen: set[str] = set()
    for name in names:
        first, last = name.split(" ", 1)
        user = re.sub(r"[^a-z0-9_]", "", f"{first}_{last}".lower().replace(" ", ""))
        if user in seen or len(out) >= n:
            continue
        seen.add(user)
        out.append(Member(user, name, f"{user}@forum.example", f"{first.lower()}-{rng.randint(1000, 9999)}",
                          rng.choice(cities), is_moderator=len(out) < 6))
    return tuple(out)


def brands(seed: int) -> tuple[str, ...]:
    """The gear brands the seed's topics name: coined for a held-out world, :data:`BRANDS` otherwise."""
    if slice_of_seed(seed) == "heldout":
        return pool_for(seed, PURPOSE).words("adjective")[:N_BRANDS]
    return BRANDS


def _title(rng: random.Random, cat: CategoryDef, brand: str, gear: Gear) -> str:
    thing = f"{brand} {gear.noun}"
    tr = rng.choice(cat.troubles)
    verb = tr.base if gear.plural else tr.sg
    be, do, has = ("are", "do", "have") if gear.plural else ("is", "does", "has")
    frames = (
        lambda: f"{thing} {verb} {rng.choice(cat.when)}",
        lambda: f"Why {do} my {thing} {tr.base} {rng.choice(cat.when)}?",
        lambda: f"{be.capitalize()} the {thing} worth it for {rng.choice(cat.uses)}?",
        lambda: f"Has anyone tried the {thing} for {rng.choice(cat.uses)}?",
        lambda: f"Long-term review: the {thing} after {rng.choice(('six months', 'a year', 'two seasons'))}",
        lambda: f"My {thing} {verb}: what are my options?",
        lambda: f"First impressions of the {thing}",
        lambda: f"Which {'ones' if gear.plural else 'one'} would you pick for {rng.choice(cat.uses)}: "
                f"the {thing} or something else?",
        lambda: f"The {thing} {has} been great so far",
    )
    return rng.choice(frames)()


def _gear_in(title: str) -> Gear | None:
    """The gear noun ``title`` is about (the longest one it names after a capitalised brand)."""
    found = [g for cat in CATEGORIES for g in cat.gear if re.search(rf"\b[A-Z]\w* {re.escape(g.noun)}\b", title)]
    return max(found, key=lambda g: len(g.noun)) if found else None


def agrees(title: str) -> bool:
    """Does ``title`` keep number agreement with its gear noun (the rule set of the module doc)? A title
    about a singular noun takes ``Is``/``does``/``has`` and a verb phrase's ``-s`` form right after the
    noun; a plural noun takes ``Are``/``do``/``have`` and the plain form (after ``Why do(es) my ...``
    the verb is always plain). A title that names no gear noun does not pass."""
    g = _gear_in(title)
    if g is None:
        return False
    words = title.split()
    if words[0] == "Why":
        return words[1] == ("do" if g.plural else "does")
    if words[0] in ("Is", "Are") and words[0] != ("Are" if g.plural else "Is"):
        return False
    after = re.split(rf"\b{re.escape(g.noun)}\b ?", title, maxsplit=1)[1]
    if re.match(r"(has|have) ", after) and not after.startswith("have " if g.plural else "has "):
        return False
    for cat in CATEGORIES:
        for tr in cat.troubles:
            if tr.sg != tr.base and after.startswith((tr.sg if g.plural else tr.base) + " "):
                return False
            if tr.sg != tr.base and after in (tr.sg if g.plural else tr.base, ):
                return False
    return True


def _opening(rng: random.Random, cat: CategoryDef, brand: str, gear: Gear, title: str) -> str:
    it, they_are, it_has = ("them", "they are", "they have") if gear.plural else ("it", "it is", "it has")
    tr = rng.choice(cat.troubles)
    months = rng.choice(("two", "three", "five", "eight", "eleven"))
    s1 = rng.choice((f"I bought the {brand} {gear.noun} {months} months ago for {rng.choice(cat.uses)}.",
                     f"I have been using the {brand} {gear.noun} for {rng.choice(cat.uses)} "
                     f"since {rng.choice(_MONTHS)}.",
                     f"My partner gave me the {brand} {gear.noun} as a present and I use {it} almost every week."))
    s2 = rng.choice((f"Lately {they_are} not behaving: {'they' if gear.plural else 'it'} "
                     f"{tr.base if gear.plural else tr.sg} {rng.choice(cat.when)}.",
                     f"Overall {it_has} been solid, but I have a few questions before I buy anything else.",
                     f"The reviews I read were mixed, so I am curious what people here think of {it}."))
    trouble = s2.startswith("Lately")
    s3 = rng.choice(("Has anyone else seen this, and what did you do about it?",
                     "Any advice is welcome, including telling me I am doing it wrong.",
                     "I would rather fix what I have than spend money on a replacement.",
                     "What would you check first?") if trouble else
                    ("Is it worth upgrading, or should I keep what I have?",
                     "What has your experience been after a year or two?",
                     "I would love to hear from anyone who uses it the same way.",
                     "Any tips for getting the most out of it?"))
    return f"{s1} {s2}\n\n{s3}"


def _reply(rng: random.Random, cat: CategoryDef, brand: str, gear: Gear) -> str:
    it, they = ("them", "they") if gear.plural else ("it", "it")
    parts = rng.sample([*_GENERIC, *cat.tips,
                        f"I ran the {brand} {gear.noun} for {rng.choice(('a season', 'two years', 'a few months'))} "
                        f"and {'they were' if gear.plural else 'it was'} fine {rng.choice(cat.when)}.",
                        f"Before you send {it} back, try {rng.choice(cat.uses)} for a week and see whether "
                        f"{they} settle{'' if gear.plural else 's'} down."], rng.choice((1, 2, 2, 3)))
    return " ".join(parts)


def world(seed: int, n_topics: int = N_TOPICS, n_users: int = N_USERS) -> World:
    """The forum content of ``seed``: the same seed always gives the same content (see the module doc)."""
    rng = random.Random(f"spirit-world-{seed}")
    pool = pool_for(seed, PURPOSE)
    members = _members(rng, pool, n_users)
    names = [m.username for m in members]
    regulars = names[: n_users // 5]  # a fifth of the members write half the posts, as on real forums
    bs = brands(seed)
    spammers = [m.username for m in members[-3:]]
    topics: list[Topic] = []
    titles: set[str] = set()
    minute = 0
    while len(topics) < n_topics:
        ci = rng.randrange(len(CATEGORIES))
        cat = CATEGORIES[ci]
        brand, gear = rng.choice(bs), rng.choice(cat.gear)
        title = _title(rng, cat, brand, gear)
        if title in titles:
            continue
        titles.add(title)
        minute += rng.randint(30, 240)

        def who() -> str:
            return rng.choice(regulars) if rng.random() < 0.5 else rng.choice(names[:-3])

        author = who()
        first = Comment(author, _opening(rng, cat, brand, gear, title), minute,
                        tuple(rng.sample(names, rng.choice((0, 0, 1, 2, 3, 5)))))
        comments, t = [first], minute
        n_rep = rng.choices((0, 1, 2, 3, 4, 5, 6, 8, 12), weights=(3, 3, 4, 4, 3, 2, 2, 1, 1))[0]
        for k in range(n_rep):
            t += rng.randint(5, 2000)
            by = who()
            body = (rng.choice(_THANKS).format(fix=rng.choice(_FIXES)) if by == author and k == n_rep - 1 and k
                    else _reply(rng, cat, brand, gear))
            n_likes = rng.choices((0, 1, 2, 3, 4, 6, 9), weights=(5, 4, 3, 2, 2, 1, 1))[0]
            likers = tuple(sorted(rng.sample(names, n_likes)))
            comments.append(Comment(by, body, t, likers))
        if n_rep >= 2 and rng.random() < 0.03:  # a spammer's reply slipped in
            k = rng.randrange(1, len(comments))
            comments.insert(k, Comment(rng.choice(spammers), rng.choice(SPAM), comments[k - 1].minute + 1, spam=True))
        subs = tuple(sorted({c.author for c in comments if c.author not in spammers}
                            | set(rng.sample(names, rng.choice((0, 0, 1, 2))))))
        favs = tuple(sorted(rng.sample(names, rng.choice((0, 0, 0, 1, 2)))))
        topics.append(Topic(title, ci, brand, gear.noun, tuple(comments), is_pinned=rng.random() < 0.01,
                            is_closed=rng.random() < 0.04, subscribers=subs, favorites=favs))
    cats = tuple(Category(c.title, c.description) for c in CATEGORIES)
    return World(seed, members, cats, bs, tuple(topics))


def gear_of(topic: Topic) -> Gear:
    return next(g for g in CATEGORIES[topic.category].gear if g.noun == topic.gear)
