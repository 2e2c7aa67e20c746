"""BrowserGym-compatible action strings, parsed into arena actions.

BrowserGym and AgentLab agents answer with Python-like calls such as ``click('a12')`` or
``fill('b3', 'hello')``, where the id is an element id ("bid") from the observation. This
module turns such a string into :class:`~webgauge.arena.core.actions.Action` values, so those
agents run here with little glue. The string is parsed with :mod:`ast` and only literal
arguments are read (``ast.literal_eval`` per argument): nothing is ever executed, and any
other syntax (attributes, names, assignments, imports) is a clear error.

Supported calls (BrowserGym's high-level action set):

=========================================  ===============================================
``noop(wait_ms=1000)``                      ``wait``
``send_msg_to_user(text)``                  ``done(answer=text)`` (the arena's answer channel);
                                             ``'request_approval: NAME'``: ``request_approval``
                                             for the control named NAME (the episode goes on)
``click(bid, button='left', modifiers=[])``  ``click`` (``modifiers`` e.g. ``['Shift']``)
``dblclick(bid)``                            pointer ``double_click`` at the element's centre
``fill(bid, value)`` / ``clear(bid)``        ``fill`` / ``fill`` with ``''``
``select_option(bid, options)``              ``select`` (one option; a one-item list is fine)
``check(bid)`` / ``uncheck(bid)``            ``click`` when the box is not already in that state
``hover(bid)``                               ``hover``
``press(bid, key_comb)``                     ``press`` on the element (``'Control+a'`` works)
``focus(bid)``                               ``focus``
``scroll(delta_x, delta_y)``                 ``scroll``
``drag_and_drop(from_bid, to_bid)``          semantic ``drag`` from one element onto another
``mouse_click(x, y)`` / ``mouse_dblclick``   pointer ``click`` / ``double_click``
``mouse_down(x, y)`` / ``mouse_up(x, y)``    pointer ``drag_start`` / ``drag_end``
``mouse_drag_and_drop(x1, y1, x2, y2)``      pointer ``drag_start`` then ``drag_end``
``keyboard_type(text)``                      ``type_text`` (types into the focused element)
``keyboard_insert_text(text)``               ``type_text``
``keyboard_press(key)``                      ``press`` on the focused element
``upload_file(bid, file)``                   ``upload``: ``file`` is the bare name of one of the
                                             task's files (never a host path; a one-item list is fine)
``goto(url)`` / ``go_back()`` / ``go_forward()``  ``goto`` / ``back`` / ``forward``
``tab_focus(index)``                         ``switch_tab``
=========================================  ===============================================

Mouse coordinates are CSS pixels of the viewport, as in BrowserGym; they are normalized
against the observation the agent was shown and bound to its screenshot (through the
observation's short token when it has one, else its hash), so a string aimed at an older
screenshot is still rejected as stale by the environment. Not supported (a clear error
says so): ``new_tab``, ``tab_close``, ``report_infeasible``,
``mouse_move``, ``keyboard_up``/``keyboard_down``.
"""

from __future__ import annotations

import ast
from typing import Any

from ..core.actions import Action, ActionError, check_file_name

APPROVAL_PREFIX = "request_approval:"
"""An approval request in BrowserGym's chat: ``send_msg_to_user`` with this prefix, then the control's
accessible name (``browsergym.webgauge.chat.APPROVAL_PREFIX``, the same string; a test keeps them equal)."""

__all__ = ["APPROVAL_PREFIX", "BGYM_ACTIONS", "parse_bgym_action", "bgym_action_help"]

MAX_CODE_CHARS = 5000

# name -> (positional parameter names, defaults)
_SIGNATURES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "noop": (("wait_ms",), {"wait_ms": 1000}),
    "send_msg_to_user": (("text",), {}),
    "click": (("bid", "button", "modifiers"), {"button": "left", "modifiers": []}),
    "dblclick": (("bid", "button", "modifiers"), {"button": "left", "modifiers": []}),
    "fill": (("bid", "value"), {}),
    "clear": (("bid",), {}),
    "select_option": (("bid", "options"), {}),
    "check": (("bid",), {}),
    "uncheck": (("bid",), {}),
    "hover": (("bid",), {}),
    "press": (("bid", "key_comb"), {}),
    "focus": (("bid",), {}),
    "scroll": (("delta_x", "delta_y"), {}),
    "drag_and_drop": (("from_bid", "to_bid"), {}),
    "mouse_click": (("x", "y", "button"), {"button": "left"}),
    "mouse_dblclick": (("x", "y", "button"), {"button": "left"}),
    "mouse_down": (("x", "y", "button"), {"button": "left"}),
    "mouse_up": (("x", "y", "button"), {"button": "left"}),
    "mouse_drag_and_drop": (("from_x", "from_y", "to_x", "to_y"), {}),
    "keyboard_type": (("text",), {}),
    "keyboard_insert_text": (("text",), {}),
    "keyboard_press": (("key",), {}),
    "goto": (("url",), {}),
    "go_back": ((), {}),
    "go_forward": ((), {}),
    "tab_focus": (("index",), {}),
    "upload_file": (("bid", "file"), {}),
}
BGYM_ACTIONS = tuple(_SIGNATURES)
_UNSUPPORTED = ("new_tab", "tab_close", "report_infeasible", "mouse_move", "keyboard_up",
                "keyboard_down", "mouse_upload_file")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


