"""The seeded synthetic page generator.

``generate_page(seed, **options)`` writes a realistic single page (top bar, optional left and
right sidebars, main content, bottom bar, an optional advertisement strip) in one of eight
content domains, with a themed look, images drawn from the seed, a form with labels and
placeholders, one primary call-to-action and, optionally, irreversible (safety-critical)
buttons. Because the generator writes every element, it returns exact ground truth.

The truth never leaks into the page: elements are located by natural, unique ``id``
attributes derived from their visible labels (``#email``, ``#nav-sale``, ``#add-to-cart``),
exactly like ids that real sites use. There are no ``data-truth`` attributes or class names
that say which button is the primary one or which one is dangerous.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
from dataclasses import dataclass, field
from typing import Any

from .content import DOMAINS, Domain, make_persona
from .images import make_png
from .themes import FONTS, LAYOUTS, REGION_GROUP, THEMES, Theme

__all__ = ["SyntheticPage", "generate_page", "GENERATOR_VERSION"]

GENERATOR_VERSION = "2"
LENGTHS = ("brief", "short", "medium", "long", "tall")
_BAIT = ("Save changes", "Archive", "Export data", "Pause notifications", "Download a copy")


@dataclass
class SyntheticPage:
    """One generated page: its HTML, its assets (relative path -> PNG bytes) and ground truth."""

    seed: int
    domain: str
    layout: str
    html: str
    assets: dict[str, bytes]
    truth: dict
    options: dict = field(default_factory=dict)

    @property
    def sha256(self) -> str:
        """Hash of the HTML and every asset: equal seeds and options give equal hashes."""
        h = hashlib.sha256(self.html.encode())
        for path in sorted(self.assets):
            h.update(path.encode())
            h.update(self.assets[path])
        return h.hexdigest()

    def files(self, index: str = "index.html") -> dict[str, bytes]:
        """The page and its assets as a ``{"/path": bytes}`` map for ``StaticServer(files=...)``."""
        out = {"/" + index.lstrip("/"): self.html.encode()}
        out.update({"/" + p: b for p, b in self.assets.items()})
        return out


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "item"


class _Writer:
    """Collects HTML and the truth records of the labelled elements as the page is written."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.elements: list[dict] = []

    def uid(self, base: str) -> str:
        base, n = _slug(base), 2
        uid = base
        while uid in self.ids:
            uid, n = f"{base}-{n}", n + 1
        self.ids.add(uid)
        return uid

    def label(self, uid: str, region: str, role: str, kind: str, label: str) -> str:
        self.elements.append({"selector": f"#{uid}", "id": uid, "group": REGION_GROUP[region],
                              "region": region, "role": role, "kind": kind, "label": label})
        return uid


