"""Every shell block of README.md and docs/harness-*.md is run by a test or marked illustrative.

A block marked ``# tested: NAME`` must be run by a test: some test module under tests/ calls
``doc_block("NAME")`` (and so runs the block's text as the doc shows it). A block with neither
mark fails here, naming its file and line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docblocks import ROOT, Block, docs, shell_blocks  # noqa: E402


def _runners() -> set[str]:
    names = set()
    for p in (ROOT / "tests").rglob("test_*.py"):
        names |= set(re.findall(r"doc_block\(\"([\w.-]+)\"\)", p.read_text()))
    return names


def test_every_shell_block_is_tested_or_illustrative():
    blocks = [b for p in docs() for b in shell_blocks(p)]
    assert len(blocks) >= 15, [f"{b.doc}:{b.line}" for b in blocks]  # the parser finds the blocks
    unmarked = [f"{b.doc}:{b.line}" for b in blocks if b.mark is None]
    assert not unmarked, f"shell blocks with neither '# tested: NAME' nor '# illustrative': {unmarked}"
    runners = _runners()
    orphans = [f"{b.doc}:{b.line} ({b.mark})" for b in blocks
               if b.mark and b.mark.startswith("tested:") and b.mark.split(":", 1)[1] not in runners]
    assert not orphans, f"blocks marked tested that no test runs (doc_block(\"NAME\")): {orphans}"
    names = [b.mark for b in blocks if b.mark and b.mark.startswith("tested:")]
    assert len(names) == len(set(names)), names
    # each harness doc has at least one block a test runs
    for doc in ("docs/harness-lmms-eval.md", "docs/harness-inspect.md", "docs/harness-browsergym.md"):
        assert any(b.doc == doc and b.mark and b.mark.startswith("tested:") for b in blocks), doc


def test_marks_are_read_from_the_first_line(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("```bash\n# illustrative\nx\n```\n\n```python\nprint(1)\n```\n\n   ```\n   # tested: a-b\n"
                   "   echo hi\n   ```\n\n```\necho unmarked\n# illustrative\n```\n")
    blocks = shell_blocks(Path(doc))
    assert [b.mark for b in blocks] == ["illustrative", "tested:a-b", None]
    assert blocks[1].commands() == "echo hi\n"
    assert isinstance(blocks[0], Block)
