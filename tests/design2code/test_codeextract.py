from webgauge.design2code.codeextract import extract_code

DOC = "<!DOCTYPE html><html><body><a href='a.html'>A</a></body></html>"


def test_fenced_prefers_longest_html_block():
    ans = f"Here:\n```css\nbody{{}}\n```\n```html\n{DOC}\n```\nDone"
    got = extract_code(ans)
    assert (got.code, got.status, got.source) == (DOC, "ok", "fence")


def test_doctype_in_prose_and_bare():
    assert extract_code(f"Sure! {DOC} hope it helps").code == DOC
    bare = extract_code("<div><p>hi</p></div>")
    assert bare.status == "ok" and bare.source == "bare"


def test_truncated_and_missing():
    cut = extract_code("```html\n<!DOCTYPE html><html><body><div>")
    assert cut.status == "truncated" and cut.code.startswith("<!DOCTYPE")
    assert extract_code("<html><body>no end").status == "truncated"
    assert extract_code("I cannot do that.").status == "missing"
    assert extract_code(None).status == "missing"
