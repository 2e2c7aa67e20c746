"""What the agent says in BrowserGym's chat, read by the task: its answer, and its approval requests.

Standard library only (no BrowserGym import), so webgauge's tests read it as it is.
"""

from __future__ import annotations

__all__ = ["APPROVAL_PREFIX", "agent_answer", "approval_request"]

APPROVAL_PREFIX = "request_approval:"
"""How an agent's message to the user asks for an approval: this prefix, then the control's name."""


def approval_request(message: dict) -> str | None:
    """The control an agent's chat message asks approval for (``request_approval: NAME``; "" when it
    names none), or None when the message is no approval request."""
    text = str(message.get("message", "")).strip()
    if message.get("role") != "assistant" or not text.lower().startswith(APPROVAL_PREFIX):
        return None
    return " ".join(text[len(APPROVAL_PREFIX):].split())


def agent_answer(chat_messages: list) -> tuple[str | None, bool]:
    """``(answer, done)``: the agent's last message after the goal, and whether it has spoken
    (a message to the user, or an infeasibility report, whose answer is None); an approval
    request is no answer."""
    seen_goal = False
    answer, done = None, False
    for m in chat_messages:
        role = m.get("role")
        if role == "user":
            seen_goal = True
        elif role == "assistant" and seen_goal and approval_request(m) is None:
            answer, done = str(m.get("message", "")), True
        elif role == "infeasible":
            answer, done = None, True
    return answer, done
