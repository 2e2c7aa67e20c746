"""The trace viewer: one static HTML page per episode that steps through its screenshots.

Each step shows the screenshot the agent observed with its action drawn on it (a box for a
semantic target, a cross-hair marker for a pointer), the browser's result, the state diff
of the step, and at the end the validator and forbidden-effect errors. Screenshots are
linked from the run directory's blob store (never copied, never inlined).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from ..core.records import EpisodeRecord, StepRecord

__all__ = ["write_trace_page", "trace_page_name"]

_CSS = """
body{margin:0;font:14px/1.45 'DejaVu Sans',Arial,sans-serif;color:#1f2328;background:#f6f8fa}
header{padding:10px 18px;background:#24292f;color:#fff} header a{color:#9cd0ff}
.wrap{display:grid;grid-template-columns:minmax(0,3fr) minmax(320px,2fr);gap:16px;padding:14px 18px}
.shot{position:relative;display:inline-block;max-width:100%;border:1px solid #d0d7de;background:#fff}
.shot img{display:block;max-width:100%;height:auto} #overlay{position:absolute;inset:0}
.box{position:absolute;border:3px solid #e4572e;background:rgba(228,87,46,.12);pointer-events:none}
.marker{position:absolute;width:26px;height:26px;margin:-13px 0 0 -13px;border:3px solid #e4572e;border-radius:50%;
 pointer-events:none} .marker::after{content:"";position:absolute;left:9px;top:9px;width:4px;height:4px;\
background:#e4572e}
.nav{display:flex;gap:8px;align-items:center;margin:8px 0} button{font:inherit;padding:5px 12px}
pre{background:#fff;border:1px solid #d0d7de;padding:8px;white-space:pre-wrap;word-break:break-word;font-size:12px;\
max-height:320px;overflow:auto}
.bad{color:#cf222e} .good{color:#1a7f37} .tag{display:inline-block;padding:1px 8px;border-radius:10px;\
background:#eaeef2;margin-right:4px}
"""

_JS = """
const T = JSON.parse(document.getElementById('trace').textContent);
let i = 0;
const $ = (id) => document.getElementById(id);
function show() {
  const s = T.steps[i];
  $('counter').textContent = 'Step ' + (i + 1) + ' of ' + T.steps.length;
  const img = $('img'); img.src = s.png ? T.blob_prefix + s.png.slice(0, 2) + '/' + s.png : '';
  $('noimg').style.display = s.png ? 'none' : 'block';
  const ov = $('overlay'); ov.innerHTML = '';
  const [vw, vh] = s.viewport, [sx, sy] = s.scroll;
  if (s.box) {
    const [x, y, w, h] = s.box; const d = document.createElement('div'); d.className = 'box'; d.id = 'target-box';
    d.style.left = ((x - sx) / vw * 100) + '%'; d.style.top = ((y - sy) / vh * 100) + '%';
    d.style.width = (w / vw * 100) + '%'; d.style.height = (h / vh * 100) + '%'; ov.appendChild(d);
  }
  if (s.point) {
    const d = document.createElement('div'); d.className = 'marker'; d.id = 'pointer-marker';
    d.style.left = (s.point[0] * 100) + '%'; d.style.top = (s.point[1] * 100) + '%'; ov.appendChild(d);
  }
  $('action').textContent = JSON.stringify(s.action, null, 1);
  $('meta').textContent = s.url + '  (navigation ' + s.navigation_id + ', scroll ' + sx + ',' + sy + ', ' + vw + 'x' + \
vh +
    ' @' + s.dsf + 'x, latency ' + s.latency_ms + ' ms)';
  $('result').textContent = JSON.stringify(s.result, null, 1);
  $('result').className = s.result.ok === false || s.result.rejected ? 'bad' : '';
  $('diff').textContent = Object.keys(s.diff).length ? JSON.stringify(s.diff, null, 1) : '(no state change)';
  $('thought').textContent = s.thought || '';
  $('prev').disabled = i === 0; $('next').disabled = i === T.steps.length - 1;
}
$('prev').onclick = () => { if (i > 0) { i--; show(); } };
$('next').onclick = () => { if (i < T.steps.length - 1) { i++; show(); } };
document.addEventListener('keydown', (e) => { if (e.key === 'ArrowRight') $('next').click(); if (e.key === \
'ArrowLeft') $('prev').click(); });
if (T.steps.length) show(); else $('counter').textContent = 'No steps';
"""


def trace_page_name(item_id: str) -> str:
    """A file name for an episode's viewer page."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in item_id)
    return f"{safe}.html"


def _step_view(s: StepRecord) -> dict:
    obs = s.observed
    target = (s.result or {}).get("target")
    act = s.action
    point = [act["x"], act["y"]] if act.get("kind") == "pointer" else None
    return {
        "png": obs.get("png"), "viewport": obs["viewport"], "scroll": obs["scroll"], "dsf": obs["device_scale_factor"],
        "url": obs["url"], "navigation_id": obs["navigation_id"], "action": act, "result": s.result,
        "box": target["box"] if target and not point else None, "point": point, "diff": s.diff,
        "latency_ms": s.latency_ms, "thought": s.thought,
    }


def write_trace_page(record: EpisodeRecord, path: Path, blob_prefix: str, back_href: str) -> Path:
    """Write the viewer page of one episode; ``blob_prefix`` is the relative URL of ``blobs/``."""
    data = {"blob_prefix": blob_prefix, "steps": [_step_view(s) for s in record.steps]}
    ok = record.success
    errs = record.validator_errors + [f"forbidden: {v}" for v in record.forbidden_violations]
    if record.error:
        errs.append(record.error)
    verdict = (f'<b class="{"good" if ok else "bad"}">{"success" if ok else "failure"}</b>'
               + (' <b class="bad">forbidden effect</b>' if record.forbidden else ""))
    err_html = "".join(f"<li>{html.escape(e)}</li>" for e in errs) or "<li>none</li>"
    dom_note = (" <i>(the agent saw only the element table; the screenshot is for the reader)</i>"
                if record.obs_mode == "dom" else "")
    payload = json.dumps(data).replace("</", "<\\/")
    doc = f"""<!doctype html><html lang=en><head><meta charset=utf-8><title>Trace {html.escape(record.item_id)}</title>
<style>{_CSS}</style></head><body>
<header><a href="{html.escape(back_href)}">← report</a> · {html.escape(record.agent)} on {html.escape(record.task_id)}
 · repeat {record.repeat} · {verdict}</header>
<div class=wrap><div>
<p><span class=tag>{html.escape(record.pattern)}</span><span class=tag>{html.escape(record.variant)}</span>
<span class=tag>{html.escape(record.obs_mode)}</span>{dom_note} {html.escape(record.task['instruction'])}</p>
<div class=nav><button id=prev>◀ Prev</button><span id=counter></span><button id=next>Next ▶</button></div>
<div class=shot><img id=img alt="observed screenshot"><div id=overlay></div></div><p id=noimg>(no screenshot stored \
for this step)</p>
<p id=meta></p></div><div>
<h3>Action</h3><pre id=action></pre><p id=thought></p><h3>Browser result</h3><pre id=result></pre>
<h3>State change</h3><pre id=diff></pre>
<h3>Verdict</h3><ul id=errors>{err_html}</ul></div></div>
<script type="application/json" id="trace">{payload}</script>
<script>{_JS}</script></body></html>"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc, encoding="utf-8")
    return path
