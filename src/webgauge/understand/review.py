"""``webgauge understand review``: check automatic labels by hand, on a small local web page.

The paper verifies its automatic labels by hand; here real-page labels come from heuristics
(UI group, safety, form intent, the call-to-action). :func:`review_app` serves, on
127.0.0.1 only, one page per question: its screenshot with the target element boxed, the
automatic label and where it came from, and two buttons: **accept** (the label is right) or
**correct** (type the right one). Every click appends one line to the labels JSONL that
``webgauge understand build --labels FILE`` reads (``question_id``, ``page``, ``task``,
``element`` (the XPath of the element asked about, empty for a page-level question such as
safety), ``box`` (its box in CSS px), ``answer``, ``annotator``, ``action``), so a rebuild
with the same seed applies the corrections (the last line for an element wins), and a label
still finds its element when other changes renumber the questions. The same file is the
hand-labelled set that measures the labellers' precision (``tests/data/understand``). The page
also shows a sample of the pairs the build rejected
as no-ops (``rejected.jsonl``: clean and perturbed screenshots side by side, with the
measured changed-pixel share), so a person can audit the threshold.

``POST /label-element`` labels an element the build did not ask about (``page``, ``task``,
``element``, ``answer``; ``action`` is ``label``, ``question_id`` null): the labeller's other
decisions on a page can be checked too.

Routes: ``/`` (index, ``?task=`` filter), ``/q/<question id>``, ``POST /label``, ``POST /label-element``,
``/img/<question id>.png`` (the boxed screenshot), ``/images/<file>`` (benchmark images).
"""

from __future__ import annotations

import json
from pathlib import Path

from aiohttp import web
from markupsafe import Markup

from .export import read_questions
from .images import draw_box

__all__ = ["review_app", "serve_review", "REVIEW_TASKS", "read_rejected"]

REVIEW_TASKS = ("ui_group", "safety", "form_fill", "hint_text", "color", "position", "text")
"""Tasks whose questions carry an automatic label a person can check (consensus targets
are computed from model answers at scoring time and have nothing to review)."""

_STYLE = """body{font-family:sans-serif;margin:1.5em;max-width:1100px} .q{border:1px solid #ccc;padding:.6em;\
margin:.6em 0}
img{max-width:100%;border:1px solid #999} .pair{display:flex;gap:8px} .pair figure{flex:1;margin:0}
.muted{color:#666} form{display:inline} input[type=text]{width:28em}"""


def read_rejected(bench: Path) -> list[dict]:
    """The no-op pairs the build rejected (``rejected.jsonl``), in build order."""
    path = Path(bench) / "rejected.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _page(title: str, body) -> web.Response:
    html = Markup("<!doctype html><html><head><meta charset='utf-8'><title>{}</title><style>{}</style></head>"
                  "<body><h1>{}</h1>{}</body></html>").format(title, Markup(_STYLE), title, body)
    return web.Response(text=str(html), content_type="text/html")


def _label_text(target) -> str:
    return target if isinstance(target, str) else json.dumps(target, ensure_ascii=False)


