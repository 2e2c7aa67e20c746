"""RER of MRWeb's stored generations, computed by webgauge, against MRWeb's stored values.

MRWeb (github.com/WebPAI/MRWeb) stores, for every page and method, the reference resource
list (``dataset_collection/all_data/<id>.json``), the resource list its recorder took from the
generated page (``experiment/results/<method>/<id>.json``) and the metrics it computed
(``experiment/RQ2/performance_finegrain_intersection.csv``, column ``match_ratio`` = RER).
This script reads the two lists of every CSV row whose files are present under MRWEB_ROOT,
computes webgauge's RER (``--url-match``, default ``mrweb``; ``all`` prints every mode) and
prints how many agree with MRWeb's value (to its 5 stored decimals) and every page that does not.

    python bench/design2code_mrweb_rer.py MRWEB_ROOT [--url-match mrweb|webgauge|exact|all] [--limit N]
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from webgauge.design2code.functional import rer
from webgauge.design2code.matching import match_resources
from webgauge.design2code.mrweb import resources_from_mrweb
from webgauge.design2code.urls import URL_MATCH_MODES, parse_url_match


def rows_of(root: Path, limit: int | None) -> list[tuple[str, str, float, Path, Path]]:
    out = []
    with (root / "experiment" / "RQ2" / "performance_finegrain_intersection.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            method_dir, name = row["file_name"].split("/")[-2:]
            ident = name.rsplit(".", 1)[0]
            ref = root / "dataset_collection" / "all_data" / f"{ident}.json"
            gen = root / "experiment" / "results" / method_dir / f"{ident}.json"
            if ref.is_file() and gen.is_file() and row.get("match_ratio") not in (None, ""):
                out.append((method_dir, ident, float(row["match_ratio"]), ref, gen))
    return out[:limit]


def our_rer(ref: Path, gen: Path, url_match: str) -> float | None:
    r = resources_from_mrweb(json.loads(ref.read_text(encoding="utf-8"))).resources
    g = resources_from_mrweb(json.loads(gen.read_text(encoding="utf-8"))).resources
    return rer(r, g, 1920, 1080, match_resources(r, g, 1920, 1080, url_match))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, help="a checkout (or part of one) of WebPAI/MRWeb")
    ap.add_argument("--url-match", default="mrweb", help="a --url-match of `design2code score`, or 'all' (each mode)")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    rows = rows_of(args.root, args.limit)
    if not rows:
        raise SystemExit(f"no CSV row of {args.root} has both resource lists present")
    modes = URL_MATCH_MODES if args.url_match == "all" else (args.url_match,)
    for mode in modes:
        parse_url_match(mode)
    for mode in modes:
        diffs = []
        for method, ident, stored, ref, gen in rows:
            ours = our_rer(ref, gen, mode)
            if ours is None or abs(round(ours, 5) - stored) > 1e-9:
                diffs.append((method, ident, stored, ours))
        print(f"--url-match {mode}: {len(rows) - len(diffs)} of {len(rows)} pages equal MRWeb's stored RER")
        for method, ident, stored, ours in diffs:
            print(f"  {method}/{ident}: MRWeb {stored}, webgauge {ours}")


if __name__ == "__main__":
    main()