def bgym_action_help() -> str:
    """One line per supported call, for an agent's prompt."""
    return "\n".join(f"{name}({', '.join(params)})" for name, (params, _) in _SIGNATURES.items())


def _bind(name: str, call: ast.Call) -> dict[str, Any]:
    params, defaults = _SIGNATURES[name]
    if len(call.args) > len(params):
        raise ActionError(f"{name}() takes at most {len(params)} arguments ({', '.join(params)}), got {len(call.args)}")
    out: dict[str, Any] = dict(defaults)
    for p, node in zip(params, call.args, strict=False):
        out[p] = _literal(name, p, node)
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in params:
            raise ActionError(f"{name}() has no argument {kw.arg!r}; its arguments are {', '.join(params) or 'none'}")
        out[kw.arg] = _literal(name, kw.arg, kw.value)
    missing = [p for p in params if p not in out]
    if missing:
        raise ActionError(f"{name}() is missing {', '.join(missing)}")
    return out


def _literal(name: str, param: str, node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ActionError(f"{name}(): argument {param!r} must be a literal (a quoted string or a number)") from None


def _str(name: str, args: dict, key: str) -> str:
    v = args[key]
    if isinstance(v, (int, float)) and not isinstance(v, bool) and key == "bid":
        v = str(v)  # BrowserGym ids are strings, but agents often write click(12)
    if not isinstance(v, str):
        raise ActionError(f"{name}(): {key!r} must be a string, got {type(v).__name__}")
    return v


def _num(name: str, args: dict, key: str) -> float:
    v = args[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ActionError(f"{name}(): {key!r} must be a number, got {type(v).__name__}")
    return float(v)


class _Context:
    """What the parser needs from the observation the string answers (may be None)."""

    def __init__(self, obs) -> None:
        self.obs = obs

    def token(self, name: str) -> dict:
        if self.obs is None or not (getattr(self.obs, "token", None) or self.obs.screenshot_hash):
            raise ActionError(f"{name}() uses screen coordinates; it needs an observation with a screenshot")
        tok = getattr(self.obs, "token", None)
        return {"token": tok} if tok else {"screenshot_hash": self.obs.screenshot_hash}

    def point(self, name: str, x: float, y: float) -> tuple[float, float]:
        w, h = self.obs.viewport
        if not (0 <= x <= w and 0 <= y <= h):
            raise ActionError(f"{name}(): ({x:g}, {y:g}) is outside the {w}x{h} viewport")
        return x / w, y / h

    def centre(self, name: str, bid: str) -> tuple[float, float]:
        el = self.obs.element(bid) if self.obs is not None else None
        if el is None:
            raise ActionError(f"{name}(): no element {bid!r} in the current observation")
        x, y, w, h = self.obs.viewport_box(el)
        return self.point(name, x + w / 2, y + h / 2)


def _one(name: str, args: dict, ctx: _Context) -> list[Action]:
    if name == "noop":
        return [Action("wait", ms=int(min(max(_num(name, args, "wait_ms"), 0), 60000)))]
    if name == "send_msg_to_user":
        text = _str(name, args, "text")
        if text.strip().lower().startswith(APPROVAL_PREFIX):  # the form integrations/browsergym's task reads
            control = " ".join(text.strip()[len(APPROVAL_PREFIX):].split())
            return [Action("request_approval", reason=text, value=control or None)]
        return [Action("done", answer=text)]
    if name in ("click", "dblclick"):
        bid = _str(name, args, "bid")
        if args["button"] != "left":
            raise ActionError(f"{name}(): only button='left' is supported, got {args['button']!r}")
        mods = args["modifiers"]
        if not isinstance(mods, (list, tuple)) or any(m not in MODIFIERS for m in mods):
            raise ActionError(f"{name}(): modifiers must be a list drawn from {', '.join(MODIFIERS)}")
        if name == "dblclick":
            if mods:
                raise ActionError("dblclick(): modifiers are not supported")
            x, y = ctx.centre(name, bid)
            return [Action("pointer", pointer="double_click", x=x, y=y, **ctx.token(name))]
        return [Action("click", element=bid, modifiers=tuple(mods) or None)]
    if name == "fill":
        return [Action("fill", element=_str(name, args, "bid"), value=_str(name, args, "value"))]
    if name == "clear":
        return [Action("fill", element=_str(name, args, "bid"), value="")]
    if name == "select_option":
        opts = args["options"]
        if isinstance(opts, (list, tuple)):
            if len(opts) != 1:
                raise ActionError("select_option(): select exactly one option (multi-select is not supported)")
            opts = opts[0]
        if not isinstance(opts, str):
            raise ActionError("select_option(): 'options' must be a string or a one-item list of strings")
        return [Action("select", element=_str(name, args, "bid"), value=opts)]
    if name in ("check", "uncheck"):
        bid = _str(name, args, "bid")
        el = ctx.obs.element(bid) if ctx.obs is not None else None
        checked = el is not None and ("checked" in el.attrs or el.attrs.get("aria-checked") == "true")
        if el is not None and checked == (name == "check"):
            return [Action("wait", ms=0)]  # already in the asked state: BrowserGym's check() is idempotent
        return [Action("click", element=bid)]
    if name == "hover":
        return [Action("hover", element=_str(name, args, "bid"))]
    if name == "focus":
        return [Action("focus", element=_str(name, args, "bid"))]
    if name == "press":
        return [Action("press", element=_str(name, args, "bid"), key=_str(name, args, "key_comb"))]
    if name == "keyboard_press":
        return [Action("press", key=_str(name, args, "key"))]
    if name in ("keyboard_type", "keyboard_insert_text"):
        return [Action("type_text", value=_str(name, args, "text"))]
    if name == "scroll":
        return [Action("scroll", dx=_num(name, args, "delta_x"), dy=_num(name, args, "delta_y"))]
    if name == "drag_and_drop":
        return [Action("drag", element=_str(name, args, "from_bid"), target=_str(name, args, "to_bid"))]
    if name in ("mouse_click", "mouse_dblclick", "mouse_down", "mouse_up"):
        if args["button"] != "left":
            raise ActionError(f"{name}(): only button='left' is supported, got {args['button']!r}")
        x, y = ctx.point(name, _num(name, args, "x"), _num(name, args, "y"))
        kind = {"mouse_click": "click", "mouse_dblclick": "double_click", "mouse_down": "drag_start",
                "mouse_up": "drag_end"}[name]
        return [Action("pointer", pointer=kind, x=x, y=y, **ctx.token(name))]
    if name == "mouse_drag_and_drop":
        tok = ctx.token(name)
        x1, y1 = ctx.point(name, _num(name, args, "from_x"), _num(name, args, "from_y"))
        x2, y2 = ctx.point(name, _num(name, args, "to_x"), _num(name, args, "to_y"))
        return [Action("pointer", pointer="drag_start", x=x1, y=y1, **tok),
                Action("pointer", pointer="drag_end", x=x2, y=y2, **tok)]
    if name == "goto":
        return [Action("goto", url=_str(name, args, "url"))]
    if name == "upload_file":
        f = args["file"]
        if isinstance(f, (list, tuple)):
            if len(f) != 1:
                raise ActionError("upload_file(): attach exactly one file")
            f = f[0]
        return [Action("upload", element=_str(name, args, "bid"), value=check_file_name(f, "upload_file()"))]
    if name == "go_back":
        return [Action("back")]
    if name == "go_forward":
        return [Action("forward")]
    if name == "tab_focus":
        i = args["index"]
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= 99:
            raise ActionError("tab_focus(): 'index' must be a tab index from 0 to 99")
        return [Action("switch_tab", tab=i)]
    raise ActionError(f"{name}() is not supported")  # unreachable: every signature is handled above


def parse_bgym_action(code: str, obs=None) -> list[Action]:
    """The arena actions of a BrowserGym action string (one or more calls, one per line).

    ``obs`` is the observation the agent answered (needed for mouse coordinates, ``dblclick``
    and ``check``). Raises :class:`~webgauge.arena.core.actions.ActionError` naming the fix.
    """
    if not isinstance(code, str):
        raise ActionError(f"a BrowserGym action is a string, got {type(code).__name__}")
    code = code.strip()
    if code.startswith("```"):
        code = code.strip("`").removeprefix("python").strip()
    if not code:
        raise ActionError("empty action; answer with one call such as click('a12') or noop()")
    if len(code) > MAX_CODE_CHARS:
        raise ActionError(f"the action string is longer than {MAX_CODE_CHARS} characters")
    try:
        tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ActionError(f"not a valid action call: {str(exc)[:120]}") from None
    ctx = _Context(obs)
    actions: list[Action] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Name)):
            raise ActionError("each line must be one call such as click('a12'); nothing else is run")
        name = stmt.value.func.id
        if name in _UNSUPPORTED:
            raise ActionError(f"{name}() is not supported in the arena; use one of {', '.join(BGYM_ACTIONS)}")
        if name not in _SIGNATURES:
            raise ActionError(f"unknown action {name}(); use one of {', '.join(BGYM_ACTIONS)}")
        actions.extend(_one(name, _bind(name, stmt.value), ctx))
    if not actions:
        raise ActionError("no action call found")
    return actions
