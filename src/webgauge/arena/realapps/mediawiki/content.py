"""The seed's wiki content, a pure function of the seed: a gazetteer of towns, each page with
an infobox table, sections and a table of districts, written as a MediaWiki XML dump that
MediaWiki's own ``importDump.php`` loads."""

from __future__ import annotations

import random
from dataclasses import dataclass
from xml.sax.saxutils import escape

__all__ = ["N_TOWNS", "Town", "dump_xml", "page_text", "world"]

N_TOWNS = 120
_A = ("Bel", "Cor", "Dun", "El", "Fen", "Gar", "Hol", "Ister", "Kel", "Lorn", "Mar", "Nor", "Orm", "Pell", "Quar",
      "Ros", "Sel", "Tarn", "Ul", "Ver", "Wick", "Yar", "Zell")
_B = ("bridge", "ford", "haven", "mere", "stead", "wick", "holm", "by", "thorpe", "mouth", "dale", "field", "gate")
_REGIONS = ("North Marches", "Lake District", "Coastal Plain", "High Moors", "River Valley", "Eastern Hills")
_INDUSTRY = ("fishing", "wool", "shipbuilding", "slate quarrying", "brewing", "glassmaking", "printing", "rail works")
_RIVERS = ("Aven", "Brae", "Colne", "Derwent", "Esk", "Frome", "Greta", "Irwell")


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


def world(seed: int, n: int = N_TOWNS) -> tuple[Town, ...]:
    rng = random.Random(f"mediawiki-world-{seed}")
    names: list[str] = []
    while len(names) < n:
        nm = rng.choice(_A) + rng.choice(_B)
        if nm not in names:
            names.append(nm)
    towns = []
    for nm in names:
        ds = tuple((f"{nm} {suffix}", rng.randint(800, 9000))
                   for suffix in rng.sample(("Old Town", "Harbour", "Northside", "Mill End", "Station Quarter",
                                             "Westfield", "Market Hill"), rng.randint(3, 5)))
        towns.append(Town(nm, rng.choice(_REGIONS), sum(p for _, p in ds) + rng.randint(0, 3000),
                          rng.randint(1050, 1890), rng.randint(3, 640), rng.choice(_RIVERS), rng.choice(_INDUSTRY), ds))
    return tuple(towns)


def page_text(t: Town) -> str:
    rows = "\n".join(f"|-\n| {d} || {p:,}" for d, p in t.districts)
    return f"""{{| class="wikitable" style="float:right; width:22em"
|+ '''{t.name}'''
|-
! Region
| [[{t.region}]]
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
|}}
'''{t.name}''' is a town in the [[{t.region}]] on the River {t.river}, founded in {t.founded}.

== History ==
{t.name} grew around its {t.industry} trade in the nineteenth century. The town charter dates from {t.founded}.

== Geography ==
The town lies {t.elevation_m} metres above sea level on the banks of the {t.river}.

== Districts ==
{{| class="wikitable sortable"
! District !! Population
{rows}
|}}

[[Category:Towns in the {t.region}]]
"""


def dump_xml(towns: tuple[Town, ...]) -> str:
    pages = []
    for i, t in enumerate(towns):
        ts = f"2026-01-{5 + i // 60:02d}T{9 + (i % 60) // 10:02d}:{(i % 10) * 6:02d}:00Z"
        pages.append(f"""  <page>
    <title>{escape(t.name)}</title>
    <ns>0</ns>
    <revision>
      <timestamp>{ts}</timestamp>
      <contributor><username>Admin</username></contributor>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text xml:space="preserve">{escape(page_text(t))}</text>
    </revision>
  </page>""")
    return ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n'
            + "\n".join(pages) + "\n</mediawiki>\n")
