"""Generic answers per free-text task: what ``random-guess`` draws from where a benchmark holds no
target to draw from (real pages' purposes and field values are consensus targets, known only once
models have answered). Content, not logic: plain tuples, no page's own words."""

from __future__ import annotations

__all__ = ["GENERIC_ANSWERS"]

GENERIC_ANSWERS: dict[str, tuple[str, ...]] = {
    "layout": (
        "An online shop selling products to customers.",
        "A news site publishing articles and stories.",
        "A personal blog sharing posts about the author's interests.",
        "A company website describing its services and how to contact it.",
        "A documentation page explaining how to use a software tool.",
        "A login page for signing in to an account.",
        "A booking site for reserving hotel rooms or tickets.",
        "A landing page inviting visitors to sign up.",
        "A forum where people discuss topics and ask questions.",
        "A reference page of data, tables and calculations.",
    ),
    "form_fill": (
        "John Smith", "john.smith@example.com", "+1 555 0100", "London", "Hello, I have a question.",
        "search term", "12/31/2026", "2", "password123", "12345",
    ),
    "hint_text": (
        "Search", "Email address", "Your name", "Enter your email", "Password", "Phone number",
        "Type a message", "Search site",
    ),
    "text": (
        "Submits the form.", "Opens the menu.", "Signs the user in.", "Goes to the next page.",
        "Adds the item to the cart.", "Shows more results.", "Closes the dialog.", "Starts a search.",
    ),
}
