"""The BrowserGym side of tests/browsergym: run with the BrowserGym venv's python (never imports webgauge).

Reads one JSON command per line on stdin, writes one JSON reply per line on stdout:

- ``{"op": "init", "capture_js": ..., "chromium": ...}``: the page script that reads an element
  table (webgauge's, sent by the test) and the system Chromium to run;
- ``{"op": "reset", "family": ..., "seed": ...}``: ``gym.make("browsergym/webgauge.<family>")``
  with BrowserGym's high-level action set (as AgentLab builds it), then ``env.reset(seed=...)``;
- ``{"op": "step", "action": "click('12')"}``: ``env.step(action)``;
- ``{"op": "probe", "js": ...}``: a script of the test's own, run in BrowserGym's page after each
  later reset (and in every document the episode opens); ``""`` stops it;
- ``{"op": "page_eval", "js": ...}``: the value of ``js`` evaluated in BrowserGym's page (its main world);
- ``{"op": "close"}``.

Each reset/step reply carries the BrowserGym observation's keys, the reward and flags, and a
view of BrowserGym's own page: the element table read there plus each element's ``bid``.
"""

from __future__ import annotations

import json
import sys
import time
import traceback

BID_JS = """(paths) => paths.map((p) => {
  const el = document.evaluate(p, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  return el && el.getAttribute ? el.getAttribute("bid") : null;
})"""
OBS_KEYS = ("axtree_object", "dom_object", "extra_element_properties", "screenshot", "goal_object", "chat_messages",
            "url", "open_pages_urls", "active_page_index", "last_action_error", "focused_element_bid")


class Driver:
    def __init__(self) -> None:
        self.env = None
        self.capture_js = ""
        self.chromium = ""
        self.probe_js = ""

    def init(self, cmd: dict) -> dict:
        from importlib.metadata import version

        import browsergym.webgauge

        self.capture_js, self.chromium = cmd["capture_js"], cmd["chromium"]
        return {"browsergym_core": version("browsergym-core"), "playwright": version("playwright"),
                "registered": len(browsergym.webgauge.ENV_IDS)}

    def view(self) -> dict:
        page = self.env.unwrapped.page
        for _ in range(5):  # a navigation racing the read destroys its context: read again
            try:
                table = json.loads(page.evaluate(self.capture_js, {"maxElements": 20000}))
                bids = page.evaluate(BID_JS, [e["path"] for e in table["elements"]])
                break
            except Exception:
                time.sleep(0.2)
        else:
            raise RuntimeError("could not read the page's element table")
        for e, b in zip(table["elements"], bids, strict=True):
            e["bid"] = b
        return table

    def reply(self, obs: dict, **extra) -> dict:
        return {"keys": {k: (k in obs and obs[k] is not None) for k in OBS_KEYS}, "url": obs.get("url"),
                "last_action_error": obs.get("last_action_error", ""), "tabs": list(obs.get("open_pages_urls", [])),
                "active_tab": (int(obs.get("active_page_index", [0])[0])
                               if obs.get("active_page_index") is not None else 0),
                "axtree_nodes": len((obs.get("axtree_object") or {}).get("nodes", [])),
                "screenshot_shape": list(obs["screenshot"].shape) if obs.get("screenshot") is not None else None,
                "device_pixel_ratio": self.env.unwrapped.page.evaluate("window.devicePixelRatio"),
                "table": self.view(), **extra}

    def reset(self, cmd: dict) -> dict:
        import gymnasium as gym
        from browsergym.core.action.highlevel import HighLevelActionSet

        self.close({})
        actions = HighLevelActionSet(subsets=["chat", "infeas", "bid", "coord", "nav", "tab"], multiaction=True)
        self.env = gym.make(f"browsergym/webgauge.{cmd['family']}", headless=True,
                            action_mapping=actions.to_python_code,
                            task_kwargs={k: cmd[k] for k in ("arena_url", "heldout", "gate", "approval") if k in cmd})
        t0 = time.perf_counter()
        obs, info = self.env.reset(seed=cmd.get("seed"))
        if self.probe_js:
            page = self.env.unwrapped.page
            page.context.add_init_script(self.probe_js)
            page.evaluate(self.probe_js)
        return self.reply(obs, task_info=info.get("task_info", {}), goal=obs.get("goal_object"),
                          ms=(time.perf_counter() - t0) * 1000)

    def step(self, cmd: dict) -> dict:
        t0 = time.perf_counter()
        obs, reward, terminated, truncated, info = self.env.step(cmd["action"])
        return self.reply(obs, reward=reward, terminated=terminated, truncated=truncated,
                          task_info=info.get("task_info", {}), ms=(time.perf_counter() - t0) * 1000)

    def probe(self, cmd: dict) -> dict:
        self.probe_js = cmd["js"]
        return {"probe": bool(self.probe_js)}

    def page_eval(self, cmd: dict) -> dict:
        return {"value": self.env.unwrapped.page.evaluate(cmd["js"])}

    def close(self, cmd: dict) -> dict:
        if self.env is not None:
            self.env.close()
            self.env = None
        return {"closed": True}


def main() -> None:
    d = Driver()
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            out = getattr(d, cmd["op"])(cmd)
        except Exception as exc:
            out = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        if cmd["op"] == "close" and cmd.get("final"):
            break
    d.close({})


if __name__ == "__main__":
    main()
