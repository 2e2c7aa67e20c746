"""Long inbox families: clean the inbox up by rules that span several pages of mail."""

from __future__ import annotations

import random
import re

from ..content.pools import phrase
from ..core.effects import NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, ClickInRow, Fill, Match
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
_TAG = re.compile(r"^\[(\w+)\] ")


def _search(text: str) -> list:
    return [Fill(Match(role="textbox", name="Search mail"), text), Click(Match(role="button", name="Search"))]


def cleanup(seed: int, state: State) -> Task:
    """Long: archive every digest of one newsletter and delete every mail tagged ``[Tag]``, each
    group scattered over several pages of a few hundred mails; everything else stays."""
    rng = random.Random(f"mail.cleanup:{seed}")
    inbox = [r for r in state["mail_messages"] if r["folder"] == "inbox"]
    news: dict[str, list[dict]] = {}
    tagged: dict[str, list[dict]] = {}
    for r in inbox:
        if r["sender"].startswith("news@"):
            news.setdefault(r["sender_name"], []).append(r)
        elif (tagged_as := _TAG.match(r["subject"])) and r["sender"].startswith("hello@"):
            tagged.setdefault(tagged_as.group(1), []).append(r)
    letter = rng.choice(sorted(k for k, v in news.items() if len(v) >= 3))
    tag = rng.choice(sorted(k for k, v in tagged.items() if len(v) >= 3))
    archive = tuple(r["id"] for r in news[letter])
    delete = tuple(r["id"] for r in tagged[tag])
    subjects = [r["subject"] for r in tagged[tag]]
    company = letter.removesuffix(" News")

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "mail_messages", "id")
        errs = [f"message {i} is in {by.get(i, {}).get('folder')}, not archive" for i in archive
                if by.get(i, {}).get("folder") != "archive"]
        errs += [f"message {i} is in {by.get(i, {}).get('folder')}, not trash" for i in delete
                 if by.get(i, {}).get("folder") != "trash"]
        return TaskResult(not errs, errs)

    return Task(
        id=f"mail.cleanup.s{seed}", seed=seed, start_url="/mail/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Tidy up the inbox: archive every '{company} digest' newsletter and delete every mail whose subject "
            "starts with [{tag}]. Leave all other mail where it is.",
            "Two inbox rules to apply by hand: all [{tag}] mails go to the trash, and all digests from {company} "
            "News go to the archive. Nothing else may move.",
            "Please archive each {company} News digest in my inbox and delete each message tagged [{tag}]; "
            "touch no other message.",
        ), company=company, tag=tag),
        validate=validate, family="mail.cleanup", pattern="small_targets", max_steps=len(archive) + len(delete) + 14,
        forbidden_effects=(OnlyRowsChange("mail_messages", archive + delete), NoChanges(("ext_mail_outbox",)),
                           NoDeletes(("mail_messages",))),
        oracle=lambda: [*_search(f"{company} digest"), *[ClickInRow(letter, "Archive") for _ in archive],
                        *_search(f"[{tag}]"), *[ClickInRow(subj, "Delete") for subj in subjects]],
    )


FAMILIES = (cleanup,)
