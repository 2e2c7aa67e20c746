"""The seed's wiki content, a pure function of the seed: a gazetteer of a thousand towns in six
regions, with their rivers and regions, written as a MediaWiki XML dump that MediaWiki's own
``importDump.php`` loads (images, drawn locally with Pillow, go in with its ``importImages.php``).

- **Town articles** use the wiki's own ``{{Infobox town}}`` template (defined in the dump,
  with the region's flag and, for some towns, a survey-sheet map), and have sections
  (history, geography, economy, landmarks), a sortable table of districts and links to
  neighbouring towns of the same region. Their prose is built with agreement
  (:mod:`webgauge.arena.content.grammar`): "The woollen mills employ ...", "A fire destroyed ...".
- **Region articles** (``{{Infobox region}}``, the region's flag and map), one **list page**
  per region with a sortable table of its towns, **river articles** (``{{Infobox river}}``,
  a drawn course map), category pages and the three infobox templates.
- The **Main Page** is the gazetteer's portal: a featured town, the regions with their flags,
  the rivers, "did you know" facts and the article count.
- Pages are written by several editors (user accounts created before the import).

Held-out seeds (at or above :data:`~webgauge.arena.content.pools.HELDOUT_BASE`) name their
towns with words coined from the seed's content key (:mod:`webgauge.arena.content.synth`), so
the public code run at seeds chosen without the secret does not reproduce them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from ...content.grammar import Noun, clause, join, sentence
from ...content.pools import content_key, slice_of_seed
from ...content.synth import vocabulary

__all__ = ["EDITORS", "N_TOWNS", "REGIONS", "RIVERS", "SHEET_CATEGORY", "Town", "World", "draw_images", "dump_xml",
           "flag_file", "list_text", "list_title", "main_page_text", "map_row", "page_order", "page_text", "sheet_file",
           "world"]

N_TOWNS = 1000
N_SHEETS = 16  # survey sheets uploaded per seed
N_UNPLACED = 4  # of them not yet shown in their town's infobox
STALE_PER_REGION = (3, 5)  # towns per region whose population the region's list shows out of date
_A = ("Bel", "Cor", "Dun", "El", "Fen", "Gar", "Hol", "Ister", "Kel", "Lorn", "Mar", "Nor", "Orm", "Pell", "Quar",
      "Ros", "Sel", "Tarn", "Ul", "Ver", "Wick", "Yar", "Zell", "Ash", "Bram", "Calder", "Dray", "Eld", "Fal",
      "Glen", "Hart", "Ing", "Kirk", "Lang", "Mel", "Ox", "Pen", "Rad", "Stan", "Thorn", "Wal", "Whit")
_PREFIXES = ("Upper", "Lower", "Great", "Little", "North", "South", "East", "West", "Kings", "Old", "Nether",
             "Long", "High", "Market", "Church")
_B = ("bridge", "ford", "haven", "mere", "stead", "wick", "holm", "by", "thorpe", "mouth", "dale", "field", "gate",
      "ley", "ton", "burn", "combe", "hurst", "worth", "bury")
REGIONS = ("North Marches", "Lake District", "Coastal Plain", "High Moors", "River Valley", "Eastern Hills")
RIVERS = ("Aven", "Brae", "Colne", "Derwent", "Esk", "Frome", "Greta", "Irwell", "Kennet", "Lune", "Mole", "Nidd",
          "Ouse", "Parrett", "Ribble", "Swale", "Tamar", "Ure", "Wear", "Wharfe", "Yare", "Alde", "Bure", "Coquet")
EDITORS = ("Ines Varga", "Tomas Reed", "Mira Holt", "Owen Price", "Selma Aydin")  # wiki users besides Admin
# (industry, the noun phrase that works in it); the phrase's number drives its verbs
_INDUSTRY = (("fishing", Noun("the fishing fleet", "sg")), ("wool", Noun("the woollen mills", "pl")),
             ("shipbuilding", Noun("the shipyards", "pl")), ("slate quarrying", Noun("the slate quarries", "pl")),
             ("brewing", Noun("the brewery", "sg")), ("glassmaking", Noun("the glass furnaces", "pl")),
             ("printing", Noun("the print shops", "pl")), ("rail engineering", Noun("the railway workshops", "pl")),
             ("paper", Noun("the paper mill", "sg")), ("pottery", Noun("the potteries", "pl")),
             ("tanning", Noun("the tannery", "sg")), ("market gardening", Noun("the market gardens", "pl")))
_LANDMARKS = (Noun("the parish church of St {saint}", "sg"), Noun("the old almshouses", "pl"),
              Noun("a medieval bridge", "sg"), Noun("the town hall", "sg"), Noun("two windmills", "pl"),
              Noun("the covered market", "sg"), Noun("the ruins of a priory", "pl"), Noun("the railway viaduct", "sg"),
              Noun("the harbour walls", "pl"), Noun("a Georgian assembly hall", "sg"))
_LANDMARK_VERBS = (("stand", "on the market square"), ("stand", "near the river"), ("draw", "visitors in summer"),
                   ("attract", "walkers from across the region"), ("host", "a weekly market"))
_SAINTS = ("Mary", "Peter", "Andrew", "Michael", "Margaret", "Oswald", "Bride", "Helen")
_EVENTS = ((Noun("a fire", "sg"), "destroy", "much of the old town in {y}"),
           (Noun("the railway", "sg"), "reach", "the town in {y}"),
           (Noun("two new bridges", "pl"), "cross", "the river by {y}"),
           (Noun("the first mills", "pl"), "appear", "along the {river} in {y}"),
           (Noun("floods", "pl"), "damage", "the lower streets in {y}"),
           (Noun("the market charter", "sg"), "make", "it a market town in {y}"))
# each region's flag: two field colours and an emblem (drawn by draw_images)
_FLAGS = {"North Marches": ((32, 64, 128), (240, 240, 240), "cross"),
          "Lake District": ((20, 110, 140), (250, 210, 60), "wave"),
          "Coastal Plain": ((200, 60, 40), (250, 250, 250), "star"),
          "High Moors": ((90, 60, 120), (220, 190, 90), "triangle"),
          "River Valley": ((30, 120, 60), (240, 240, 240), "wave"),
          "Eastern Hills": ((160, 110, 30), (30, 40, 60), "disc")}
SHEET_CATEGORY = "Survey sheets"
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TEMPLATES = ("Infobox town", "Infobox river", "Infobox region")


@dataclass(frozen=True)
class Town:
    name: str
    region: str
    population: int
    founded: int
    elevation_m: int
    river: str
    industry: str
    districts: tuple[tuple[str, int], ...]  # (district, population)
    neighbours: tuple[str, ...] = ()  # towns of the same region this page links to in its Neighbours section
    sheet: int | None = None  # number of the town's survey sheet (File:Survey sheet N.png), if it has one
    map_shown: bool = False  # whether the infobox shows the sheet already
    listed_population: int | None = None  # the figure the region's list shows (None: the same as the infobox)
    history: tuple[str, ...] = ()  # the sentences of the History section
    economy: tuple[str, ...] = ()
    landmarks: tuple[str, ...] = ()
    editor: str = "Admin"  # who wrote the page


@dataclass(frozen=True)
class River:
    name: str  # "Aven"
    length_km: int
    source: str  # a region
    mouth: str
    towns: tuple[str, ...]  # the towns on it, largest first


@dataclass(frozen=True)
class World:
    seed: int
    towns: tuple[Town, ...]
    rivers: tuple[River, ...] = ()
    featured: str = ""  # the Main Page's featured town

    def __iter__(self):
        return iter(self.towns)

    def __len__(self) -> int:
        return len(self.towns)

    def __getitem__(self, k):
        return self.towns[k]

    def in_region(self, region: str) -> tuple[Town, ...]:
        return tuple(t for t in self.towns if t.region == region)

    def linking_to(self, name: str) -> tuple[Town, ...]:
        """The towns whose pages link to ``name`` (its region's list links to it too)."""
        return tuple(t for t in self.towns if name in t.neighbours)

    def linked_elsewhere(self) -> frozenset[str]:
        """Towns that pages other than towns and region lists link to (the Main Page, rivers, regions)."""
        out = {self.featured}
        for r in self.rivers:
            out.update(r.towns[:3])
        for region in REGIONS:
            ts = self.in_region(region)
            if ts:
                out.add(max(ts, key=lambda t: t.population).name)
        return frozenset(out)


def _names(rng: random.Random, seed: int, n: int) -> list[str]:
    if slice_of_seed(seed) == "heldout":  # coined from the secret seed's key instead
        # each with a gazetteer prefix ("Upper Gastilbury"): a coined word alone has about ten million
        # spellings, and at this many towns a world one in a hundred recurred in other worlds
        coined = vocabulary(content_key(seed), "mediawiki-towns", "place", n)
        return [f"{rng.choice(_PREFIXES)} {c}" for c in coined]
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        nm = rng.choice(_A) + rng.choice(_B)
        if rng.random() < 0.35:
            nm = f"{rng.choice(_PREFIXES)} {nm}"
        if nm not in seen:
            seen.add(nm)
            names.append(nm)
    return names


def _prose(rng: random.Random, name: str, founded: int, river: str, industry: str) -> tuple[tuple[str, ...], ...]:
    """The History, Economy and Landmarks sentences of a town, each verb inflected for its subject."""
    workers = dict(_INDUSTRY)[industry]
    town = Noun(name, "sg")
    events = rng.sample(_EVENTS, 2)
    years = sorted(rng.sample(range(max(founded + 20, 1500), 1960), 2))
    history = (
        sentence(clause(town, "grow", "past",
                        f"around its {industry} trade in the {rng.choice(('eighteenth', 'nineteenth'))} century")),
        *(sentence(clause(s, v, "past", rest.format(y=y, river=river))) for (s, v, rest), y in zip(events, years,
                                                                                                     strict=True)),
        sentence(f"The town charter dates from {founded}") if rng.random() < 0.5 else
        sentence(clause(Noun("the oldest records", "pl"), "mention", "past", f"a settlement here in {founded}")),
    )
    economy = (
        sentence(clause(workers, "employ", rng.choice(("present", "past")),
                        f"about {rng.randint(2, 40) * 50:,} people")),
        sentence(clause(Noun(rng.choice(("the weekly market", "a livestock market", "the harbour")), "sg"), "serve",
                        "present", "the surrounding villages")),
        sentence(clause(Noun(rng.choice(("visitors", "walkers", "anglers")), "pl"), "keep", "present",
                        "the inns busy in summer")),
    )
    marks = []
    for lm in rng.sample(_LANDMARKS, 2):
        verb, rest = rng.choice(_LANDMARK_VERBS)
        marks.append(sentence(clause(Noun(lm.text.format(saint=rng.choice(_SAINTS)), lm.number), verb, "present",
                                     rest)))
    return history, economy, tuple(marks)


def world(seed: int, n: int = N_TOWNS) -> World:
    rng = random.Random(f"mediawiki-world-{seed}")
    names = _names(rng, seed, n)
    towns = []
    industries = [i for i, _ in _INDUSTRY]
    for nm in names:
        ds = tuple((f"{nm} {suffix}", rng.randint(800, 9000))
                   for suffix in rng.sample(("Old Town", "Harbour", "Northside", "Mill End", "Station Quarter",
                                             "Westfield", "Market Hill", "Southgate", "Abbey Fields"),
                                            rng.randint(3, 5)))
        towns.append(Town(nm, rng.choice(REGIONS), sum(p for _, p in ds) + rng.randint(0, 3000),
                          rng.randint(1050, 1890), rng.randint(3, 640), rng.choice(RIVERS), rng.choice(industries),
                          ds))
    extra = random.Random(f"mediawiki-world-links-{seed}")
    sheets = extra.sample(range(10, 99), N_SHEETS)
    with_sheet = extra.sample(range(n), N_SHEETS)
    unplaced = set(with_sheet[:N_UNPLACED])
    stale: set[int] = set()
    for region in REGIONS:
        ks = [k for k, t in enumerate(towns) if t.region == region]
        stale.update(extra.sample(ks, min(len(ks), extra.randint(*STALE_PER_REGION))))
    prose = random.Random(f"mediawiki-world-prose-{seed}")
    out = []
    by_region = {r: [x.name for x in towns if x.region == r] for r in REGIONS}
    for k, t in enumerate(towns):
        same = [x for x in by_region[t.region] if x != t.name]
        nb = tuple(extra.sample(same, min(len(same), extra.choice((2, 2, 3)))))
        sheet = sheets[with_sheet.index(k)] if k in with_sheet else None
        listed = t.population - extra.randint(200, 1900) if k in stale else None
        history, economy, marks = _prose(prose, t.name, t.founded, t.river, t.industry)
        out.append(Town(**{**t.__dict__, "neighbours": nb, "sheet": sheet, "map_shown": sheet is not None
                           and k not in unplaced, "listed_population": listed, "history": history,
                           "economy": economy, "landmarks": marks, "editor": prose.choice(("Admin", *EDITORS))}))
    rivers = []
    for r in RIVERS:
        on = sorted((t for t in out if t.river == r), key=lambda t: -t.population)
        regions = [t.region for t in on] or list(REGIONS)
        rivers.append(River(r, extra.randint(24, 260), max(REGIONS, key=regions.count),  # ties: REGIONS' order
                            extra.choice(("the North Sea", "the Irish Sea", "the estuary at Saltmouth",
                                          f"the River {extra.choice(RIVERS)}")), tuple(t.name for t in on)))
    featured = max((t for t in out if t.sheet is None), key=lambda t: (len(t.districts), t.population)).name
    return World(seed, tuple(out), tuple(rivers), featured)


def flag_file(region: str) -> str:
    return f"Flag of the {region}.png"


def sheet_file(number: int) -> str:
    return f"Survey sheet {number}.png"


def river_file(river: str) -> str:
    return f"Course of the River {river}.png"


def region_map_file(region: str) -> str:
    return f"Map of the {region}.png"


def map_row(t: Town) -> str:
    """The infobox line that shows the town's survey sheet ("" for a town without one)."""
    return f"| map = {sheet_file(t.sheet)}\n" if t.sheet is not None else ""


def page_text(t: Town, *, show_map: bool | None = None) -> str:
    """The town's wikitext (``show_map`` overrides whether the infobox shows its survey sheet)."""
    rows = "\n".join(f"|-\n| {d} || {p:,}" for d, p in t.districts)
    shown = t.map_shown if show_map is None else show_map
    nbs = "\n".join(f"* [[{x}]]" for x in t.neighbours)
    return f"""{{{{Infobox town
| name = {t.name}
| flag = {flag_file(t.region)}
| region = {t.region}
| population = {t.population:,}
| founded = {t.founded}
| elevation = {t.elevation_m}
| river = {t.river}
{map_row(t) if shown else ""}}}}}
'''{t.name}''' is a town in the [[{t.region}]] on the [[River {t.river}]], founded in {t.founded}. \
It lies {t.elevation_m} metres above sea level and is one of the towns on the \
[[{list_title(t.region)}|list of towns in the {t.region}]].

== History ==
{" ".join(t.history)}

== Geography ==
The town lies on the banks of the {t.river}, {t.elevation_m} metres above sea level. \
{sentence(clause(Noun(f"its {_WORDS[len(t.districts)]} districts", "pl"), "stretch", "present", "along both banks"))}

== Economy ==
{" ".join(t.economy)}

== Districts ==
{{| class="wikitable sortable"
! District !! Population
{rows}
|}}

== Landmarks ==
{" ".join(t.landmarks)}

== Neighbours ==
{nbs}

[[Category:Towns in the {t.region}]]
"""


def list_title(region: str) -> str:
    return f"List of towns in the {region}"


def list_row(t: Town, population: int | None = None) -> str:
    pop = population if population is not None else (t.listed_population or t.population)
    return f"|-\n| [[{t.name}]] || {pop:,} || {t.founded} || {t.river}"


def list_text(w: World, region: str, *, current: bool = False, rename: tuple[str, str] | None = None) -> str:
    """The region's list page; ``current``: every row with the infobox's population (what the list
    should say); ``rename=(old, new)``: the link to ``old`` points at ``new`` instead."""
    rows = []
    for t in w.in_region(region):
        row = list_row(t, t.population if current else None)
        if rename and t.name == rename[0]:
            row = row.replace(f"[[{rename[0]}]]", f"[[{rename[1]}]]")
        rows.append(row)
    body = "\n".join(rows)
    return f"""The '''[[{region}]]''' is one of the six regions of the gazetteer. Its towns, with the population
recorded at the last survey, the year each was founded and its river:

{{| class="wikitable sortable"
! Town !! Population !! Founded !! River
{body}
|}}

See also [[:Category:Towns in the {region}]].

[[Category:Regions]]
"""


def river_text(w: World, r: River) -> str:
    major = r.towns[:3]
    n = len(r.towns)
    towns = Noun(f"{n} towns of the gazetteer", "pl") if n != 1 else Noun("one town of the gazetteer", "sg")
    return f"""{{{{Infobox river
| name = River {r.name}
| image = {river_file(r.name)}
| length = {r.length_km}
| source = {r.source}
| mouth = {r.mouth}
}}}}
The '''River {r.name}''' rises in the [[{r.source}]] and flows {r.length_km} kilometres to {r.mouth}. \
{sentence(clause(towns, "lie", "present", "on its banks"))}

== Course ==
{sentence(clause(Noun("the upper river", "sg"), "run", "present", "through moorland and narrow valleys"))} \
{sentence(clause(Noun("its lower reaches", "pl"), "flood", "present", "most winters"))}

== Towns ==
The largest towns on the {r.name} are {join([f"[[{x}]]" for x in major])}.

[[Category:Rivers]]
"""


def region_text(w: World, region: str) -> str:
    ts = w.in_region(region)
    largest = max(ts, key=lambda t: t.population) if ts else None
    rivers = sorted({t.river for t in ts})
    return f"""{{{{Infobox region
| name = {region}
| flag = {flag_file(region)}
| map = {region_map_file(region)}
| towns = {len(ts)}
| largest = {largest.name if largest else ""}
}}}}
The '''{region}''' is one of the six regions of the gazetteer. \
{sentence(clause(Noun(f"its {len(ts)} towns", "pl"), "lie", "present", f"along {len(rivers)} rivers"))} \
The largest is [[{largest.name if largest else region}]].

== Towns ==
Every town of the region is in the [[{list_title(region)}]], with its population, founding year and river.

== Rivers ==
{join([f"[[River {r}|{r}]]" for r in rivers])}.

[[Category:Regions]]
"""


def main_page_text(w: World) -> str:
    f = next(t for t in w.towns if t.name == w.featured)
    facts = random.Random(f"mediawiki-main-{w.seed}").sample(list(w.rivers), 3)
    regions = "\n".join(f"|-\n| [[File:{flag_file(r)}|40px]] || [[{r}]] || {len(w.in_region(r))} || "
                        f"[[{list_title(r)}|list]]" for r in REGIONS)
    did = "\n".join(f"* ... that the [[River {r.name}]] runs for {r.length_km} kilometres?" for r in facts)
    return f"""__NOTOC__
<div style="border:1px solid #a2a9b1; background:#f8f9fa; padding:0.6em 1em; margin-bottom:1em">
'''Welcome to the Gazetteer Wiki''', the gazetteer of the six regions: \
[[Special:Statistics|{{{{NUMBEROFARTICLES}}}} articles]] on towns, rivers and regions.
</div>

== Featured town ==
[[File:{flag_file(f.region)}|right|80px]]
'''[[{f.name}]]''' is a town in the [[{f.region}]] on the [[River {f.river}]], founded in {f.founded}. \
{f.history[0]} ([[{f.name}|more ...]])

== Regions ==
{{| class="wikitable"
! Flag !! Region !! Towns !! List
{regions}
|}}

== Rivers ==
{" · ".join(f"[[River {r.name}|{r.name}]]" for r in w.rivers)}

== Did you know ... ==
{did}

== Browse ==
[[:Category:Regions|Regions]] · [[:Category:Rivers|Rivers]] · [[:Category:{SHEET_CATEGORY}|Survey sheets]] · \
[[Special:AllPages|All pages]]
"""


_BOX = 'class="infobox wikitable" style="float:right; clear:right; width:22em; margin:0 0 1em 1em"'
_INFOBOX_TOWN = """<includeonly>{| @BOX@
|+ '''{{{name|{{PAGENAME}}}}}'''
|-
| colspan="2" style="text-align:center" | [[File:{{{flag}}}|90px]]
|-
! Region
| [[{{{region}}}]]
|-
! Population
| {{{population}}}
|-
! Founded
| {{{founded}}}
|-
! Elevation
| {{{elevation}}} m
|-
! River
| [[River {{{river}}}|{{{river}}}]]
{{#if:{{{map|}}}|
{{!}}-
! Map
{{!}} [[File:{{{map}}}|220px]]
}}
|}</includeonly><noinclude>The gazetteer's town infobox. Parameters: name, flag, region, population, founded, \
elevation (metres), river and, for a town whose survey sheet is uploaded, map (the sheet's file name).
[[Category:Infobox templates]]</noinclude>""".replace("@BOX@", _BOX)

_INFOBOX_RIVER = """<includeonly>{| @BOX@
|+ '''{{{name}}}'''
|-
| colspan="2" style="text-align:center" | [[File:{{{image}}}|240px]]
|-
! Length
| {{{length}}} km
|-
! Source
| [[{{{source}}}]]
|-
! Mouth
| {{{mouth}}}
|}</includeonly><noinclude>The gazetteer's river infobox: name, image, length (km), source (a region), mouth.
[[Category:Infobox templates]]</noinclude>""".replace("@BOX@", _BOX)

_INFOBOX_REGION = """<includeonly>{| @BOX@
|+ '''{{{name}}}'''
|-
| colspan="2" style="text-align:center" | [[File:{{{flag}}}|120px]]
|-
| colspan="2" style="text-align:center" | [[File:{{{map}}}|240px]]
|-
! Towns
| {{{towns}}}
|-
! Largest town
| [[{{{largest}}}]]
|}</includeonly><noinclude>The gazetteer's region infobox: name, flag, map, towns, largest.
[[Category:Infobox templates]]</noinclude>""".replace("@BOX@", _BOX)


def page_order(w: World) -> list[tuple[int, str, str, str, str]]:
    """Every page of the dump in import order: (namespace, title, timestamp, editor, wikitext). Town
    ``k`` becomes page ``k + 2`` (the Main Page, made by the installer, is page 1), the region lists
    follow; the Main Page's own revision comes last."""
    out: list[tuple[int, str, str, str, str]] = []
    for i, t in enumerate(w.towns):
        ts = f"2026-01-{5 + i // 400:02d}T{8 + (i % 400) // 40:02d}:{(i % 40) * 1 + 10:02d}:00Z"
        out.append((0, t.name, ts, t.editor, page_text(t)))
    for j, region in enumerate(REGIONS):
        out.append((0, list_title(region), f"2026-01-08T10:{j:02d}:00Z", EDITORS[j % len(EDITORS)],
                    list_text(w, region)))
    for j, region in enumerate(REGIONS):
        out.append((0, region, f"2026-01-08T11:{j:02d}:00Z", EDITORS[(j + 1) % len(EDITORS)], region_text(w, region)))
    for j, r in enumerate(w.rivers):
        out.append((0, f"River {r.name}", f"2026-01-08T12:{j:02d}:00Z", EDITORS[(j + 2) % len(EDITORS)],
                    river_text(w, r)))
    for j, (name, text) in enumerate(zip(TEMPLATES, (_INFOBOX_TOWN, _INFOBOX_RIVER, _INFOBOX_REGION), strict=True)):
        out.append((10, f"Template:{name}", f"2026-01-04T09:{j:02d}:00Z", "Admin", text))
    cats = [(f"Towns in the {r}", f"Towns of the [[{r}]], one of the gazetteer's six regions.\n\n"
                                  "[[Category:Towns]]") for r in REGIONS]
    cats += [("Towns", "Every town of the gazetteer, by region."), ("Rivers", "The gazetteer's rivers."),
             ("Regions", "The six regions of the gazetteer and their lists of towns."),
             (SHEET_CATEGORY, "Survey sheets of the gazetteer at 1:25,000, each showing one town."),
             ("Flags", "The regions' flags."), ("Infobox templates", "Templates for the infoboxes of articles.")]
    for j, (name, text) in enumerate(cats):
        out.append((14, f"Category:{name}", f"2026-01-04T10:{j:02d}:00Z", "Admin", text))
    out.append((0, "Main Page", "2026-01-09T12:00:00Z", "Admin", main_page_text(w)))
    return out


def _page(ns: int, title: str, ts: str, editor: str, text: str) -> str:
    return f"""  <page>
    <title>{escape(title)}</title>
    <ns>{ns}</ns>
    <revision>
      <timestamp>{ts}</timestamp>
      <contributor><username>{escape(editor)}</username></contributor>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text xml:space="preserve">{escape(text)}</text>
    </revision>
  </page>"""


def dump_xml(w: World) -> str:
    """The dump :func:`page_order` lists, as MediaWiki's export format."""
    return ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n'
            + "\n".join(_page(*p) for p in page_order(w)) + "\n</mediawiki>\n")


