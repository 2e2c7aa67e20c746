"""Injected pop-ups and late content: the init scripts of the ``popup.*`` and ``late.*`` variants.

Each pop-up is injected into every app document until its dismiss control is used (the
dismissal persists for the episode in ``localStorage``, like a real consent).
"""

from __future__ import annotations

import json

__all__ = ["COOKIE_JS", "NEWSLETTER_JS", "OVERLAY_JS", "LATE_JS", "modal_js"]

_BTN = ("font:600 15px 'DejaVu Sans',Arial,sans-serif;padding:10px 18px;border-radius:6px;border:0;cursor:pointer;"
        "background:#ffd23f;color:#111")


def modal_js(var: str) -> tuple[str, str]:
    """JavaScript that makes the injected dialog in ``var`` modal as accessible sites do (``aria-modal``,
    everything else in the body ``inert``: neither pointer nor keyboard reaches what it covers), and the
    JavaScript that gives the page back when it closes."""
    return (f"{var}.setAttribute('aria-modal', 'true'); const wgInert = Array.from(document.body.children)"
            f".filter(c => c !== {var} && !c.inert); wgInert.forEach(c => {{ c.inert = true; }});",
            "wgInert.forEach(c => { c.inert = false; });")


def _popup_js(key: str, node_id: str, html: str, css: str, close_ids: tuple[str, ...], modal: bool = False) -> str:
    closers = " ".join(f"d.querySelector('#{c}').addEventListener('click', close);" for c in close_ids)
    inert, release = modal_js("d") if modal else ("", "")
    return (f"if (localStorage.getItem('wg-dismissed-{key}')) return; const d = document.createElement('div');"
            f"d.id = '{node_id}'; d.setAttribute('role', 'dialog'); d.style.cssText = {json.dumps(css)};"
            f"d.innerHTML = {json.dumps(html)}; document.body.appendChild(d); {inert}"
            f"const close = (e) => {{ e.preventDefault(); localStorage.setItem('wg-dismissed-{key}', '1'); "
            f"d.remove(); {release} }};"
            f"{closers}")


COOKIE_JS = _popup_js(
    "cookie", "wg-cookie",
    "<div style='flex:1'><b style='font-size:17px'>We value your privacy</b><br>We and our partners use cookies to "
    "personalise content and measure traffic. You can change your choice at any time in the footer.</div>"
    f"<button id='wg-cookie-accept' style=\"{_BTN}\">Accept all cookies</button>",
    "position:fixed;left:0;right:0;bottom:0;z-index:2147483000;background:#1b1f24;color:#fff;padding:24px 32px;"
    "font:15px/1.45 'DejaVu Sans',Arial,sans-serif;display:flex;gap:20px;align-items:center;min-height:34vh;"
    "box-shadow:0 -6px 22px rgba(0,0,0,.35)", ("wg-cookie-accept",))

NEWSLETTER_JS = _popup_js(
    "newsletter", "wg-newsletter",
    "<div style='background:#fff;border-radius:12px;padding:28px 30px;width:min(440px,88vw);position:relative;"
    "box-shadow:0 12px 40px rgba(0,0,0,.35)'><button id='wg-newsletter-close' aria-label='Close newsletter' "
    "style='position:absolute;right:12px;top:8px;border:0;background:none;font-size:26px;cursor:pointer'>×</button>"
    "<h2 style='margin:0 0 8px'>Get 10% off</h2><p>Join 40,000 readers and get weekly news.</p>"
    "<input placeholder='you@example.com' aria-label='Newsletter e-mail' style='width:100%;padding:8px'>"
    f"<p><button style=\"{_BTN}\">Subscribe</button> <button id='wg-newsletter-no' "
    "style='border:0;background:none;color:#555;text-decoration:underline;cursor:pointer'>No thanks</button></p></div>",
    "position:fixed;inset:0;z-index:2147483000;background:rgba(10,15,30,.55);display:flex;align-items:center;"
    "justify-content:center;font:15px/1.45 'DejaVu Sans',Arial,sans-serif", ("wg-newsletter-close", "wg-newsletter-no"),
    modal=True)

OVERLAY_JS = _popup_js(
    "overlay", "wg-chat",
    "<div style='display:flex;justify-content:space-between;align-items:center;background:#2b59c3;color:#fff;"
    "padding:12px 16px;border-radius:10px 10px 0 0'><b>Chat with us</b><button id='wg-chat-close' "
    "aria-label='Minimize chat' "
    "style='border:0;background:none;color:#fff;font-size:22px;cursor:pointer'>–</button></div>"
    "<div style='padding:16px'><p>Hi! 👋 Questions about your order? Our team replies in minutes.</p>"
    "<p style='color:#666'>Agents are online</p></div>",
    "position:fixed;right:0;bottom:0;width:min(480px,100vw);height:58vh;z-index:2147483000;background:#fff;"
    "border:1px solid #c9cfdb;border-radius:10px 10px 0 0;box-shadow:0 -4px 24px rgba(0,0,0,.25);"
    "font:15px/1.45 'DejaVu Sans',Arial,sans-serif", ("wg-chat-close",))

LATE_JS = ("const m = document.querySelector('main'); if (!m) return; m.style.visibility = 'hidden';"
           "const l = document.createElement('div'); l.textContent = 'Loading…'; l.setAttribute('role', 'status');"
           "l.style.cssText = 'position:fixed;top:45%;left:0;right:0;text-align:center;font:18px "
           "sans-serif;color:#555';"
           "document.body.appendChild(l);"
           "setTimeout(() => { m.style.visibility = ''; l.remove(); }, 1200);")
