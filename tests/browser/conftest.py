"""Browser-test plumbing: a real daphne (http + websockets, in-process clock
sweeper) on a free port with its own SQLite file, and headless Debian
chromium.  pytest-django's live_server is WSGI only, hence the subprocess."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import servers

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
# Debian's headless build of chromium (the same engine without the desktop browser around it; Playwright's
# own headless default is this shell too): a browser test costs ~40 % less CPU than the desktop chromium
CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT = 10_000  # ms for any page to show an update
AXE = ROOT / "static/vendor/axe.min.js"  # axe-core, from the npm registry (.ci/install)
DAPHNE_LOG_LINES = 60  # of a failed test's server, in its report


def cell(coord: str, value: str = "") -> str:
    return f'#board .cell[data-coord="{coord}"][data-value="{value}"]'


def wait_connected(*pages: Any, timeout: int = TIMEOUT) -> None:
    """Each page's socket is open (live.js marks the body on htmx's wsOpen)."""
    for page in pages:
        page.wait_for_selector("body[data-socket=open]", state="attached", timeout=timeout)


def watch_errors(page: Any, errors: list[str]) -> Any:
    """Collect the page's script errors and console errors into `errors` (a test ends asserting
    none); the page, for chaining."""
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    return page


def click_cells(page: Any, *coords: str) -> None:
    """Click squares of a grid board (Lance Assembly, Grid Master) in turn."""
    for coord in coords:
        page.click(f'#board .cell[data-coord="{coord}"]')


def play_cells(page: Any, *coords: str) -> None:
    """Click squares of a grid board, then send the move they composed."""
    click_cells(page, *coords)
    page.click("#move-submit")


def type_move(player: Any, text: str, pages: Sequence[Any], selector: str, timeout: int = TIMEOUT) -> None:
    """Type a move in notation, send it, and wait until every page in `pages` shows `selector`."""
    player.fill("#move-text", text)
    submit_and_wait(player, pages, selector, timeout)


def submit_and_wait(player: Any, pages: Sequence[Any], selector: str, timeout: int = TIMEOUT) -> None:
    """Send the composed move, then wait until every page in `pages` shows `selector`."""
    player.click("#move-submit")
    for page in pages:
        page.wait_for_selector(selector, timeout=timeout)


def serious_axe(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page, a line each: rule, impact, what it
    asks, where (its first four places)."""
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:4]]}"
            for v in violations if v["impact"] in ("serious", "critical")]


def axe_violations(page: Any, options: str = "{}") -> list[str]:
    """Every axe-core violation on the page (of the rules `options` runs, a JS object), a line
    each: the rule and its first place."""
    page.add_script_tag(path=str(AXE))
    return list(page.evaluate(f"async () => (await axe.run(document, {options})).violations"
                              ".map(v => v.id + ': ' + (v.nodes[0] ? v.nodes[0].target.join(' ') : ''))"))


def version(page: Any) -> int:
    """The match version the page holds (live.js keeps it on #live-meta)."""
    return int(page.get_attribute("#live-meta", "data-version"))


def replay_at(page: Any, step: int, timeout: int = TIMEOUT) -> None:
    """Wait until the replay page shows `step`: its caption and its board both of that step."""
    page.wait_for_selector(f'#replay[data-step="{step}"] #replay-stage .replay-step[data-step="{step}"]',
                           timeout=timeout)


def season_act(page: Any, fields: Mapping[str, str], button: str) -> str:
    """Fill a season manage form (a select by its option's label), submit it, and return the flash
    message of the page it loads."""
    for selector, value in fields.items():
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, label=value)
        else:
            page.fill(selector, value)
    with page.expect_navigation():
        page.click(button)
    return str(page.inner_text(".season-messages"))


def wait_refused(page: Any, timeout: int = TIMEOUT) -> None:
    """The home form came back refused, and its page has loaded (home.js bound to it) before it is
    used again: a CI check of stop 45 clicked while home.js still moved the form about, and never
    posted again.  The server now draws the form where home.js leaves it (test_home_form_steady)."""
    page.wait_for_selector("#form-error", timeout=timeout)
    page.wait_for_load_state("load")


@dataclass
class Links:
    """A match the host created on the home page: the host's page (on the host link), each seat's
    secret link, the spectators' link."""

    host: Any
    seats: dict[int, str]
    watch: str

    def start(self) -> None:
        """The host starts the match (its pages, connected by then, draw the boards live)."""
        self.host.click("#host-start")


#: the `start_match` fixture's type
StartMatch = Callable[..., Links]


def fill(page: Any, selector: str, value: str | bool) -> None:
    """Set a form field as a person would: choose in a select, tick a checkbox, type in the rest."""
    kind = page.eval_on_selector(selector, "el => el.tagName === 'SELECT' ? 'select' : el.type")
    if kind == "select":
        page.select_option(selector, str(value))
    elif kind == "checkbox":
        page.set_checked(selector, bool(value))
    else:
        page.fill(selector, str(value))


