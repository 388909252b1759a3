"""Page kinds on a phone (issue 56): Lighthouse's mobile scores and the layout shift a browser sees.

    .venv/bin/python -m bench.lighthouse            # CLS (Playwright) and Lighthouse for every page kind
    .venv/bin/python -m bench.lighthouse --cls-only # the browser's CLS alone (no npm needed)
    .venv/bin/python -m bench.lighthouse --only=home,seat   # some page kinds only

Serves a fresh SQLite database with daphne as production does (DJANGO_DEBUG=0: hashed, compressed
static files through WhiteNoise; run `.ci/install` first so STATIC_ROOT holds them), creates a
Grid Master match (started) and a season with a match, then for each page kind (home, seat,
spectator, host, How to play, a season's public page) prints:

- `cls`: the cumulative layout shift Debian's chromium reports while the page loads and its socket
  connects at 390x844 (a PerformanceObserver on 'layout-shift' entries, recent input excluded),
  the first visit of a fresh browser;
- Lighthouse's four mobile scores, its CLS, the first contentful paint and the render-blocking
  files it names (with the time it says each costs), with the `lighthouse` npm package (a devDependency:
  `npm install --include=dev`) driving /usr/bin/chromium (CHROME_PATH).

Both need Debian's desktop `chromium` (`apt-get install --no-install-recommends chromium`): Lighthouse
starts a browser of its own, which the tests' `chromium-headless-shell` (what `.ci/install` brings) is not.

Run it on a quiet machine: performance is a timing, the other three scores are not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
LIGHTHOUSE = ROOT / "node_modules/.bin/lighthouse"

CLS_JS = """() => new Promise(done => {
  let cls = 0;
  new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) cls += e.value; })
    .observe({type: 'layout-shift', buffered: true});
  setTimeout(() => done(cls), 1500);  // after the socket's first update (a measurement, not a test)
})"""


def _pages(workdir: Path) -> tuple[dict[str, str], subprocess.Popen[bytes]]:
    db = workdir / "db.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DJANGO_DEBUG": "0", "DJANGO_SECURE_COOKIES": "0",
           "DJANGO_SECRET_KEY": "bench-only-" + "k" * 50, "DJANGO_SETTINGS_MODULE": "config.settings",
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "DEATHMATCH_INPROCESS_CLOCKS": "1"}
    env.pop("REDIS_URL", None)
    os.environ.update(env)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    import django

    django.setup()
    from django.urls import reverse

    from matches.play import services
    from matches.seasons import ledger as seasons

    match = services.create_match("grid-master", seat_names=["Ann", "Bob"])
    services.start_match(match)
    season = seasons.create_season("Bench season")
    services.create_match("grid-master", seat_names=["Ann", "Bob"], season=season)
    sys.path.insert(0, str(ROOT))
    from tests import servers

    port = servers.free_port()
    proc = servers.start_daphne(port, env, workdir / "daphne.log")
    base = f"http://127.0.0.1:{port}"
    return {
        "home": base + reverse("home"),
        "seat": base + reverse("player_page", args=[match.seats.get(number=1).token]),
        "spectator": base + reverse("watch_page", args=[match.watch_token]),
        "host": base + reverse("host_page", args=[match.host_token]),
        "how to play": base + reverse("rules_page", args=["grid-master"]),
        "season": base + reverse("season_page", args=[season.slug]),
    }, proc


def _cls(urls: dict[str, str]) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    found = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for kind, url in urls.items():
            context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            page = context.new_page()
            page.goto(url)
            found[kind] = float(page.evaluate(CLS_JS))
            context.close()
        browser.close()
    return found


def _lighthouse(url: str, workdir: Path) -> dict[str, Any]:
    out = workdir / "report.json"
    subprocess.run([str(LIGHTHOUSE), url, "--output=json", f"--output-path={out}", "--quiet",
                    "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
                   env={**os.environ, "CHROME_PATH": CHROMIUM}, check=True)
    report = json.loads(out.read_text())
    scores: dict[str, Any] = {name: round(100 * (cat["score"] or 0)) for name, cat in report["categories"].items()}
    scores["cls"] = report["audits"]["cumulative-layout-shift"]["numericValue"]
    scores["fcp"] = report["audits"]["first-contentful-paint"]["numericValue"]
    # what holds the first paint back: each render-blocking file and the time Lighthouse says it costs
    blocking = report["audits"].get("render-blocking-resources", {}).get("details", {}).get("items", [])
    scores["blocking"] = [(item["url"].rsplit("/", 1)[-1], item.get("wastedMs", 0)) for item in blocking]
    return scores


def main(argv: list[str]) -> None:
    if not os.path.exists(CHROMIUM):
        sys.exit(f"{CHROMIUM} is missing: apt-get install --no-install-recommends chromium")
    only = [a.split("=", 1)[1] for a in argv if a.startswith("--only=")]  # e.g. --only=home,seat
    workdir = Path(tempfile.mkdtemp(prefix="bench-lighthouse-"))
    urls, proc = _pages(workdir)
    try:
        shifts = _cls(urls)
        for kind, url in urls.items():
            if only and kind not in only[0].split(","):
                continue
            line = f"{kind:12} cls(browser) {shifts[kind]:.3f}"
            if "--cls-only" not in argv and LIGHTHOUSE.exists():
                s = _lighthouse(url, workdir)
                line += (f"  performance {s['performance']:3} accessibility {s['accessibility']:3} "
                         f"best-practices {s['best-practices']:3} seo {s['seo']:3} cls(lighthouse) {s['cls']:.3f} "
                         f"fcp {s['fcp']:.0f} ms  render-blocking: "
                         + (", ".join(f"{name} ({ms:.0f} ms)" for name, ms in s["blocking"]) or "none"))
            print(line, flush=True)
    finally:
        from tests import servers

        servers.stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
