"""CPU and wall time of a navigation and a capture with a Chromium feature on and off, side by side.

    python bench/launch_flags_bench.py                      # RenderDocument off vs on
    python bench/launch_flags_bench.py --feature PaintHolding --rounds 5 --reps 30
    python bench/launch_flags_bench.py --shell          # the full browser vs the headless shell
    python bench/launch_flags_bench.py --flag=--in-process-gpu   # without vs with extra switches

Each round launches Chromium once per setting (in turn, so drift hits both alike) and times, on
the arena shop's catalogue page: a viewport capture, a ``goto`` to its load event, a ``goto``
plus a capture (an arena step that navigates), and a page reuse plus ``goto`` plus capture
(an arena reset). ``--flag`` (repeatable) compares launching without ('off') and with ('on')
those switches added to webgauge's, in the headless shell when it is installed (as the arena
launches). CPU is read from /proc for this process and every process under it (the
Playwright driver, Chromium's browser, GPU, utility and renderer processes; the arena server
runs in this process). Prints medians over rounds and the ratio of feature on over off.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import statistics
import time

TCK = os.sysconf("SC_CLK_TCK")


def process_tree(root: int) -> dict[int, tuple[str, list[str]]]:
    """Every process under ``root``, ``root`` included: pid -> (name, the fields of /proc/PID/stat
    after the name: [11] and [12] are user and system CPU in clock ticks, [19] the start time)."""
    stats: dict[int, tuple[str, list[str]]] = {}
    children: dict[int, list[int]] = collections.defaultdict(list)
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                line = open(f"/proc/{p}/stat").read()
                fields = line.rsplit(")", 1)[1].split()
                stats[int(p)] = (line[line.find("(") + 1:line.rfind(")")], fields)
                children[int(fields[1])].append(int(p))
            except (OSError, IndexError, ValueError):
                pass
    out: dict[int, tuple[str, list[str]]] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        todo.extend(children[pid])
        if pid in stats:
            out[pid] = stats[pid]
    return out


def command_line(pid: int) -> str | None:
    """A process's command line, its arguments joined by spaces; None once it is gone."""
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="ignore")
    except OSError:
        return None


def chromium_kind(cmd: str) -> str | None:
    """"renderer", "gpu", "other" (utility, zygote) or "browser" for a Chromium process's command line;
    None for any other process."""
    if "--type=renderer" in cmd:
        return "renderer"
    if "--type=gpu-process" in cmd:
        return "gpu"
    if "--type=" in cmd:
        return "other"
    return "browser" if "chrom" in cmd else None


def tree_cpu() -> dict[str, float]:
    """CPU seconds of this process and its descendants, by kind."""
    out: dict[str, float] = {}
    for pid, (_name, f) in process_tree(os.getpid()).items():
        cmd = command_line(pid)
        if cmd is None:
            continue
        kind = "python" if pid == os.getpid() else chromium_kind(cmd) or "driver"
        out[kind] = out.get(kind, 0.0) + (int(f[11]) + int(f[12])) / TCK
    return out


def _flags(feature: str, disabled: bool) -> tuple[str, ...]:
    from webgauge.browser.chromium import LAUNCH_FLAGS

    flags = []
    for f in LAUNCH_FLAGS:
        if f.startswith("--disable-features="):
            names = [n for n in f.split("=", 1)[1].split(",") if n != feature] + ([feature] if disabled else [])
            f = "--disable-features=" + ",".join(names)
        flags.append(f)
    return tuple(flags)


