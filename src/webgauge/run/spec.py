"""The run spec: everything that decides a run's results, written to ``spec.json``.

A spec holds what the user chose (suite, models, seeds, prompts, options) and what the
machine imposes (webgauge, Chromium, fonts, Python, platform). Two runs with equal specs
are comparable, which is why resume refuses to continue a run directory whose spec
differs: mixing results from two setups would silently change the numbers.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .items import canonical_json

__all__ = ["RunSpec", "SpecMismatch", "collect_environment", "font_fingerprint", "spec_differences"]

SPEC_FORMAT = 1


class SpecMismatch(RuntimeError):
    """The run directory already holds a run with a different spec."""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class RunSpec:
    """What a run is: the user's choices. The environment is added by :meth:`resolve`.

    ``models`` are names or dicts as the suite passes them to ``get_model``; ``seeds``
    are the run's seeds (``WorkerContext.seed`` derives per-item seeds from the first);
    ``prompts`` maps a prompt name to its text (stored with its sha256); ``options`` is
    any JSON the suite wants recorded and handed to handlers as ``ctx.options``.
    """

    suite: str
    models: list = field(default_factory=list)
    seeds: list[int] = field(default_factory=lambda: [0])
    prompts: dict[str, str] = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.suite, str) or not self.suite:
            raise ValueError(f"RunSpec.suite must be a non-empty string, got {self.suite!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in self.seeds):
            raise TypeError(f"RunSpec.seeds must be a list of ints, got {self.seeds!r}")
        for name, text in self.prompts.items():
            if not isinstance(text, str):
                raise TypeError(f"RunSpec.prompts[{name!r}] must be the prompt text (str), got {type(text).__name__}")
        for label, value in (("models", self.models), ("options", self.options)):
            try:
                canonical_json(value)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"RunSpec.{label} must be JSON-serializable: {exc}") from None

    @property
    def base_seed(self) -> int:
        """The first seed (0 when none are given): the root of per-item seeds."""
        return self.seeds[0] if self.seeds else 0

    def to_dict(self) -> dict:
        """The user part of ``spec.json`` (prompts carry text and sha256)."""
        return {
            "suite": self.suite,
            "models": self.models,
            "seeds": list(self.seeds),
            "prompts": {k: {"text": v, "sha256": _sha256(v)} for k, v in sorted(self.prompts.items())},
            "options": self.options,
        }

    @classmethod
    def from_dict(cls, data: dict) -> RunSpec:
        """Rebuild a spec from the user part of ``spec.json``."""
        prompts = {k: (v["text"] if isinstance(v, dict) else v) for k, v in (data.get("prompts") or {}).items()}
        return cls(
            suite=data["suite"],
            models=list(data.get("models") or []),
            seeds=list(data.get("seeds") or []),
            prompts=prompts,
            options=dict(data.get("options") or {}),
        )

    def resolve(self) -> dict:
        """The full ``spec.json`` document: the user part plus the machine's environment."""
        return {"format": SPEC_FORMAT, "spec": self.to_dict(), "environment": collect_environment()}


def font_fingerprint() -> dict:
    """A fingerprint of the installed fonts (``fc-list``): count, sha256 and families.

    Font changes move text by pixels, so they belong in the spec. When ``fc-list`` is
    missing, the error text is recorded instead of a fingerprint.
    """
    try:
        out = subprocess.run(
            ["fc-list", "--format", "%{family}|%{style}|%{fontversion}|%{file}\n"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return {"error": f"fc-list failed: {type(exc).__name__}: {exc}"}
    lines = sorted({line for line in out.splitlines() if line.strip()})
    families = sorted({line.split("|", 1)[0].split(",")[0] for line in lines})
    return {"count": len(lines), "sha256": _sha256("\n".join(lines)), "families": families}


def _chromium_version() -> str:
    """The browser webgauge launches: its binary's name and version (``chromium-headless-shell:
    Chromium 156.0.8078.114``), or the error."""
    try:
        from webgauge.browser.chromium import browser_label  # lazy: the browser layer is optional here
    except Exception as exc:  # noqa: BLE001 - any import problem is recorded, not hidden
        return f"error: cannot import webgauge.browser.chromium.browser_label: {type(exc).__name__}: {exc}"
    return browser_label()


def collect_environment() -> dict:
    """Versions of everything outside the spec that can change results."""
    from webgauge import __version__

    return {
        "webgauge": __version__,
        "chromium": _chromium_version(),
        "fonts": font_fingerprint(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


# Environment fields that describe the machine but do not change results.
_IGNORED = ("environment.platform", "environment.fonts.families")


def spec_differences(old: dict, new: dict) -> list[str]:
    """Dotted paths where two ``spec.json`` documents differ (empty when compatible)."""
    a, b = _flatten(old), _flatten(new)
    keys = sorted(set(a) | set(b))
    diffs = []
    for key in keys:
        if any(key == p or key.startswith(p + ".") for p in _IGNORED):
            continue
        if canonical_json(a.get(key)) != canonical_json(b.get(key)):
            diffs.append(key)
    return diffs


def read_spec(path: Path) -> dict:
    """Load ``spec.json`` with a clear error when it is unreadable."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SpecMismatch(
            f"{path} exists but cannot be read ({exc}); use --out NEW_DIR for a fresh run or --force to start over here"
        ) from None
