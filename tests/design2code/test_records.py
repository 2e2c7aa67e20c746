"""design2code's typed records round-trip, and an untyped (pre-records) row fails clearly."""

import pytest

from webgauge.design2code.records import GenerationRecord, PageScore, SiteScore
from webgauge.records import RecordSchemaError


def test_records_round_trip_and_old_rows_fail_clearly():
    gen = GenerationRecord("openai:gpt-4o|x", "zs", "real-2", 3, "/i/real-2", [{"page": "2.html", "status": "ok"}],
                           ["ok"], prompts="mrweb")
    assert GenerationRecord.from_json(gen.to_json()) == gen
    page = PageScore("m", "zs", "real-2", 3, "2.html", "real", {"mae": 12.5, "psnr": "inf", "clip": {"missing": "x"}})
    site = SiteScore("m", "zs", "real-2", 3, "real", "zs/real-2", [page], {"mae": 12.5}, url_match="exact")
    back = SiteScore.from_json(site.to_json())
    assert back == site and isinstance(back.pages[0], PageScore)
    assert back.pages[0].value("psnr") == float("inf") and back.pages[0].value("clip") is None
    old = {"instance": "real-2", "model": "m", "strategy": "zs", "pages": []}
    with pytest.raises(RecordSchemaError, match="design2code.site_score/1"):
        SiteScore.from_json(old)
