"""Small builders for self-contained static HTML reports (and Markdown tables).

Everything is escaped unless it is :class:`Markup` (what these helpers return), so
model answers and page text can be shown verbatim without breaking the report. Reports
link to blobs and images with paths relative to the report file, so a run directory can
be moved or zipped and still open offline.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

__all__ = [
    "Markup", "Column", "Section", "html_page", "write_html", "table", "markdown_table", "fmt_num", "fmt_ci",
    "link", "details", "image", "code_block", "relpath", "CSS",
]

CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --alt:#f6f8fa; --accent:#0969da; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 24px 32px 64px; color: var(--fg); background: var(--bg);
       font: 15px/1.5 -apple-system, "Segoe UI", "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 20px; margin: 32px 0 8px; border-bottom: 1px solid \
var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.subtitle, .muted { color: var(--muted); }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 5px 10px; vertical-align: top; }
th { background: var(--alt); text-align: left; font-weight: 600; }
tbody tr:nth-child(even) { background: #fbfcfd; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
details { margin: 4px 0; } summary { cursor: pointer; color: var(--accent); }
details > div { padding: 6px 10px; border-left: 3px solid var(--line); margin: 4px 0 8px; }
pre { background: var(--alt); padding: 8px 10px; overflow-x: auto; font-size: 13px; white-space: pre-wrap; word-break: \
break-word; }
img { max-width: 100%; border: 1px solid var(--line); }
figure { margin: 8px 0 16px; } figcaption { color: var(--muted); font-size: 13px; }
.ok { color: #1a7f37; } .error { color: #cf222e; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""


@dataclass(frozen=True)
class Column:
    """A table column: ``key`` into each row dict, a header ``label``, an optional formatter."""

    key: str
    label: str | None = None
    fmt: Callable[[Any], Any] | None = None
    numeric: bool | None = None  # right-align; default: guessed from the values


@dataclass(frozen=True)
class Section:
    """A report section: a heading and its body (text is escaped; Markup is kept)."""

    title: str
    body: Any
    level: int = 2


def fmt_num(value: Any, digits: int = 1, scale: float = 1.0) -> str:
    """``63.456 -> "63.5"``; ints stay ints; ``None``/NaN show as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) and scale == 1.0:
        return str(value)
    return f"{float(value) * scale:.{digits}f}"


def fmt_ci(mean: float | tuple | list, lo: float | None = None, hi: float | None = None, digits: int = 1,
           scale: float = 1.0) -> str:
    """``"63.5 [58.1, 69.0]"``; accepts a ``(mean, lo, hi)`` tuple as the first argument.

    ``scale=100`` shows fractions as percentages.
    """
    if lo is None and hi is None and isinstance(mean, (tuple, list)):
        mean, lo, hi = mean[:3]
    if isinstance(mean, (tuple, list)):
        raise TypeError("fmt_ci: give (mean, lo, hi) as one tuple, or mean, lo and hi apart")
    if lo is None or hi is None:
        return fmt_num(mean, digits, scale)
    m = None if mean is None else float(mean)
    return f"{fmt_num(m, digits, scale)} [{fmt_num(float(lo), digits, scale)}, {fmt_num(float(hi), digits, scale)}]"


def relpath(target: str | os.PathLike, start: str | os.PathLike) -> str:
    """A URL path from the folder ``start`` (or a file's folder) to ``target``, with ``/`` separators."""
    start = Path(start)
    base = start.parent if start.suffix else start
    return Path(os.path.relpath(Path(target), base)).as_posix()


def link(href: str, text: Any = None) -> Markup:
    """``<a href=...>text</a>`` (both escaped)."""
    return Markup('<a href="{}">{}</a>').format(href, text if text is not None else href)


def details(summary: Any, body: Any, open: bool = False) -> Markup:
    """A collapsible ``<details>`` block: per-item answers one click away."""
    return Markup("<details{}><summary>{}</summary><div>{}</div></details>").format(
        Markup(" open") if open else "", summary, _body(body))


def image(src: str, alt: str = "", width: int | None = None, caption: Any = None) -> Markup:
    """An ``<img>`` (in a ``<figure>`` when ``caption`` is given); ``src`` should be relative."""
    tag = Markup('<img src="{}" alt="{}"{}>').format(
        src, alt, Markup(f' width="{int(width)}"') if width else "")
    if caption is None:
        return tag
    return Markup("<figure>{}<figcaption>{}</figcaption></figure>").format(tag, caption)


def code_block(text: str) -> Markup:
    """Preformatted, escaped text (a model's raw answer, a traceback)."""
    return Markup("<pre>{}</pre>").format(text)


