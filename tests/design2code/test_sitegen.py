"""Synthetic multi-page sites are seeded and carry the inserted links, routes and local images."""

import json
import re

import pytest

from webgauge.design2code.dataset import Instance, load_instances
from webgauge.design2code.sitegen import synthetic_site


def test_same_seed_same_bytes_different_seed_differs():
    a, b, c = synthetic_site(11, 3), synthetic_site(11, 3), synthetic_site(12, 3)
    assert a.files == b.files and a.files != c.files
    assert a.pages == ["index.html", "products.html", "contact.html"]


def test_links_routes_and_images_inserted():
    site = synthetic_site(4, 3)
    index = site.files["index.html"].decode()
    hrefs = set(re.findall(r'<a href="([^"#]+)"', index))
    assert {"products.html", "contact.html"} <= hrefs                        # every other page linked
    assert any(h.startswith("https://www.example.com/") for h in hrefs)       # one external link
    assert 'data-fetch="/api/subscribe"' in index
    assert 'action="/api/contact" method="post"' in site.files["contact.html"].decode()
    for i, name in enumerate(site.pages):                                     # images are local, per page
        srcs = re.findall(r'src="([^"]+)"', site.files[name].decode())
        assert srcs and all(s.startswith(f"p{i}/img/") and s in site.files for s in srcs)
    with pytest.raises(ValueError, match="n_pages"):
        synthetic_site(1, 0)


def test_instance_loading_errors_name_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="design2code build"):
        load_instances(tmp_path / "none")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "instance.json").write_text(json.dumps({"version": "old"}))
    with pytest.raises(ValueError, match="rebuild"):
        Instance.load(tmp_path / "x")