async def _round(feature_disabled: bool, feature: str, reps: int, executable: str | None = None,
                 extra: tuple[str, ...] = ()) -> dict[str, tuple[float, float]]:
    import webgauge.browser.session as session
    from webgauge.arena.apps.control import ControlClient
    from webgauge.arena.apps.server import ArenaServer
    from webgauge.browser import Browser, RenderProfile

    saved = session.LAUNCH_FLAGS
    session.LAUNCH_FLAGS = _flags(feature, feature_disabled) + tuple(extra)
    try:
        with ArenaServer() as srv:
            eid = ControlClient(srv.control_url).create(0, None)["id"]
            url = f"{srv.app_url.rstrip('/')}/e/{eid}/shop/"
            async with Browser.launch(executable) as browser:
                page = await browser.new_page(RenderProfile(width=1280, height=800))
                page.fast_screenshots = True
                profile = page.profile

                async def capture() -> None:
                    await page.capture(with_aria=False)

                async def goto() -> None:
                    await page.goto(url)

                async def step() -> None:
                    await page.goto(url)
                    await page.capture(with_aria=False)

                async def reset() -> None:
                    await page.reuse(profile)
                    await page.goto(url)
                    await page.capture(with_aria=False)

                await step()
                out = {}
                for name, op in (("capture", capture), ("goto to load", goto), ("goto + capture", step),
                                 ("reuse + goto + capture", reset)):
                    await op()
                    c0, t0 = tree_cpu(), time.perf_counter()
                    for _ in range(reps):
                        await op()
                    wall = (time.perf_counter() - t0) / reps * 1000
                    c1 = tree_cpu()
                    cpu = sum(c1.get(k, 0.0) - c0.get(k, 0.0) for k in c1) / reps * 1000
                    out[name] = (wall, cpu)
                await page.close()
                return out
    finally:
        session.LAUNCH_FLAGS = saved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--feature", default="RenderDocument", help="Chromium feature to compare off and on.")
    ap.add_argument("--rounds", type=int, default=3, help="Browser launches per setting, in turn.")
    ap.add_argument("--reps", type=int, default=20, help="Repetitions of each operation per launch.")
    ap.add_argument("--shell", action="store_true",
                    help="Compare Chromium's headless shell ('on') with the full browser ('off') instead of a feature.")
    ap.add_argument("--flag", action="append", default=[], metavar="SWITCH",
                    help="Compare launching without ('off') and with ('on') this extra Chromium switch "
                         "(repeatable: all of them together), in the headless shell when installed.")
    args = ap.parse_args()
    if args.flag and args.shell:
        raise SystemExit("--flag and --shell compare different things: give one of them")
    from webgauge.browser import find_chromium

    full, shell = find_chromium(), find_chromium(headless_shell=True)
    if args.shell and shell == full:
        raise SystemExit("no headless shell installed: `sudo apt-get install -y chromium-headless-shell`")
    runs: dict[bool, list[dict[str, tuple[float, float]]]] = {True: [], False: []}
    for _ in range(args.rounds):
        for disabled in (True, False):
            if args.shell:  # "off": the full browser, "on": the headless shell; the same flags
                runs[disabled].append(asyncio.run(_round(False, args.feature, args.reps, full if disabled else shell)))
            elif args.flag:  # "off": webgauge's flags, "on": with the extra switches; no feature toggled
                runs[disabled].append(asyncio.run(_round(False, "", args.reps, shell,
                                                         () if disabled else tuple(args.flag))))
            else:
                runs[disabled].append(asyncio.run(_round(disabled, args.feature, args.reps)))
    what = (f"full browser ({full}) off, headless shell ({shell}) on" if args.shell
            else f"{' '.join(args.flag)} ({shell})" if args.flag else args.feature)
    print(f"{what}: medians over {args.rounds} rounds of {args.reps} (ms per operation; "
          f"load average {os.getloadavg()[0]:.1f})")
    heads = ("wall off", "wall on", "on/off", "CPU off", "CPU on", "on/off")
    print(f"{'operation':26s}" + "".join(f"{h:>{8 if h == 'on/off' else 10}s}" for h in heads))
    for name in runs[True][0]:
        w_off, c_off = (statistics.median(r[name][i] for r in runs[True]) for i in (0, 1))
        w_on, c_on = (statistics.median(r[name][i] for r in runs[False]) for i in (0, 1))
        print(f"{name:26s}{w_off:10.1f}{w_on:10.1f}{w_on / w_off:8.2f}{c_off:10.1f}{c_on:10.1f}{c_on / c_off:8.2f}")


if __name__ == "__main__":
    main()
