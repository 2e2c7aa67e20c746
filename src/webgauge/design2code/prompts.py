"""The four MRWeb prompting strategies as message builders.

* ``sc`` self-contained: the screenshot only.
* ``zs`` zero-shot: the screenshot plus the resource list (and the site's page names and
  backend routes, which are part of the resource list for multi-page instances).
* ``cot`` chain-of-thought: ``zs`` plus "Let's think step by step".
* ``sr`` self-refine: ``zs``, then a second turn that shows the model a render of its own
  answer and asks for a revised page (:func:`refine_messages`).

Two prompt sets (``--prompts``):

* ``webgauge`` (default, ours): the richer resource list (type, box, url, method, text,
  target page, form fields, routes), plain HTML with inline CSS, a system prompt.
* ``mrweb``: the paper's Appendix C prompts verbatim in meaning: HTML + Tailwind CSS, an
  "action list" of ``{"position", "type", "url"}`` only (types as MRWeb names them: ``a``,
  ``img``, ``background-image``), no system prompt; self-refine sends the original design,
  the render of the first answer, the code (``[CODE]``) and the action list in one turn.

Prompt texts are module constants so a run's spec records them (and their hashes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from webgauge.design2code.resources import ResourceList

__all__ = ["STRATEGIES", "PROMPTS", "MRWEB_PROMPTS", "PROMPT_SETS", "PageTask", "build_messages",
           "refine_messages", "action_list"]

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

_MRWEB_TASK = ("Please write an HTML and Tailwind CSS to make it look exactly like the original web page. "
               "Pay attention to things like size, text, position, and color of all the elements, as well as "
               "the overall layout.")
_MRWEB_FORMAT = ("The format of the action list is as follows: { \"position\": bounding box of format "
                 "[[x1, y1], [x2, y2]], specifying the top left corner and the bottom right corner of the "
                 "element; \"type\": element type; \"url\": url of the element; }")
MRWEB_PROMPTS: dict[str, str] = {
    "sc": ("Here is a screenshot of a web page. " + _MRWEB_TASK
           + " Respond with the content of the HTML+tail-wind CSS code."),
    "zs": ("Here is a screenshot of a web page and its \"action list\" which specifies the links and images in "
           "the webpage. " + _MRWEB_TASK + " " + _MRWEB_FORMAT + " The action list is as follows: [ACTION LIST]"),
    "cot": ("Here is a screenshot of a web page and its \"action list\" which specifies the links and images in "
            "the webpage. Please write a HTML and Tailwind CSS to make it look exactly like the original web page. "
            "Please think step by step, and pay attention to things like size, text, position, and color of all "
            "the elements, as well as the overall layout. " + _MRWEB_FORMAT
            + " The action list is as follows: [ACTION LIST]"),
    "sr": ("Here is a screenshot of a web page and its \"action list\" which specifies the links and images in "
           "the webpage. I have an HTML file for implementing a webpage but it has some missing or wrong elements "
           "that are different from the original webpage. Please compare the two webpages and revise the original "
           "HTML implementation. Return a single piece of HTML and tail-wind CSS code to reproduce exactly the "
           "website. Pay attention to things like size, text, position, and color of all the elements, as well "
           "as the overall layout. Respond with the content of the HTML+tail-wind CSS code. " + _MRWEB_FORMAT
           + " The current implementation I have is: [CODE] The action list is as follows: [ACTION LIST]"),
}
"""MRWeb's Appendix C prompts (the paper's curly quotes written as plain double quotes)."""

PROMPT_SETS: dict[str, dict[str, str]] = {"webgauge": PROMPTS, "mrweb": MRWEB_PROMPTS}
_MRWEB_TYPES = {"link": "a", "image": "img", "background_image": "background-image"}


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
    prompts: str = "webgauge"


def action_list(resources: ResourceList) -> str:
    """MRWeb's action list: ``{"position", "type", "url"}`` per link, image and background
    image (backend routes have no MRWeb type and are left out)."""
    rows = [{"position": r.box, "type": _MRWEB_TYPES[r.type], "url": r.url}
            for r in resources.resources if r.type in _MRWEB_TYPES]
    return json.dumps(rows, separators=(",", ":"))


def _mrweb_text(task: PageTask, code: str | None = None) -> str:
    # self-refine starts like zero-shot; its second turn carries the code
    text = MRWEB_PROMPTS["sr" if code is not None else "zs" if task.strategy == "sr" else task.strategy]
    return text.replace("[ACTION LIST]", action_list(task.resources)).replace("[CODE]", code or "")


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
    if task.prompts == "mrweb":
        return [Message("user", (Image(task.screenshot), _mrweb_text(task)))]
    if task.prompts != "webgauge":
        raise ValueError(f"unknown prompt set {task.prompts!r}; choose one of {tuple(PROMPT_SETS)}")
    return [Message("system", (SYSTEM,)),
            Message("user", (Image(task.screenshot), _user_text(task)))]


def refine_messages(task: PageTask, first: list, answer: str, render_png: bytes, code: str | None = None) -> list:
    """Second-turn messages for self-refine. Ours: the first turn, the answer and its render.
    MRWeb's: one new turn with the design, the render, the code (``[CODE]``) and the action list."""
    from webgauge.models.messages import Image, Message

    if task.prompts == "mrweb":
        return [Message("user", (Image(task.screenshot), Image(render_png), _mrweb_text(task, code or answer)))]
    return list(first) + [Message("assistant", (answer,)), Message("user", (Image(render_png), SR))]
