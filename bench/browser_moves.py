"""A move in the browser: from the mover's click on Submit to every other page drawing it.

    .venv/bin/python -m bench.browser_moves [--moves 16]

One daphne (tests/browser/conftest.py's Server: its own SQLite file, the in-memory channel layer)
and headless Debian chromium: the host, two seats (one a phone) and a spectator on a Lance
Assembly match, created on the home page as a host would.  Each move is clicked and submitted;
each other page records (a MutationObserver, Date.now()) when the new tile appears.  Prints the
median, minimum and maximum over every (move, other page) and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, TIMEOUT, Server, cell, wait_connected

#: arm a page to write down (Date.now()) when `selector` first matches
WATCH_JS = """(sel) => { if (window.__obs) window.__obs.disconnect();
  window.__seen = null;
  const check = () => { if (!window.__seen && document.querySelector(sel)) window.__seen = Date.now(); };
  window.__obs = new MutationObserver(check);
  window.__obs.observe(document.body, {subtree: true, childList: true, attributes: true});
  check(); }"""


def moves(count: int) -> list[tuple[int, str]]:
    """(seat, square) alternating, four tiles a column so that nobody makes a lance of five."""
    red = [f"{col}{row}" for col in "ACE" for row in range(1, 5)]
    blue = [f"{col}{row}" for col in "FDB" for row in range(1, 5)]
    return [(1 + i % 2, (red if i % 2 == 0 else blue)[i // 2]) for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=16)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-browser-") as tmp, sync_playwright() as pw:
        server = Server(Path(tmp))
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            host = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
            host.goto(server.url + "/")
            host.select_option("#game-select", "lance-assembly")
            host.click("#create-form button[type=submit]")
            host.wait_for_url("**/h/**")
            phone = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            seats = {1: chromium.new_context().new_page(), 2: phone.new_page()}
            spectator = chromium.new_context().new_page()
            for n, page in seats.items():
                page.goto(host.input_value(f"#seat-link-{n}"))
            spectator.goto(host.input_value("#watch-link"))
            everyone = [host, seats[1], seats[2], spectator]
            wait_connected(*everyone)
            host.click("#host-start")
            latencies: list[float] = []
            for seat, square in moves(args.moves):
                mover = seats[seat]
                mover.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
                others = [p for p in everyone if p is not mover]
                value = "R" if seat == 1 else "B"
                mover.click(f'#board .cell[data-coord="{square}"]')
                for page in others:
                    page.evaluate(WATCH_JS, cell(square, value))
                sent = time.time() * 1000
                mover.click("#move-submit")
                for page in others:
                    page.wait_for_function("window.__seen !== null", timeout=TIMEOUT)
                    latencies.append(page.evaluate("window.__seen") - sent)
        finally:
            chromium.close()
            server.stop()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.moves} moves x 3 other pages")
    print(f"submit -> other page shows it: median {statistics.median(latencies):.0f} ms, "
          f"min {min(latencies):.0f} ms, max {max(latencies):.0f} ms")


if __name__ == "__main__":
    main()
