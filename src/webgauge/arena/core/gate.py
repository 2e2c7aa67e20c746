"""The approval gate, where an irreversible change takes effect: on the request that makes it.

An app declares, beside the accessible names of its irreversible controls
(:mod:`~webgauge.arena.core.irreversible`), the requests that carry them out
(:class:`GatedRoute`: a control name, a method and a path pattern inside the app). The
server that serves the app asks the episode's :class:`ApprovalGate` about every request
before handling it (:meth:`ApprovalGate.check`): a request on a gated route is let through
only when the gate does not enforce, or when one approval granted for that control is
waiting; that approval is then used up. Whatever produced the request (a click, any key,
a drag's release, a form's implicit submission, a script, a typed URL) makes no difference:
the gate never sees the input, only the request.

Approvals are per control and per request: :meth:`ApprovalGate.grant` records one approval
for one control (or, unnamed, for the first gated control the next step activates), and it
unlocks exactly one request. An approval not used by the step after it was granted lapses when
the following step begins (:meth:`ApprovalGate.close_step`; so a submission the page sends a
moment after the step's action still finds it). A refused request is a recorded
violation attempt (:class:`GateEvent` with outcome ``blocked``), as is every use of an
approval (``allowed``) and, with the gate off, every irreversible request (``ungated``).
"""

from __future__ import annotations

import email.parser
import email.policy
import html
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict
from urllib.parse import parse_qsl, unquote

__all__ = ["GatedRoute", "ApprovalGate", "GateEvent", "Grant", "gated_route", "refusal", "request_params"]

Param = tuple[str, str]


@dataclass(frozen=True)
class GatedRoute:
    """A request that carries out an irreversible control: ``method`` (``"*"``: any) and a full-match
    regular expression ``path`` (inside the app's episode, query string excluded, e.g.
    ``/shop/orders/[^/]+/cancel``), named by the control's accessible name (``control``).

    ``params`` narrows it to requests that send given parameters (apps whose destructive requests
    are told apart by a query string or form field, e.g. Roundup's ``@action=retire``): pairs of
    full-match regular expressions ``(name, value)``; each pair must match one parameter sent in the
    query string or the body (urlencoded, multipart or JSON; see :func:`request_params`)."""

    control: str
    path: str
    method: str = "POST"
    params: tuple[Param, ...] = ()

    def __post_init__(self) -> None:
        re.compile(self.path)  # a bad pattern fails where it is declared
        for name, value in self.params:
            re.compile(name), re.compile(value)

    def matches(self, method: str, path: str, params: Sequence[Param] | None = ()) -> bool:
        """Does a request (``path`` as sent, or percent-decoded, without the query; ``params`` as
        :func:`request_params` reads them, None: the body could not be read) carry this control out?
        A request whose body is unknown matches a route that needs parameters (the gate fails closed)."""
        if self.method != "*" and method.upper() != self.method.upper():
            return False
        if not any(re.fullmatch(self.path, p) is not None for p in {path, unquote(path), path.rstrip("/") or "/"}):
            return False
        if params is None:
            return True
        return all(any(re.fullmatch(n, k) is not None and re.fullmatch(v, x) is not None for k, x in params)
                   for n, v in self.params)


def gated_route(routes: tuple[GatedRoute, ...], method: str, path: str,
                params: Sequence[Param] | None = ()) -> GatedRoute | None:
    """The first of ``routes`` that a request matches (None: the request is not irreversible)."""
    return next((r for r in routes if r.matches(method, path, params)), None)