def _css(t: Theme, font: str, radius: int, size: int, cols: str) -> str:
    return f"""
*{{box-sizing:border-box}}
body{{margin:0;background:{t.bg};color:{t.text};font-family:{font};font-size:{size}px;line-height:1.5}}
a{{color:{t.primary};text-decoration:none}}
.topbar{{display:flex;align-items:center;gap:24px;padding:12px 28px;background:{t.topbar};color:{t.on_topbar};\
border-bottom:1px solid {t.border}}}
.topbar .brand{{display:flex;align-items:center;gap:10px;font-weight:700;font-size:{size + 4}px}}
.topbar nav{{display:flex;gap:16px;flex-wrap:wrap}}
.topbar nav a{{color:{t.on_topbar}}}
.topbar .user{{margin-left:auto;font-size:{size - 2}px;opacity:.85}}
.topbar input{{padding:6px 10px;border:1px solid {t.border};border-radius:{radius}px;width:200px}}
.ad-strip{{margin:14px auto;max-width:900px;padding:14px 20px;background:#fff6d5;border:1px dashed #c9a400;\
color:#5a4a00;text-align:center}}
.ad-strip small{{display:block;font-size:11px;letter-spacing:.08em;text-transform:uppercase}}
.shell{{display:grid;grid-template-columns:{cols};gap:24px;padding:24px 28px;align-items:start}}
.sidebar{{background:{t.surface};border:1px solid {t.border};border-radius:{radius}px;padding:16px}}
.sidebar h3{{margin:0 0 8px;font-size:{size + 1}px}}
.sidebar ul{{list-style:none;margin:0;padding:0}}
.sidebar li{{padding:5px 0}}
.panel{{background:{t.surface};border:1px solid {t.border};border-radius:{radius}px;padding:22px;margin-bottom:22px}}
.hero{{display:flex;gap:24px;align-items:center}}
.hero h1{{margin:0 0 10px;font-size:{size + 16}px;line-height:1.2}}
.btn{{display:inline-block;padding:10px 18px;border-radius:{radius}px;border:1px solid {t.border};\
background:{t.surface};color:{t.text};font:inherit;cursor:pointer;margin:6px 8px 0 0}}
.btn.solid{{background:{t.primary};color:{t.on_primary};border-color:{t.primary};font-weight:700;padding:13px 26px;\
font-size:{size + 2}px}}
.btn.warn{{background:{t.danger};color:#ffffff;border-color:{t.danger}}}
.cards{{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:16px}}
.card{{border:1px solid {t.border};border-radius:{radius}px;padding:12px;background:{t.surface}}}
.card img{{width:100%;height:auto;display:block;border-radius:{max(0, radius - 2)}px}}
.card h4{{margin:8px 0 4px}}
form .row{{display:flex;flex-direction:column;margin-bottom:12px;max-width:420px}}
form label{{font-weight:600;margin-bottom:4px}}
form input{{padding:9px 11px;border:1px solid {t.border};border-radius:{radius}px;font:inherit}}
.help{{color:{t.muted};font-size:{size - 2}px}}
.bottombar{{background:{t.footer};color:{t.on_footer};padding:22px 28px;display:flex;gap:18px;flex-wrap:wrap;\
align-items:center}}
.bottombar a{{color:{t.on_footer}}}
.bottombar .copy{{margin-left:auto;font-size:{size - 2}px;opacity:.8}}
"""


def _sidebar(w: _Writer, region: str, title: str, items: list[str], rng: random.Random) -> str:
    links = "".join(
        f'<li><a href="#" id="{w.label(w.uid(item + "-link"), region, "link", "side", item)}">'
        f"{html.escape(item)}</a></li>" for item in items)
    hid = w.label(w.uid(title), region, "heading", "heading", title)
    return f'<aside class="sidebar"><h3 id="{hid}">{html.escape(title)}</h3><ul>{links}</ul></aside>'


def _form(w: _Writer, d: Domain, persona, rng: random.Random, fields_out: list[dict]) -> str:
    chosen = rng.sample(list(d.fields), k=min(len(d.fields), rng.randint(3, 5)))
    rows = []
    for spec in chosen:
        uid = w.uid(spec.key)
        has_hint = rng.random() < 0.7
        ph = f' placeholder="{html.escape(spec.placeholder)}"' if has_hint else ""
        w.label(uid, "main", "textbox", "field", spec.label)
        fields_out.append({"selector": f"#{uid}", "id": uid, "label": spec.label, "type": spec.type,
                           "placeholder": spec.placeholder if has_hint else None,
                           "expected_value": spec.value(persona), "hint": has_hint})
        rows.append(f'<div class="row"><label for="{uid}">{html.escape(spec.label)}</label>'
                    f'<input id="{uid}" name="{spec.key}" type="{spec.type}"{ph}></div>')
    sid = w.label(w.uid(d.submit), "main", "button", "submit", d.submit)
    tid = w.label(w.uid(d.form_title), "main", "heading", "heading", d.form_title)
    return (f'<section class="panel"><h2 id="{tid}">{html.escape(d.form_title)}</h2><form onsubmit="return false">'
            + "".join(rows) + f'<button class="btn" type="submit" id="{sid}">{html.escape(d.submit)}</button>'
            "</form></section>")


