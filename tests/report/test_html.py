"""HTML and Markdown report builders: escaping, number formats, links, details blocks."""

from __future__ import annotations

from html.parser import HTMLParser

from webgauge.report.html import (
    Column,
    Markup,
    Section,
    code_block,
    details,
    fmt_ci,
    fmt_num,
    image,
    link,
    markdown_table,
    relpath,
    table,
    write_html,
)


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.stack = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in ("meta", "img", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"unbalanced </{tag}> after {self.stack[-3:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _parse(doc: str) -> _Collect:
    p = _Collect()
    p.feed(doc)
    p.close()
    assert p.stack == [], f"unclosed tags: {p.stack}"
    return p


def test_number_and_ci_formatting():
    assert fmt_ci(63.456, 58.08, 69.0) == "63.5 [58.1, 69.0]"
    assert fmt_ci((0.635, 0.581, 0.69), scale=100) == "63.5 [58.1, 69.0]"
    assert fmt_ci(0.5, digits=2) == "0.50"
    assert fmt_ci(10, 5, 15) == "10.0 [5.0, 15.0]"
    assert fmt_num(3) == "3" and fmt_num(None) == "–" and fmt_num(float("nan")) == "–" and fmt_num(2.0, 2) == "2.00"


def test_table_escapes_text_and_keeps_markup():
    rows = [
        {"model": "<script>alert(1)</script>", "acc": (63.456, 58.08, 69.0), "n": 120,
         "answer": details("show answer", code_block("a < b & c")), "page": link("blobs/ab/abc?x=1&y=2", "page")},
        {"model": "random", "acc": (10.0, 5.0, 15.0), "n": 120, "answer": "", "page": None},
    ]
    html = table(rows, ["model", Column("acc", "accuracy %"), "n", "answer", "page"])
    assert isinstance(html, Markup)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "63.5 [58.1, 69.0]" in html and 'class="num"' in html
    assert "<details><summary>show answer</summary><div><pre>a &lt; b &amp; c</pre></div></details>" in html
    assert 'href="blobs/ab/abc?x=1&amp;y=2"' in html
    parsed = _parse(str(html))
    assert [t for t, _ in parsed.tags].count("tr") == 3
    assert sum(1 for t, a in parsed.tags if t == "td" and a.get("class") == "num") == 4  # acc and n, two rows
    assert "No rows." in table([], ["a"])


def test_html_page_is_self_contained_and_well_formed(tmp_path):
    sections = [
        Section("Scores", table([{"m": "a & b", "s": 1.25}], ["m", "s"])),
        ("Notes", "Plain text <b>escaped</b>"),
        ("Screenshot", image("blobs/aa/aa.png", alt="page", width=320, caption="reference")),
    ]
    path = write_html(tmp_path / "sub" / "report.html", "Run <1>", sections, subtitle="suite: understand")
    doc = path.read_text(encoding="utf-8")
    assert doc.startswith("<!doctype html>") and "<title>Run &lt;1&gt;</title>" in doc
    assert "&lt;b&gt;escaped&lt;/b&gt;" in doc and "<style>" in doc
    assert "http://" not in doc and "https://" not in doc and "<script" not in doc
    parsed = _parse(doc)
    assert ("img", {"src": "blobs/aa/aa.png", "alt": "page", "width": "320"}) in parsed.tags
    assert [t for t, _ in parsed.tags].count("section") == 3
    assert not list(tmp_path.rglob("*.tmp"))


def test_relpath_and_markdown_table(tmp_path):
    assert relpath(tmp_path / "blobs" / "ab" / "abc", tmp_path / "report.html") == "blobs/ab/abc"
    assert relpath(tmp_path / "blobs" / "x.png", tmp_path / "reports") == "../blobs/x.png"
    md = markdown_table([{"model": "a|b", "acc": (63.456, 58.08, 69.0), "note": "two\nlines"},
                         {"model": "c", "acc": (1.0, 0.5, 1.5), "note": None}], ["model", "acc", "note"])
    lines = md.splitlines()
    assert lines[0] == "| model | acc | note |"
    assert lines[1] == "|---|---:|---|"
    assert lines[2] == "| a\\|b | 63.5 [58.1, 69.0] | two<br>lines |"
    assert lines[3] == "| c | 1.0 [0.5, 1.5] |  |"
