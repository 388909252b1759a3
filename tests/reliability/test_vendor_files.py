"""Every front-end library a page loads is produced by both installs: `.ci/install` (a
developer's machine, CI) and the Dockerfile's frontend stage (compose).  The Dockerfile once
copied htmx alone while the pages had started to load idiomorph too: every image's pages would
have lost their live updates, and no test ran the image."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_DIRS = [ROOT / "templates", ROOT / "matches" / "templates", *sorted((ROOT / "games").glob("*/templates"))]


def _loaded_by_pages() -> set[str]:
    names: set[str] = set()
    for folder in TEMPLATE_DIRS:
        for template in folder.rglob("*.html"):
            names |= set(re.findall(r"""static ['"]vendor/([\w.-]+)['"]""", template.read_text()))
    return names


def test_pages_load_vendor_files() -> None:
    assert {"htmx.min.js", "htmx-ext-ws.js"} <= _loaded_by_pages()  # the scan finds what it should


def test_ci_install_produces_every_vendor_file_a_page_loads() -> None:
    made = set(re.findall(r"static/vendor/([\w.-]+)", (ROOT / ".ci" / "install").read_text()))
    assert _loaded_by_pages() <= made


def test_the_docker_image_produces_every_vendor_file_a_page_loads() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    made = set(re.findall(r"cp node_modules/\S+ vendor/([\w.-]+)", dockerfile))
    assert _loaded_by_pages() <= made
    assert "package-lock.json" in dockerfile and "npm ci" in dockerfile  # the lock's versions, as .ci/install