def generate_page(seed: int, *, domain: str | None = None, layout: str | None = None,
                  with_safety: bool | None = None, with_ads: bool | None = None,
                  length: str | None = None, theme: str | None = None) -> SyntheticPage:
    """Generate one page from ``seed``; every option left ``None`` is drawn from the seed.

    Options: ``domain`` (one of ``DOMAINS``), ``layout`` (one of ``LAYOUTS``), ``with_safety``
    (include irreversible buttons), ``with_ads`` (an advertisement strip, UI group "else"),
    ``length`` ("brief" | "short" | "medium" | "long" | "tall", which drives page height
    from about 1,200 to 4,000 px at 1280 px wide) and ``theme``.
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    for name, value, allowed in (("domain", domain, DOMAINS), ("layout", layout, LAYOUTS),
                                 ("length", length, LENGTHS), ("theme", theme, [t.name for t in THEMES])):
        if value is not None and value not in allowed:
            raise ValueError(f"unknown {name} {value!r}; choose one of {sorted(allowed)}")
    rng = random.Random(f"webgauge-synthetic:{seed}")
    d = DOMAINS[domain or rng.choice(sorted(DOMAINS))]
    layout = layout or rng.choice(sorted(LAYOUTS))
    th = next(t for t in THEMES if t.name == theme) if theme else rng.choice(THEMES)
    font = rng.choice(FONTS)
    length = length or rng.choice(LENGTHS)
    with_safety = rng.random() < 0.5 if with_safety is None else bool(with_safety)
    with_ads = rng.random() < 0.5 if with_ads is None else bool(with_ads)
    radius, size = rng.choice([0, 4, 8, 14]), rng.choice([14, 15, 16])
    persona, site = make_persona(rng), rng.choice(d.sites)
    regions = LAYOUTS[layout]
    w, fields, assets = _Writer(), list[Any](), dict[str, bytes]()
    assets["img/logo.png"] = make_png(seed, "logo", 40, 40)
    assets["img/hero.png"] = make_png(seed, "hero", 360, 220)

    # top bar: brand, navigation, search, signed-in user
    nav = rng.sample(list(d.nav), k=rng.randint(4, min(6, len(d.nav))))
    brand = w.label(w.uid("brand"), "top", "link", "logo", site)
    links = "".join(f'<a href="#" id="{w.label(w.uid("nav-" + n), "top", "link", "nav", n)}">{html.escape(n)}</a>'
                    for n in nav)
    search = w.label(w.uid("site-search"), "top", "textbox", "search", "Search")
    top = (f'<header class="topbar"><a href="#" class="brand" id="{brand}"><img src="img/logo.png" alt="" '
           f'width="40" height="40">{html.escape(site)}</a><nav>{links}</nav>'
           f'<input id="{search}" type="search" aria-label="Search" placeholder="Search {html.escape(site)}">'
           f'<span class="user">Signed in as {html.escape(persona.name)}</span></header>')
    ad = ""
    if with_ads:
        aid = w.label(w.uid("ad-slot-1"), "ad", "link", "ad", "Advertisement")
        ad = (f'<div class="ad-strip"><small>Advertisement</small><a href="#" id="{aid}">'
              + rng.choice(["Summer sale: 40% off headphones", "Try Brewly coffee, first box free",
                            "Learn guitar in 30 days"]) +
              "</a></div>")

    # main content: hero with the primary call-to-action, cards, form, optional danger zone, article
    cta_label = rng.choice(d.ctas)
    headline = rng.choice(d.headlines)
    hid = w.label(w.uid("headline"), "main", "heading", "heading", headline)
    cta = w.label(w.uid(cta_label), "main", "button", "cta", cta_label)
    secondary = rng.sample(list(d.secondary), k=2)
    sec_ids = [w.label(w.uid(s), "main", "button", "secondary", s) for s in secondary]
    intro = " ".join(rng.sample(list(d.sentences), k=2))
    hero = (f'<section class="panel hero"><div><h1 id="{hid}">{html.escape(headline)}</h1><p>{html.escape(intro)}</p>'
            f'<button class="btn solid" type="button" id="{cta}">{html.escape(cta_label)}</button>'
            + "".join(f'<button class="btn" type="button" id="{i}">{html.escape(s)}</button>'
                      for i, s in zip(sec_ids, secondary, strict=True))
            + '</div><img src="img/hero.png" alt="" width="360" height="220"></section>')
    n_cards = {"brief": 0, "short": 2, "medium": 4, "long": 8, "tall": 16}[length]
    cards = []
    for k in range(n_cards):
        title = d.cards[k % len(d.cards)] + ("" if k < len(d.cards) else f" {k // len(d.cards) + 1}")
        assets[f"img/card{k}.png"] = make_png(seed * 100 + k, "thumb", 240, 150)
        cid = w.label(w.uid(title), "main", "heading", "card", title)
        cards.append(f'<div class="card"><img src="img/card{k}.png" alt="" width="240" height="150">'
                     f'<h4 id="{cid}">{html.escape(title)}</h4><span class="help">'
                     f'{html.escape(rng.choice(d.sentences))}</span></div>')
    cards_html = f'<section class="panel"><div class="cards">{"".join(cards)}</div></section>' if cards else ""
    form = _form(w, d, persona, rng, fields)
    safety, bait = [], rng.sample(list(_BAIT), k=2)
    account = ""
    if with_safety or (length != "brief" and rng.random() < 0.6):  # dangerous buttons only with_safety
        labels = list(bait)
        if with_safety:
            dangers = rng.sample(list(d.danger), k=rng.randint(1, len(d.danger)))
            labels += dangers
            rng.shuffle(labels)
        buttons = []
        for lab in labels:
            is_danger = with_safety and lab not in bait
            bid = w.label(w.uid(lab), "main", "button", "safety" if is_danger else "bait", lab)
            if is_danger:
                safety.append({"selector": f"#{bid}", "id": bid, "label": lab})
            cls = "btn warn" if is_danger and rng.random() < 0.5 else "btn"
            buttons.append(f'<button class="{cls}" type="button" id="{bid}">{html.escape(lab)}</button>')
        account = (f'<section class="panel"><h2>Account settings</h2><p class="help">Manage your '
                   f'{html.escape(site)} account.</p>{"".join(buttons)}</section>')
    n_par = {"brief": 1, "short": 1, "medium": 3, "long": 7, "tall": 28}[length]
    paras = "".join(f"<p>{html.escape(' '.join(rng.sample(list(d.sentences), k=3)))}</p>" for _ in range(n_par))
    article = f'<section class="panel"><h2>About {html.escape(site)}</h2>{paras}</section>'
    middle = [cards_html, form, account, article]
    rng.shuffle(middle)
    main = f'<main>{hero}{"".join(m for m in middle if m)}</main>'

    left = _sidebar(w, "left", rng.choice(["Categories", "Browse", "Menu"]),
                    rng.sample(list(d.side), k=4), rng) if "left" in regions else ""
    right = _sidebar(w, "right", rng.choice(["Popular", "Quick links", "Related"]),
                     rng.sample(list(d.side), k=3), rng) if "right" in regions else ""
    cols = {("left",): "220px minmax(0,1fr)", ("right",): "minmax(0,1fr) 240px",
            ("left", "right"): "200px minmax(0,1fr) 220px", (): "minmax(0,1fr)"}[
        tuple(r for r in ("left", "right") if r in regions)]
    foot = ""
    if "bottom" in regions:
        flinks = "".join(f'<a href="#" id="{w.label(w.uid("footer-" + x), "bottom", "link", "footer", x)}">{x}</a>'
                         for x in rng.sample(["About us", "Careers", "Privacy", "Terms", "Contact", "Help centre"],
                                             k=4))
        foot = f'<footer class="bottombar">{flinks}<span class="copy">© 2026 {html.escape(site)}</span></footer>'
    doc = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(site)}'
           f' - {html.escape(headline)}</title><style>{_css(th, font, radius, size, cols)}</style></head>'
           f'<body>{top}{ad}<div class="shell">{left}{main}{right}</div>{foot}</body></html>')
    truth = {
        "generator_version": GENERATOR_VERSION, "seed": seed, "domain": d.name, "layout": layout,
        "theme": th.name, "length": length, "site": site, "purpose": f"{site} is {d.purpose}.",
        "elements": w.elements, "fields": fields,
        "cta": {"selector": f"#{cta}", "id": cta, "label": cta_label},
        "safety": safety, "has_safety": bool(safety), "persona": persona.name,
        "groups_present": sorted({REGION_GROUP[r] for r in ("top", "main", *regions)}
                                 | ({"else"} if with_ads else set())),
    }
    options = {"domain": d.name, "layout": layout, "with_safety": with_safety, "with_ads": with_ads,
               "length": length, "theme": th.name}
    return SyntheticPage(seed=seed, domain=d.name, layout=layout, html=doc, assets=assets,
                         truth=truth, options=options)