def draw_images(w: World, out: Path) -> list[Path]:
    """Draw the region flags and the seed's survey sheets into ``out`` as PNG files, each with a
    ``.txt`` description (importImages.php's ``--comment-ext=txt``); returns the images."""
    from PIL import Image, ImageDraw, ImageFont

    out.mkdir(parents=True, exist_ok=True)
    made = []
    for region, (field, ink, emblem) in _FLAGS.items():
        img = Image.new("RGB", (180, 120), field)
        d = ImageDraw.Draw(img)
        if emblem == "cross":
            d.rectangle((0, 50, 180, 70), fill=ink)
            d.rectangle((60, 0, 80, 120), fill=ink)
        elif emblem == "wave":
            for y in (45, 65, 85):
                d.line([(x, y + (8 if (x // 30) % 2 else -8)) for x in range(0, 181, 30)], fill=ink, width=7)
        elif emblem == "star":
            d.polygon([(90, 20), (102, 50), (135, 50), (108, 70), (118, 100), (90, 82), (62, 100), (72, 70),
                       (45, 50), (78, 50)], fill=ink)
        elif emblem == "triangle":
            d.polygon([(0, 0), (90, 60), (0, 120)], fill=ink)
        else:
            d.ellipse((60, 30, 120, 90), fill=ink)
        d.rectangle((0, 0, 179, 119), outline=(40, 40, 40))
        p = out / flag_file(region)
        img.save(p, optimize=True)
        p.with_suffix(".png.txt").write_text(f"Flag of the {region}, one of the gazetteer's six regions.\n\n"
                                             "[[Category:Flags]]", encoding="utf-8")
        made.append(p)
    big, small = ImageFont.load_default(size=26), ImageFont.load_default(size=14)
    for t in w.towns:
        if t.sheet is None:
            continue
        rng = random.Random(f"mediawiki-sheet-{w.seed}-{t.name}")
        img = Image.new("RGB", (420, 300), (246, 241, 222))
        d = ImageDraw.Draw(img)
        for x in range(0, 420, 60):  # grid
            d.line([(x, 0), (x, 300)], fill=(215, 205, 180))
        for y in range(0, 300, 60):
            d.line([(0, y), (420, y)], fill=(215, 205, 180))
        river = [(0, rng.randint(120, 260))]
        for x in range(60, 481, 60):
            river.append((x, max(80, min(290, river[-1][1] + rng.randint(-45, 45)))))
        d.line(river, fill=(70, 130, 200), width=9)
        cx, cy = rng.randint(150, 270), rng.randint(110, 190)
        pts = [(cx + rng.randint(40, 80) * c, cy + rng.randint(30, 60) * s)
               for c, s in ((1, 0), (0.7, 0.7), (0, 1), (-0.7, 0.7), (-1, 0), (-0.7, -0.7), (0, -1), (0.7, -0.7))]
        d.polygon(pts, fill=(225, 170, 140), outline=(150, 80, 60))
        d.rectangle((0, 0, 420, 44), fill=(250, 248, 240))
        d.text((12, 8), t.name, fill=(30, 30, 30), font=big)
        d.text((300, 16), f"Sheet {t.sheet}", fill=(90, 90, 90), font=small)
        d.text((12, 276), f"River {t.river}", fill=(40, 80, 150), font=small)
        d.rectangle((0, 0, 419, 299), outline=(60, 60, 60), width=2)
        p = out / sheet_file(t.sheet)
        img.save(p, optimize=True)
        p.with_suffix(".png.txt").write_text("Survey sheet of the gazetteer, scale 1:25,000.\n\n"
                                             f"[[Category:{SHEET_CATEGORY}]]", encoding="utf-8")
        made.append(p)
    for r in w.rivers:
        made.append(_river_map(r, out / river_file(r.name), big, small))
    for region in REGIONS:
        made.append(_region_map(w, region, out / region_map_file(region), big, small))
    return made


def _river_map(r: River, p: Path, big, small) -> Path:
    """The river's course: a meandering blue line from source to mouth with its largest towns marked."""
    from PIL import Image, ImageDraw

    rng = random.Random(f"mediawiki-river-{r.name}-{r.length_km}")
    img = Image.new("RGB", (480, 280), (236, 242, 228))
    d = ImageDraw.Draw(img)
    for _ in range(14):  # hills
        x, y, s = rng.randint(0, 480), rng.randint(40, 280), rng.randint(20, 60)
        d.ellipse((x - s, y - s // 2, x + s, y + s // 2), fill=(222, 230, 208))
    pts = [(10, rng.randint(80, 200))]
    while pts[-1][0] < 470:
        pts.append((pts[-1][0] + rng.randint(25, 45), max(60, min(260, pts[-1][1] + rng.randint(-35, 35)))))
    d.line(pts, fill=(60, 120, 200), width=6, joint="curve")
    for k, name in enumerate(r.towns[:3]):
        x, y = pts[min(len(pts) - 1, 2 + k * (len(pts) // 3))]
        d.ellipse((x - 6, y - 6, x + 6, y + 6), fill=(180, 50, 40), outline=(60, 20, 20))
        d.text((x + 8, y - 18), name, fill=(40, 40, 40), font=small)
    d.rectangle((0, 0, 480, 36), fill=(250, 250, 246))
    d.text((10, 5), f"River {r.name}", fill=(20, 40, 90), font=big)
    d.text((330, 12), f"{r.length_km} km", fill=(90, 90, 90), font=small)
    d.rectangle((0, 0, 479, 279), outline=(60, 60, 60), width=2)
    img.save(p, optimize=True)
    p.with_suffix(".png.txt").write_text(f"Course of the River {r.name} with its largest towns.\n\n"
                                         "[[Category:Rivers]]", encoding="utf-8")
    return p


def _region_map(w: World, region: str, p: Path, big, small) -> Path:
    """The region's outline with a dot per town (the five largest named)."""
    from PIL import Image, ImageDraw

    field, ink, _ = _FLAGS[region]
    rng = random.Random(f"mediawiki-region-{w.seed}-{region}")
    img = Image.new("RGB", (480, 360), (244, 246, 250))
    d = ImageDraw.Draw(img)
    cx, cy = 240, 200
    outline = [(cx + rng.randint(150, 210) * c, cy + rng.randint(100, 140) * s)
               for c, s in ((1, 0), (0.8, 0.6), (0.3, 0.95), (-0.3, 0.95), (-0.8, 0.6), (-1, 0), (-0.8, -0.6),
                            (-0.3, -0.95), (0.3, -0.95), (0.8, -0.6))]
    d.polygon(outline, fill=tuple(min(255, c // 3 + 170) for c in field), outline=field)
    towns = sorted(w.in_region(region), key=lambda t: -t.population)
    for k, t in enumerate(towns):
        x, y = cx + rng.randint(-150, 150), cy + rng.randint(-90, 100)
        rad = 5 if k < 5 else 2
        d.ellipse((x - rad, y - rad, x + rad, y + rad), fill=(40, 40, 40) if k < 5 else (110, 110, 110))
        if k < 5:
            d.text((x + 7, y - 8), t.name, fill=(20, 20, 20), font=small)
    d.rectangle((0, 0, 480, 40), fill=field)
    d.text((12, 6), region, fill=ink, font=big)
    d.rectangle((0, 0, 479, 359), outline=(60, 60, 60), width=2)
    img.save(p, optimize=True)
    p.with_suffix(".png.txt").write_text(f"Map of the {region} with its towns.\n\n[[Category:Regions]]",
                                         encoding="utf-8")
    return p