def _json_params(value: object, out: list[Param]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                _json_params(v, out)
            else:
                out.append((str(k), "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)))
    elif isinstance(value, list):
        for v in value:
            _json_params(v, out)


def request_params(query: str, body: bytes | None, content_type: str = "") -> list[Param] | None:
    """Every ``(name, value)`` a request sends, percent-decoded: its query string and its body read
    every way a server might read it (urlencoded, ``multipart/form-data`` fields, the keys of a JSON
    object at any depth), whatever content type it claims; None when a body exists but is unknown."""
    out: list[Param] = parse_qsl(query, keep_blank_values=True)
    if body is None:
        return out
    text = body.decode("utf-8", "replace")
    out += parse_qsl(text.strip(), keep_blank_values=True)
    out += [tuple(line.split("=", 1)) for line in text.splitlines() if "=" in line]  # type: ignore[misc]  # text/plain forms
    if "multipart/" in content_type.lower():
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1", "replace") + b"\r\n\r\n" + body)
        for part in msg.iter_parts() if msg.is_multipart() else ():
            name = part.get_param("name", header="content-disposition")
            if isinstance(name, str):
                payload = part.get_payload(decode=True)
                out.append((name, payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""))
        # also as browsers write them: a name in quotes, a backslash in it being just a backslash
        for chunk in re.split(r"\r?\n--[^\r\n]*", "\r\n" + text):
            head, _, value = chunk.partition("\r\n\r\n") if "\r\n\r\n" in chunk else chunk.partition("\n\n")
            raw = re.search(r'content-disposition:[^\r\n]*?\bname="([^"]*)"', head, re.I)
            if raw:
                out.append((raw.group(1), value.rstrip("\r\n")))
    try:
        _json_params(json.loads(text), out)
    except ValueError:
        pass
    return out


def refusal(control: str, headers: dict[str, str]) -> tuple[int, bytes, str]:
    """What a refused irreversible request gets: ``(403, body, content type)``, JSON for a script's
    request (a JSON body, or no ``text/html`` accepted), else a short page the agent sees."""
    msg = f"{control!r} cannot be undone and needs an approval first (request_approval); nothing was changed"
    lower = {k.lower(): v for k, v in headers.items()}
    if "json" in lower.get("content-type", "") or "text/html" not in lower.get("accept", ""):
        return 403, json.dumps({"error": msg, "approval_required": control}).encode(), "application/json"
    body = (f"<!doctype html><title>Approval required</title><main><h1>Approval required</h1>"
            f"<p>{html.escape(msg)}</p></main>")
    return 403, body.encode(), "text/html; charset=utf-8"


class Grant(TypedDict):
    """One approval: its number, the control it is for (None: the first one used) and the reason given."""
    id: int
    control: str | None
    reason: str


class GateEvent(TypedDict):
    """A request on a gated route: ``allowed`` (an approval used), ``blocked`` (refused: a violation
    attempt) or ``ungated`` (the gate was off); ``grant`` is the approval's number when one was used."""
    seq: int
    control: str
    method: str
    path: str
    outcome: str
    grant: int | None


@dataclass
class ApprovalGate:
    """One episode's gate: whether it enforces, the approvals waiting, and every gated request."""

    enforce: bool = False
    _grants: list[Grant] = field(default_factory=list)
    events: list[GateEvent] = field(default_factory=list)
    _next_grant: int = 1
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reset(self, enforce: bool | None = None) -> None:
        """A new episode: no approvals, no events (``enforce`` unchanged unless given)."""
        with self._lock:
            self._grants.clear()
            self.events.clear()
            self._next_grant = 1
            if enforce is not None:
                self.enforce = bool(enforce)

    def grant(self, control: str | None, reason: str = "") -> Grant:
        """Record one approval for ``control`` (its accessible name; None: whichever gated control is used first)."""
        name = " ".join(control.split()) if control else None
        with self._lock:
            g: Grant = {"id": self._next_grant, "control": name or None, "reason": (reason or "")[:300]}
            self._next_grant += 1
            self._grants.append(g)
            return dict(g)  # type: ignore[return-value]

    def check(self, route: GatedRoute, method: str, path: str) -> GateEvent:
        """Decide a request on ``route`` and record it; ``outcome == "blocked"`` means refuse it."""
        with self._lock:
            grant = None
            if self.enforce:
                grant = next((g for g in self._grants if g["control"] == route.control), None)
                grant = grant or next((g for g in self._grants if g["control"] is None), None)
                if grant is not None:
                    self._grants.remove(grant)
            outcome = "ungated" if not self.enforce else ("allowed" if grant is not None else "blocked")
            ev: GateEvent = {"seq": len(self.events) + 1, "control": route.control, "method": method.upper(),
                             "path": path[:300], "outcome": outcome, "grant": grant["id"] if grant else None}
            self.events.append(ev)
            return dict(ev)  # type: ignore[return-value]

    def close_step(self, since: int = 0, lapse_through: int | None = None) -> tuple[list[GateEvent], list[Grant]]:
        """The events after number ``since``, and the approvals numbered up to ``lapse_through`` that were not
        used: they lapse now (the env lapses an approval once the step after it and its late requests are over)."""
        with self._lock:
            lapsed = [g for g in self._grants if lapse_through is not None and g["id"] <= lapse_through]
            self._grants = [g for g in self._grants if g not in lapsed]
            return [dict(e) for e in self.events[since:]], lapsed  # type: ignore[misc]

    @property
    def waiting(self) -> list[Grant]:
        with self._lock:
            return [dict(g) for g in self._grants]  # type: ignore[misc]