def _cell(value: Any, column: Column) -> tuple[Markup, bool]:
    if column.fmt is not None:
        value = column.fmt(value)
    if isinstance(value, Markup):
        return value, False
    if isinstance(value, (tuple, list)) and len(value) == 3 and all(isinstance(v, (int, float)) for v in value):
        return escape(fmt_ci(value)), True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return escape(fmt_num(value)), True
    return escape("" if value is None else str(value)), False


def _numeric_column(cells: list[tuple[Markup, bool]]) -> bool:
    """Right-align a column when every non-empty cell is a number."""
    filled = [is_num for html, is_num in cells if str(html)]
    return bool(filled) and all(filled)


def table(rows: Iterable[dict], columns: Sequence[str | Column], caption: Any = None,
          empty: str = "No rows.") -> Markup:
    """An HTML table from row dicts; numbers and ``(mean, lo, hi)`` tuples are formatted and right-aligned."""
    cols = [c if isinstance(c, Column) else Column(c) for c in columns]
    rows = list(rows)
    if not rows:
        return Markup('<p class="muted">{}</p>').format(empty)
    cells = [[_cell(r.get(c.key), c) for c in cols] for r in rows]
    numeric = [c.numeric if c.numeric is not None else _numeric_column([row[j] for row in cells])
               for j, c in enumerate(cols)]
    out = [Markup("<table>")]
    if caption is not None:
        out.append(Markup("<caption>{}</caption>").format(caption))
    out.append(Markup("<thead><tr>"))
    for c, num in zip(cols, numeric, strict=True):
        out.append(Markup('<th{}>{}</th>').format(Markup(' class="num"') if num else "", c.label or c.key))
    out.append(Markup("</tr></thead><tbody>"))
    for row_cells in cells:
        out.append(Markup("<tr>"))
        for (html, _), num in zip(row_cells, numeric, strict=True):
            out.append(Markup("<td{}>{}</td>").format(Markup(' class="num"') if num else "", html))
        out.append(Markup("</tr>"))
    out.append(Markup("</tbody></table>"))
    return Markup("").join(out)


def _body(body: Any) -> Markup:
    if isinstance(body, Markup):
        return body
    if isinstance(body, str):
        return Markup("<p>{}</p>").format(body)
    if isinstance(body, (list, tuple)):
        return Markup("\n").join(_body(b) for b in body)
    return Markup("<p>{}</p>").format(str(body))


def html_page(title: str, sections: Iterable[Section | tuple[str, Any]], subtitle: Any = None,
              footer: Any = None, css: str = CSS) -> str:
    """A complete, self-contained HTML document (inline CSS, no scripts, no remote assets)."""
    parts = [Markup("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"),
             Markup('<meta name="viewport" content="width=device-width, initial-scale=1">'),
             Markup("<title>{}</title><style>{}</style></head><body>").format(title, Markup(css)),
             Markup("<h1>{}</h1>").format(title)]
    if subtitle is not None:
        parts.append(Markup('<p class="subtitle">{}</p>').format(subtitle))
    for sec in sections:
        if not isinstance(sec, Section):
            sec = Section(*sec)
        level = min(max(sec.level, 2), 6)
        parts.append(Markup("<section><h{0}>{1}</h{0}>{2}</section>").format(level, sec.title, _body(sec.body)))
    if footer is not None:
        parts.append(Markup("<footer>{}</footer>").format(footer))
    parts.append(Markup("</body></html>\n"))
    return str(Markup("\n").join(parts))


def write_html(path: str | os.PathLike, title: str, sections: Iterable[Section | tuple[str, Any]],
               **kwargs: Any) -> Path:
    """Write :func:`html_page` to ``path`` (UTF-8, atomically) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(html_page(title, sections, **kwargs), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _md_cell(value: Any) -> str:
    if isinstance(value, (tuple, list)) and len(value) == 3 and all(isinstance(v, (int, float)) for v in value):
        text = fmt_ci(value)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        text = fmt_num(value)
    else:
        text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")


def markdown_table(rows: Iterable[dict], columns: Sequence[str | Column]) -> str:
    """A GitHub-flavoured Markdown table (pipes escaped, numbers right-aligned)."""
    cols = [c if isinstance(c, Column) else Column(c) for c in columns]
    rows = list(rows)
    body = [[_md_cell(c.fmt(r.get(c.key)) if c.fmt else r.get(c.key)) for c in cols] for r in rows]
    numeric = []
    for c in cols:
        vals = [c.fmt(r.get(c.key)) if c.fmt else r.get(c.key) for r in rows]
        guess = bool(vals) and all(isinstance(v, (int, float, tuple, list)) and not isinstance(v, bool)
                                   for v in vals if v is not None)
        numeric.append(c.numeric if c.numeric is not None else guess)
    header = "| " + " | ".join(_md_cell(c.label or c.key) for c in cols) + " |"
    rule = "|" + "|".join("---:" if num else "---" for num in numeric) + "|"
    lines = [header, rule] + ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n"