class Server:
    """One daphne process; `restart()` kills it hard (like a crash) and starts another."""

    def __init__(self, workdir: Path, redis_url: str = "", migrate: bool = True) -> None:
        self.workdir = workdir
        db = workdir / "db.sqlite3"
        self.env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DJANGO_DEBUG": "1",
                    "DJANGO_SETTINGS_MODULE": "config.settings", "DEATHMATCH_INPROCESS_CLOCKS": "1",
                    "PYTHONUNBUFFERED": "1"}  # its log holds every line up to a failure (the report shows it)
        # one process: the in-memory channel layer; several processes share Redis
        self.env.pop("REDIS_URL", None)
        if redis_url:
            # the servers of one test share their keys (one workdir), apart from every other run's
            self.env["REDIS_URL"] = redis_url
            self.env["DEATHMATCH_REDIS_PREFIX"] = f"browser{zlib.crc32(str(workdir).encode())}:"
        if migrate and not db.exists():  # (an existing file is another server's: migrated, and in use)
            shutil.copyfile(_migrated(), db)
        self.port = servers.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = servers.start_daphne(self.port, self.env, self.workdir / f"daphne-{self.port}.log")

    def stop(self, hard: bool = False) -> None:
        if self.proc is not None:
            servers.stop(self.proc, hard=hard)
            self.proc = None

    def restart(self) -> None:
        self.stop(hard=True)
        self.start()


#: every live part of a page (cells, facts, clocks: each a state, then what it shows) as the browser holds
#: it: its attributes in one order and its text (white space collapsed); a running clock's text (counting
#: down) aside
LIVE_PARTS_JS = """() => [...document.querySelectorAll('#board [id], #clocks .clock-state, #clocks .clock')].map(el => {
    const state = el.classList.contains('clock') ? el.previousElementSibling : el;
    const ticking = !!state && state.hasAttribute('data-deadline');
    const attributes = [...el.attributes].map(a => [a.name, a.value]).sort();
    return [el.id, attributes,
            ticking ? el.querySelectorAll('.clock-time').length : el.textContent.replace(/\\s+/g, ' ').trim()];
})"""


def same_as_fresh(browser: Any, page: Any, url: str, clocks: int) -> None:
    """`page`, kept up to date by live updates (parts patched in place: static/js/live.js), holds
    the same live parts as a fresh load of `url` (the same audience's link)."""
    fresh = browser.new_context(viewport=page.viewport_size).new_page()
    fresh.goto(url)
    wait_connected(fresh)
    now, then = page.evaluate(LIVE_PARTS_JS), fresh.evaluate(LIVE_PARTS_JS)
    fresh.context.close()
    assert [p[0] for p in now] == [p[0] for p in then]
    differ = [p for p in now if p not in then]
    assert not differ, f"live: {differ}\nfresh: {[p for p in then if p not in now]}"
    assert len([p for p in now if p[0].startswith("clock-") and not p[0].startswith("clock-state-")]) == clocks


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed browser test's report ends with what its daphne logged (errors, tracebacks,
    requests answered with an error): a failure seen only in CI can then be read there."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call" or not report.failed:
        return
    for value in getattr(item, "funcargs", {}).values():  # `server`, or several (`two_servers`)
        for server in value if isinstance(value, tuple) else (value,):
            if not isinstance(server, Server):
                continue
            log = server.workdir / f"daphne-{server.port}.log"
            if log.exists():
                lines = log.read_text(errors="replace").splitlines()[-DAPHNE_LOG_LINES:]
                report.sections.append((f"daphne {server.url} log, last {len(lines)} lines", "\n".join(lines)))


def skip_without_browser() -> None:
    """Skip the test when this machine cannot run the browser or serve the pages' scripts."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian chromium-headless-shell is not installed")
    if not (ROOT / "static/vendor/htmx.min.js").exists() or not AXE.exists():
        pytest.skip("static/vendor is not built (run .ci/install)")


@functools.cache
def _migrated() -> Path:
    """A database file migrated once per test process, which each server starts from a copy of:
    `migrate` took ~4 s a module on the project machine (~2 min of a CI run)."""
    workdir = Path(tempfile.mkdtemp(prefix="browser-template-"))
    atexit.register(shutil.rmtree, workdir, True)
    template = workdir / "db.sqlite3"
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                   env={**{k: v for k, v in os.environ.items() if k != "REDIS_URL"}, "DATABASE_URL": f"sqlite:///{template}",
                        "DJANGO_DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"})
    return template


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    skip_without_browser()
    srv = Server(tmp_path_factory.mktemp("browser"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # one per module, not per session: Playwright's sync API runs an event loop in this thread
    # while it is started, and the chaos tests that follow in the same process call asyncio.run()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def start_match(request: pytest.FixtureRequest, browser: Any) -> StartMatch:
    """`start_match(game, seats, **options)`: the host creates a match of `game` on the home page,
    seats named `seats` (else their defaults), and the links it shows.  `fields`: other form fields
    by selector (clocks, the game's options), set after the game is chosen; `host`: the host's page
    (else a new desktop one); `server`: another server than the module's."""

    def create(game: str, seats: Sequence[str] = (), *, fields: Mapping[str, str | bool] | None = None,
               host: Any = None, server: Server | None = None) -> Links:
        server = server or request.getfixturevalue("server")
        host = host or browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        host.goto(server.url + "/")
        host.select_option("#game-select", game)
        for selector, value in (fields or {}).items():
            fill(host, selector, value)
        for number, name in enumerate(seats, start=1):
            host.fill(f'input[name="seat{number}"]', name)
        host.click("#create-form button[type=submit]")
        host.wait_for_url("**/h/**")
        links = host.eval_on_selector_all("input[id^=seat-link-]", "els => els.map(el => [el.id.slice(10), el.value])")
        return Links(host, {int(n): url for n, url in links}, host.input_value("#watch-link"))

    return create
