"""The seed's wiki content, a pure function of the seed: a gazetteer of towns, each page with
an infobox table (with the region's flag and, for some towns, a survey-sheet map), sections,
links to neighbouring towns and a sortable table of districts; one list page per region with
a sortable table of its towns; and the images, drawn locally with Pillow. The pages are
written as a MediaWiki XML dump that MediaWiki's own ``importDump.php`` loads, the images go
in with its ``importImages.php``.

Held-out seeds (at or above :data:`~webgauge.arena.content.pools.HELDOUT_BASE`) name their
towns with words coined from the seed's content key (:mod:`webgauge.arena.content.synth`), so
the public code run at seeds chosen without the secret does not reproduce them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from ...content.pools import content_key, slice_of_seed
from ...content.synth import vocabulary

__all__ = ["N_TOWNS", "REGIONS", "SHEET_CATEGORY", "Town", "World", "draw_images", "dump_xml", "flag_file",
           "list_text", "list_title", "page_text", "world"]

N_TOWNS = 120
N_SHEETS = 16  # survey sheets uploaded per seed
N_UNPLACED = 4  # of them not yet shown in their town's infobox
_A = ("Bel", "Cor", "Dun", "El", "Fen", "Gar", "Hol", "Ister", "Kel", "Lorn", "Mar", "Nor", "Orm", "Pell", "Quar",
      "Ros", "Sel", "Tarn", "Ul", "Ver", "Wick", "Yar", "Zell")
_PREFIXES = ("Upper", "Lower", "Great", "Little", "North", "South", "East", "West", "Kings", "Old", "Nether",
             "Long", "High", "Market", "Church")
_B = ("bridge", "ford", "haven", "mere", "stead", "wick", "holm", "by", "thorpe", "mouth", "dale", "field", "gate")
REGIONS = ("North Marches", "Lake District", "Coastal Plain", "High Moors", "River Valley", "Eastern Hills")
_INDUSTRY = ("fishing", "wool", "shipbuilding", "slate quarrying", "brewing", "glassmaking", "printing", "rail works")
_RIVERS = ("Aven", "Brae", "Colne", "Derwent", "Esk", "Frome", "Greta", "Irwell")
# each region's flag: two field colours and an emblem (drawn by draw_images)
_FLAGS = {"North Marches": ((32, 64, 128), (240, 240, 240), "cross"),
          "Lake District": ((20, 110, 140), (250, 210, 60), "wave"),
          "Coastal Plain": ((200, 60, 40), (250, 250, 250), "star"),
          "High Moors": ((90, 60, 120), (220, 190, 90), "triangle"),
          "River Valley": ((30, 120, 60), (240, 240, 240), "wave"),
          "Eastern Hills": ((160, 110, 30), (30, 40, 60), "disc")}
SHEET_CATEGORY = "Survey sheets"


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
    neighbours: tuple[str, ...] = ()  # towns this page links to in its Neighbours section
    sheet: int | None = None  # number of the town's survey sheet (File:Survey sheet N.png), if it has one
    map_shown: bool = False  # whether the infobox shows the sheet already
    listed_population: int | None = None  # the figure the region's list shows (None: the same as the infobox)


@dataclass(frozen=True)
class World:
    seed: int
    towns: tuple[Town, ...]

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


def _names(rng: random.Random, seed: int, n: int) -> list[str]:
    names: list[str] = []
    while len(names) < n:
        nm = rng.choice(_A) + rng.choice(_B)
        if nm not in names:
            names.append(nm)
    if slice_of_seed(seed) == "heldout":  # coined from the secret seed's key instead
        # each with a gazetteer prefix ("Upper Gastilbury"): a coined word alone has about ten million
        # spellings, and at 120 towns a world one in a hundred recurred in other worlds
        coined = vocabulary(content_key(seed), "mediawiki-towns", "place", n)
        return [f"{rng.choice(_PREFIXES)} {c}" for c in coined]
    return names


def world(seed: int, n: int = N_TOWNS) -> World:
    rng = random.Random(f"mediawiki-world-{seed}")
    names = _names(rng, seed, n)
    towns = []
    for nm in names:
        ds = tuple((f"{nm} {suffix}", rng.randint(800, 9000))
                   for suffix in rng.sample(("Old Town", "Harbour", "Northside", "Mill End", "Station Quarter",
                                             "Westfield", "Market Hill"), rng.randint(3, 5)))
        towns.append(Town(nm, rng.choice(REGIONS), sum(p for _, p in ds) + rng.randint(0, 3000),
                          rng.randint(1050, 1890), rng.randint(3, 640), rng.choice(_RIVERS), rng.choice(_INDUSTRY), ds))
    extra = random.Random(f"mediawiki-world-links-{seed}")
    sheets = extra.sample(range(10, 99), N_SHEETS)
    with_sheet = extra.sample(range(n), N_SHEETS)
    unplaced = set(with_sheet[:N_UNPLACED])
    stale = set(extra.sample(range(n), n // 6))
    out = []
    for k, t in enumerate(towns):
        nb = tuple(x.name for x in extra.sample([x for x in towns if x.name != t.name], 2))
        sheet = sheets[with_sheet.index(k)] if k in with_sheet else None
        listed = t.population - extra.randint(200, 1900) if k in stale else None
        out.append(Town(**{**t.__dict__, "neighbours": nb, "sheet": sheet, "map_shown": sheet is not None
                           and k not in unplaced, "listed_population": listed}))
    return World(seed, tuple(out))


def flag_file(region: str) -> str:
    return f"Flag of the {region}.png"


def sheet_file(number: int) -> str:
    return f"Survey sheet {number}.png"


def map_row(t: Town) -> str:
    return f"|-\n! Map\n| [[File:{sheet_file(t.sheet)}|220px]]\n" if t.sheet is not None else ""


def page_text(t: Town, *, show_map: bool | None = None) -> str:
    """The town's wikitext (``show_map`` overrides whether the infobox shows its survey sheet)."""
    rows = "\n".join(f"|-\n| {d} || {p:,}" for d, p in t.districts)
    shown = t.map_shown if show_map is None else show_map
    nbs = "\n".join(f"* [[{x}]]" for x in t.neighbours)
    return f"""{{| class="wikitable" style="float:right; width:22em"
|+ '''{t.name}'''
|-
| colspan="2" style="text-align:center" | [[File:{flag_file(t.region)}|90px]]
|-
! Region
| [[{list_title(t.region)}|{t.region}]]
|-
! Population
| {t.population:,}
|-
! Founded
| {t.founded}
|-
! Elevation
| {t.elevation_m} m
|-
! River
| {t.river}
{map_row(t) if shown else ""}|}}
'''{t.name}''' is a town in the [[{list_title(t.region)}|{t.region}]] on the River {t.river}, founded in {t.founded}.

== History ==
{t.name} grew around its {t.industry} trade in the nineteenth century. The town charter dates from {t.founded}.

== Geography ==
The town lies {t.elevation_m} metres above sea level on the banks of the {t.river}.

== Districts ==
{{| class="wikitable sortable"
! District !! Population
{rows}
|}}

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
    return f"""The '''{region}''' is one of the six regions of the gazetteer. Its towns, with the population
recorded at the last survey, the year each was founded and its river:

{{| class="wikitable sortable"
! Town !! Population !! Founded !! River
{body}
|}}

See also [[:Category:Towns in the {region}]].

[[Category:Regions]]
"""


def _page(title: str, ts: str, text: str) -> str:
    return f"""  <page>
    <title>{escape(title)}</title>
    <ns>0</ns>
    <revision>
      <timestamp>{ts}</timestamp>
      <contributor><username>Admin</username></contributor>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text xml:space="preserve">{escape(text)}</text>
    </revision>
  </page>"""


def dump_xml(w: World) -> str:
    """Town pages first (town ``k`` is page ``k + 2``, after the Main Page), then the region lists."""
    pages = []
    for i, t in enumerate(w.towns):
        ts = f"2026-01-{5 + i // 60:02d}T{9 + (i % 60) // 10:02d}:{(i % 10) * 6:02d}:00Z"
        pages.append(_page(t.name, ts, page_text(t)))
    for j, region in enumerate(REGIONS):
        pages.append(_page(list_title(region), f"2026-01-08T10:{j:02d}:00Z", list_text(w, region)))
    return ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n'
            + "\n".join(pages) + "\n</mediawiki>\n")


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
    return made
