"""References measured in the scoring browser, beside the candidate (imported MRWeb instances).

An imported data set brings boxes, colours and texts recorded in another browser (MRWeb:
Firefox in a 1920x1080 window) and a screenshot taken there. Compared with a candidate
rendered in Chromium, a perfect copy would lose points to the browsers' differences alone
(default link colours, font metrics, the screenshot's height). So an instance whose
``meta["reference"]`` is ``"rendered"`` is scored this way:

* the reference HTML is served and rendered in the same browser, with the same profile
  (:attr:`Instance.profile <webgauge.design2code.dataset.Instance.profile>`, the window the
  import recorded) and the same remote-image stand-ins as the candidate;
* its full-page screenshot is the reference image of the visual metrics;
* every recorded resource is paired with the rendered reference's own resource (same URL in
  MRWeb's convention, :func:`~webgauge.design2code.urls.mrweb_url`; nearest box and text among
  equals) and takes its box, colour and text from there; a recorded resource the rendering
  does not show keeps its recorded values. The resource set stays the recorded one.

**Stand-ins.** Rendering is offline, so a remote image would not load and its box would
collapse. Each remote ``src`` of the reference (``meta["stand_ins"]``, URL -> the recorded
box's size) is answered by a local PNG of that size, one flat colour per URL, for the
reference and the candidate alike: a candidate that uses the reference's image URL gets the
same pixels and layout, any other remote URL stays blocked.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from PIL import Image

from webgauge.design2code.dataset import Instance, PageRecord
from webgauge.design2code.extract import extract_live
from webgauge.design2code.matching import match_resources, position_offset
from webgauge.design2code.resources import ResourceList
from webgauge.design2code.urls import mrweb_url

__all__ = ["MeasuredReference", "measure_reference", "renders_reference", "stand_in_png", "stand_ins_for"]

STAND_IN_TYPE = "image/png"


@dataclass
class MeasuredReference:
    """A reference page as rendered for scoring: its resources (recorded set, measured values),
    how many were measured, and its screenshot."""

    resources: ResourceList
    measured: int
    png: bytes


def renders_reference(instance: Instance) -> bool:
    """True when scoring renders the reference beside the candidate (module docstring)."""
    return isinstance(instance.meta, dict) and instance.meta.get("reference") == "rendered"


@lru_cache(maxsize=256)
def stand_in_png(url: str, width: int, height: int) -> bytes:
    """A ``width`` x ``height`` PNG of one colour drawn from the URL (same URL, same bytes)."""
    digest = hashlib.sha256(url.encode("utf-8")).digest()
    colour = tuple(64 + b % 160 for b in digest[:3])
    buf = io.BytesIO()
    Image.new("RGB", (max(1, int(width)), max(1, int(height))), colour).save(buf, "PNG")
    return buf.getvalue()


def stand_ins_for(instance: Instance) -> dict[str, tuple[bytes, str]]:
    """``{request URL: (png, content type)}`` for every remote image the instance records."""
    out: dict[str, tuple[bytes, str]] = {}
    sizes = instance.meta.get("stand_ins") if isinstance(instance.meta, dict) else None
    for url, size in (sizes or {}).items():
        body = stand_in_png(url, int(size[0]), int(size[1]))
        absolute = "https:" + url if url.startswith("//") else url
        for key in (url, absolute, mrweb_url(absolute, link=False)):
            out.setdefault(key, (body, STAND_IN_TYPE))
    return out


def _pair_local_files(recorded: list, rendered: list, pairs: dict, w: float, h: float) -> None:
    """Pair what is left of ``file://`` URLs (a relative URL resolved on the recording machine)
    with a rendered resource of the same kind whose served path ends that file path."""
    taken = {id(g) for g in pairs.values()}
    for i, r in enumerate(recorded):
        if i in pairs or not (r.url or "").startswith("file:"):
            continue
        path = urlsplit(r.url).path
        kind = "image" if r.type in ("image", "background_image") else r.type
        options = [g for g in rendered if id(g) not in taken and g.url and "#" not in g.url
                   and ("image" if g.type in ("image", "background_image") else g.type) == kind
                   and path.endswith("/" + g.url.split("?")[0])]
        if options:
            best = min(options, key=lambda g: position_offset(r, g, w, h))
            pairs[i] = best
            taken.add(id(best))


async def measure_reference(page, rec: PageRecord, png: bytes) -> MeasuredReference:
    """The recorded resources of ``rec`` with boxes, colours and texts measured on ``page``
    (the rendered reference, already open); ``png`` is its screenshot."""
    rendered = await extract_live(page, rec.name)
    recorded = rec.resources.resources
    w, h = rendered.page_size
    pairs = {p.ref_index: p.generated for p in match_resources(recorded, rendered.resources, w, h, "mrweb")}
    _pair_local_files(recorded, rendered.resources, pairs, w, h)
    measured = []
    for i, r in enumerate(recorded):
        g = pairs.get(i)
        if g is None:
            measured.append(r)
            continue
        measured.append(dataclasses.replace(r, box=[list(p) for p in g.box], text=g.text, color=g.color,
                                            background_color=g.background_color))
    rl = ResourceList(rec.name, measured, viewport=rendered.viewport, page_size=rendered.page_size)
    return MeasuredReference(rl, len(pairs), png)
