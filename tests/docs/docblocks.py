"""The shell blocks of the user docs, and their marks (not collected by pytest).

A shell block is a fenced code block of README.md or docs/harness-*.md whose info string is
empty, ``bash``, ``sh``, ``shell`` or ``console``. Its first line marks it:

- ``# tested: NAME``: a test runs it as written (``doc_block(NAME)`` gives its commands);
- ``# illustrative``: shown, not run (a real model, a long-running service, another machine).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL = {"", "bash", "sh", "shell", "console"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[\w-]*)[ \t]*$")
TESTED = re.compile(r"^# tested: (?P<name>[\w.-]+)\s*$")
ILLUSTRATIVE = "# illustrative"


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lines: tuple[str, ...]

    @property
    def mark(self) -> str | None:
        first = self.lines[0].strip() if self.lines else ""
        if first == ILLUSTRATIVE or first.startswith(ILLUSTRATIVE + " "):
            return "illustrative"
        m = TESTED.match(first)
        return f"tested:{m.group('name')}" if m else None

    def commands(self) -> str:
        """The block's text after its mark line, as a shell script."""
        return "\n".join(self.lines[1:]) + "\n"


def docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("harness-*.md"))]


def shell_blocks(path: Path) -> list[Block]:
    out, cur, indent, start = [], None, "", 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = FENCE.match(line)
        if cur is None and m:
            cur, indent, start = ([] if m.group("info") in SHELL else None), m.group("indent"), n
            if cur is None:  # a non-shell block: skip to its closing fence
                cur, indent = "skip", m.group("indent")
            continue
        if cur is not None and m and m.group("info") == "" and m.group("indent") == indent:
            if isinstance(cur, list):
                doc = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
                out.append(Block(doc, start, tuple(cur)))
            cur = None
            continue
        if isinstance(cur, list):
            cur.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
    return out


def doc_block(name: str) -> Block:
    """The block marked ``# tested: NAME`` (exactly one across the docs)."""
    found = [b for p in docs() for b in shell_blocks(p) if b.mark == f"tested:{name}"]
    assert len(found) == 1, f"{len(found)} doc blocks marked '# tested: {name}'"
    return found[0]
