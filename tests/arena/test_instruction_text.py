"""Instruction text: no "(s)", articles that agree with the next word's sound, no password of
the world spelled out. Every family is rendered at 200 seeds."""

from __future__ import annotations

import re

import pytest

from webgauge.arena.tasks import FAMILIES, seed_state

SEEDS = tuple(range(200))
PLURAL_HEDGE = re.compile(r"\w\(s\)|\(s\)\w", re.IGNORECASE)
_ARTICLE = re.compile(r"(?:(?<=^)|(?<=[.!?:]\s)|(?<=\s)|(?<=\())(a|an|A|An)\s+[\"'‘“(]?([A-Za-z][\w-]*)")
_SILENT_H = ("hour", "honest", "honour", "honor", "heir")
_YOU_SOUND = ("uni", "use", "usu", "uti", "ure", "uro", "eu", "ewe", "one", "once", "ubiq", "ukr", "uga")
_VOWEL_LETTER_NAMES = set("aefhilmnorsx")  # letters whose spoken name starts with a vowel sound (an MP, an SLA)


def vowel_sound(word: str) -> bool:
    """Whether ``word`` is spoken starting with a vowel sound (what "an" needs)."""
    w = word.lower()
    if len(word) > 1 and word.isupper():  # an abbreviation, read letter by letter
        return w[0] in _VOWEL_LETTER_NAMES
    if w.startswith(_SILENT_H):
        return True
    if w.startswith(_YOU_SOUND):
        return False
    return w[0] in "aeiou"


def article_errors(text: str) -> list[str]:
    out = []
    for m in _ARTICLE.finditer(text):
        art, word = m.group(1).lower(), m.group(2)
        starts_sentence = m.start() == 0 or text[m.start() - 2:m.start()] in (". ", "? ", "! ", ": ")
        if m.group(1) == "A" and not starts_sentence:
            continue  # a capital A inside a sentence is a name ("Plan A"), not an article
        if (art == "a") == vowel_sound(word):
            out.append(f"{m.group(1)} {word}")
    return out


def passwords(state: dict) -> set[str]:
    """Every password value the world holds (any table with a password column)."""
    return {str(r["password"]) for rows in state.values() for r in rows if isinstance(r, dict) and r.get("password")}


def rule_violations(instruction: str, secrets: set[str]) -> dict[str, list[str]]:
    return {"plural (s)": PLURAL_HEDGE.findall(instruction), "article": article_errors(instruction),
            "password": sorted(p for p in secrets if p in instruction)}


@pytest.mark.parametrize("text,bad", [
    ("Book it for 1 hour(s).", {"plural (s)"}), ("Give them a Editor role.", {"article"}),
    ("Pick a Onyx lamp.", {"article"}), ("Pick an Tan lamp.", {"article"}),
    ("Sign in with ops-a / moss-jacket-15.", {"password"}),
    ("Give them an Editor role, a user account, an hour, a one-off fee and an SLA.", set()),
    ("Book it for 2 hours. A review follows; see Plan A in a minute.", set()),
])
def test_the_rules_catch_what_they_should(text, bad):
    got = {k for k, v in rule_violations(text, {"moss-jacket-15"}).items() if v}
    assert got == bad, (text, rule_violations(text, {"moss-jacket-15"}))


@pytest.mark.timeout(1800)  # 11,600 tasks built from 200 worlds: a minute or two, more on a loaded machine
def test_every_family_at_200_seeds_writes_clean_instructions():
    counts: dict[str, int] = {"plural (s)": 0, "article": 0, "password": 0}
    examples: dict[str, list[str]] = {k: [] for k in counts}
    n = 0
    for seed in SEEDS:
        state = seed_state(seed)
        secrets = passwords(state)
        assert secrets, "the world holds no password: the password rule would test nothing"
        for fam in FAMILIES.values():
            t = fam(seed, state)
            n += 1
            for rule, hits in rule_violations(t.instruction, secrets).items():
                if hits:
                    counts[rule] += 1
                    examples[rule].append(f"{t.id}: {hits} in {t.instruction!r}")
    assert n == 200 * len(FAMILIES)
    assert counts == {"plural (s)": 0, "article": 0, "password": 0}, {k: v[:5] for k, v in examples.items()}
