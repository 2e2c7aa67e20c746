"""The four MRWeb prompting strategies as message builders.

* ``sc`` self-contained: the screenshot only.
* ``zs`` zero-shot: the screenshot plus the resource list (and the site's page names and
  backend routes, which are part of the resource list for multi-page instances).
* ``cot`` chain-of-thought: ``zs`` plus "Let's think step by step".
* ``sr`` self-refine: ``zs``, then a second turn that shows the model a render of its own
  answer and asks for a revised page (:func:`refine_messages`).

Prompt texts are module constants so a run's spec records them (and their hashes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from webgauge.design2code.resources import ResourceList

__all__ = ["STRATEGIES", "PROMPTS", "PageTask", "build_messages", "refine_messages"]

STRATEGIES: tuple[str, ...] = ("sc", "zs", "cot", "sr")

SYSTEM = ("You are an expert front-end developer. You turn UI designs into working HTML pages. "
          "Answer with one complete HTML document (inline CSS and JavaScript) in a ```html code block.")
SC = ("Here is a screenshot of a web page. Write a single HTML file that reproduces it as closely as "
      "possible: layout, colours, text and sizes. The page is {width}px wide.")
ZS = ("Here is a screenshot of page `{page}` of a website with {n_pages} page(s): {pages}. Write the HTML "
      "for `{page}` so that it looks like the screenshot (it is {width}px wide) and uses these resources. "
      "Each resource has a type, a box [[x1,y1],[x2,y2]] in CSS px of the page, a url and its visible text:\n"
      "{resources}\n"
      "Rules: links must use the given url (internal links point at the other page files by name); images "
      "and background images must use the given url as their source; a backend_route via \"form\" is a "
      "<form> with that action, method and field names; a backend_route via \"fetch\" is an element with "
      "data-fetch=\"<url>\" whose click sends a fetch with that method.")
COT = "Let's think step by step: first plan the layout regions and where each resource goes, then write the code."
SR = ("This screenshot is how your HTML renders. Compare it with the design from the first message and "
      "with the resource list. Fix every difference in layout, colour, text and resources, and answer "
      "with the full revised HTML document.")

PROMPTS: dict[str, str] = {"system": SYSTEM, "sc": SC, "zs": ZS, "cot": COT, "sr": SR}


@dataclass
class PageTask:
    """What a generator gets for one page of an instance."""

    instance_id: str
    page: str
    pages: list[str]
    screenshot: bytes
    resources: ResourceList
    routes: list[dict]
    strategy: str
    width: int
    height: int


def _user_text(task: PageTask) -> str:
    if task.strategy == "sc":
        return SC.format(width=task.width)
    text = ZS.format(page=task.page, n_pages=len(task.pages), pages=", ".join(task.pages),
                     width=task.width, resources=task.resources.prompt_json())
    if task.routes:
        text += "\nBackend routes of the site: " + json.dumps(task.routes, separators=(",", ":"))
    if task.strategy == "cot":
        text += "\n" + COT
    return text


def build_messages(task: PageTask) -> list:
    """First-turn messages for ``task.strategy`` (``sr`` starts like ``zs``)."""
    from webgauge.models.messages import Image, Message

    if task.strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {task.strategy!r}; choose one of {STRATEGIES}")
    return [Message("system", SYSTEM),
            Message("user", (Image(task.screenshot), _user_text(task)))]


def refine_messages(task: PageTask, first: list, answer: str, render_png: bytes) -> list:
    """Second-turn messages for self-refine: the first turn, the answer and its render."""
    from webgauge.models.messages import Image, Message

    return list(first) + [Message("assistant", answer), Message("user", (Image(render_png), SR))]
