"""Small Starlette helpers shared by the ported apps (account, dashboard, floor plan, kanban):
one Jinja2 environment for the templates folder, rendering with the shared stylesheet,
303 redirects inside the episode, and reading a POST body as a form or as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

from .asgi import template_cache
from .common import BASE_CSS

__all__ = ["render", "redirect", "static", "payload", "TEMPLATES"]

TEMPLATES = Path(__file__).parent / "templates"


_env = template_cache(TEMPLATES)


def render(request, name: str, title: str, toast: str = "", **ctx):
    """An HTML response from template ``name`` (the episode base and stylesheet filled in)."""
    from starlette.responses import HTMLResponse

    return HTMLResponse(_env().get_template(name).render(title=title, base_css=BASE_CSS, base=request.state.base,
                                                         toast=toast, **ctx))


def redirect(request, path: str, **query):
    """A 303 redirect to ``path`` inside the episode (empty query values dropped)."""
    from starlette.responses import RedirectResponse

    q = {k: v for k, v in query.items() if v not in (None, "")}
    return RedirectResponse(request.state.base + path + (("?" + urlencode(q)) if q else ""), status_code=303)


def static(name: str, media_type: str = "text/javascript"):
    """An endpoint serving one file of the templates folder (an app's script)."""
    async def endpoint(request):
        from starlette.responses import Response

        return Response((TEMPLATES / name).read_bytes(), media_type=media_type)

    return endpoint


async def payload(request) -> tuple[dict[str, list[str]], bool]:
    """The POST body as ``{field: [values]}`` and whether it was JSON (JSON scalars become one value)."""
    if "json" in request.headers.get("content-type", ""):
        try:
            data = json.loads(await request.body() or b"null")
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return {}, True
        return {k: [str(x) for x in (v if isinstance(v, list) else [v])] for k, v in data.items()}, True
    form = await request.form()
    return {k: [str(v) for v in form.getlist(k)] for k in form.keys()}, False