def review_app(bench: str | Path, labels: str | Path, *, annotator: str = "review", rejected_sample: int = 12):
    """The review web application for the benchmark at ``bench``, writing to ``labels``."""
    bench = Path(bench)
    if not (bench / "manifest.json").exists():
        raise FileNotFoundError(f"{bench} is not a benchmark folder (no manifest.json); build one first")
    labels = Path(labels)
    questions = [q for q in read_questions(bench) if q.task in REVIEW_TASKS and q.target is not None
                 and q.variant == "clean"]
    by_id = {q.id: q for q in questions}
    snaps: dict[str, dict] = {}

    def decisions() -> dict[str, dict]:
        if not labels.exists():
            return {}
        out = {}
        for line in labels.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out[row.get("question_id")] = row
        return out

    def box_of(q):
        if not q.elements or not q.snapshot:
            return None
        if q.snapshot not in snaps:
            snaps[q.snapshot] = json.loads((bench / "snapshots" / f"{q.snapshot}.json").read_text())
        el = next((e for e in snaps[q.snapshot]["elements"] if e["path"] == q.elements[0]), None)
        return el["box"] if el else None

    async def index(request: web.Request) -> web.Response:
        task = request.query.get("task")
        done = decisions()
        rows = Markup("").join(
            Markup('<li><a href="/q/{}">{}</a> · {} · <span class="muted">{}</span> {}</li>').format(
                q.id, q.id, q.task, _label_text(q.target)[:80],
                Markup("<b>{}</b>").format(done[q.id]["action"]) if q.id in done else "")
            for q in questions if task in (None, q.task))
        tasks = Markup(" ").join(Markup('<a href="/?task={}">{}</a>').format(t, t)
                                 for t in sorted({q.task for q in questions}))
        rej = read_rejected(bench)[:rejected_sample]
        pairs = Markup("").join(
            Markup('<div class="q"><p>{} on {}: {} changed ({})</p><div class="pair">'
                   '<figure><img src="/{}" alt="clean"><figcaption>clean</figcaption></figure>'
                   '<figure><img src="/{}" alt="perturbed"><figcaption>perturbed</figcaption></figure>'
                   '</div></div>').format(r["kind"], r["page"], f"{100 * r['changed_pixels']:.4f}%", r["why"],
                                          r["clean"], r["perturbed"]) for r in rej)
        body = Markup('<p>Tasks: {}</p><p class="muted">Decisions go to {}; rebuild with '
                      '<code>--labels</code> to apply them.</p><ul id="questions">{}</ul>'
                      '<h2>No-op pairs rejected at build time (sample of {} of {})</h2>{}').format(
            tasks, str(labels), rows, len(rej), len(read_rejected(bench)), pairs)
        return _page(f"Label review: {bench.name}", body)

    async def question(request: web.Request) -> web.Response:
        q = by_id.get(request.match_info["qid"])
        if q is None:
            raise web.HTTPNotFound(text="no such question to review")
        done = decisions().get(q.id)
        ids = [x.id for x in questions]
        nxt = ids[(ids.index(q.id) + 1) % len(ids)]
        body = Markup(
            '<p><a href="/">all questions</a> · <a href="/q/{}">next</a></p><div class="q">'
            '<p><b>{}</b> ({}, {})</p><p>{}</p><p>Automatic label: <b id="label">{}</b> '
            '<span class="muted">(source: {})</span></p><p id="decision">{}</p>'
            '<form method="post" action="/label"><input type="hidden" name="question_id" value="{}">'
            '<input type="hidden" name="action" value="accept"><button id="accept">Accept</button></form> '
            '<form method="post" action="/label"><input type="hidden" name="question_id" value="{}">'
            '<input type="hidden" name="action" value="correct"><input type="text" name="answer" id="answer" '
            'value="{}"> <button id="correct">Correct</button></form>'
            '<p><img src="/img/{}.png" alt="screenshot with the target boxed"></p></div>').format(
            nxt, q.id, q.task, q.page, q.question, _label_text(q.target), q.target_source,
            f"decided: {done['action']} → {_label_text(done['answer'])}" if done else "not reviewed yet",
            q.id, q.id, _label_text(q.target), q.id)
        return _page(f"Review {q.id}", body)

    async def image(request: web.Request) -> web.Response:
        q = by_id.get(request.match_info["qid"])
        if q is None or not q.images:
            raise web.HTTPNotFound(text="no such question")
        png = (bench / q.images[0]).read_bytes()
        box = box_of(q) if q.task != "position" else None
        return web.Response(body=draw_box(png, box) if box else png, content_type="image/png")

    async def label_element(request: web.Request) -> web.Response:
        """A label for an element the build did not ask about (``page``, ``task``, ``element`` XPath
        of the page's clean capture, ``answer``): more hand labels for the labeller's other decisions."""
        form = await request.post()
        page, task, path = (str(form.get(k, "")) for k in ("page", "task", "element"))
        answer = str(form.get("answer", "")).strip()
        snap_file = bench / "snapshots" / f"{page}__clean.json"
        if task not in REVIEW_TASKS or not answer or not snap_file.exists():
            raise web.HTTPBadRequest(text="post page (a page of this benchmark), task, element (an XPath) and answer")
        el = next((e for e in json.loads(snap_file.read_text())["elements"] if e["path"] == path), None)
        if el is None:
            raise web.HTTPBadRequest(text=f"{page} has no element {path}")
        row = {"question_id": None, "page": page, "task": task, "element": path, "box": el["box"], "answer": answer,
               "annotator": annotator, "action": "label"}
        with labels.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        return web.json_response(row)

    async def label(request: web.Request) -> web.Response:
        form = await request.post()
        q = by_id.get(str(form.get("question_id", "")))
        action = str(form.get("action", ""))
        if q is None or action not in ("accept", "correct"):
            raise web.HTTPBadRequest(text="post question_id (a reviewable question) and action=accept|correct")
        if action == "accept":
            answer = q.target
        else:
            text = str(form.get("answer", "")).strip()
            if not text:
                raise web.HTTPBadRequest(text="a correction needs an answer")
            if isinstance(q.target, str):
                answer = text
            else:
                try:
                    answer = json.loads(text)
                except json.JSONDecodeError:
                    raise web.HTTPBadRequest(text=f"this label is JSON ({_label_text(q.target)}); "
                                                  "type the corrected label as JSON") from None
        # the element's XPath and box keep the label meaningful when a rebuild renumbers the questions
        row = {"question_id": q.id, "page": q.page, "task": q.task, "element": q.elements[0] if q.elements else "",
               "box": box_of(q), "answer": answer, "annotator": annotator, "action": action}
        labels.parent.mkdir(parents=True, exist_ok=True)
        with labels.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        raise web.HTTPSeeOther(f"/q/{q.id}")

    app = web.Application()
    app.router.add_get("/", index)
    app.router.add_get("/q/{qid}", question)
    app.router.add_get("/img/{qid}.png", image)
    app.router.add_post("/label", label)
    app.router.add_post("/label-element", label_element)
    app.router.add_static("/images/", bench / "images")
    return app


def serve_review(bench, labels, *, port: int = 8765, annotator: str = "review") -> None:
    """Serve :func:`review_app` on 127.0.0.1 until interrupted."""
    web.run_app(review_app(bench, labels, annotator=annotator), host="127.0.0.1", port=port,
                print=lambda msg: print(f"review {bench} on http://127.0.0.1:{port}/ (Ctrl-C to stop)"))
