"""Do the lock files still say what pyproject.toml asks for?  (Run by .ci/install, offline.)

Each lock (requirements.txt: the app; requirements-test.txt: the app and the `test` extra) starts
with a stamp: the sha256 of the dependency lists it was made from.  Editing a dependency in
pyproject.toml without locking again (`bash .ci/lock`) changes the digest: this fails, and says
which lock to make again.  It also fails when a direct dependency has no pin in its lock.

    python3 .ci/lockcheck.py           check (exit 1 with a message when they disagree)
    python3 .ci/lockcheck.py --stamp   write the stamps (.ci/lock does, after locking)

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: lock file -> the extras of pyproject.toml it holds beside the app's own dependencies
LOCKS = {"requirements.txt": [], "requirements-test.txt": ["test"]}
STAMP = "# pyproject.toml dependencies sha256: "
_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)")


def inputs(extras: list[str]) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project.get("dependencies", []))
    for extra in extras:
        wanted += project.get("optional-dependencies", {})[extra]
    return wanted


def digest(requirements: list[str]) -> str:
    # whitespace inside a requirement does not change what it asks for
    normal = sorted("".join(r.split()) for r in requirements)
    return hashlib.sha256(json.dumps(normal).encode()).hexdigest()


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def problems() -> list[str]:
    found = []
    for lock, extras in LOCKS.items():
        path = ROOT / lock
        if not path.exists():
            found.append(f"{lock} is missing: run `bash .ci/lock`")
            continue
        text = path.read_text()
        stamps = [line.removeprefix(STAMP) for line in text.splitlines() if line.startswith(STAMP)]
        wanted = inputs(extras)
        if stamps != [digest(wanted)]:
            found.append(f"{lock} was not made from pyproject.toml's dependencies as they are now: "
                         "run `bash .ci/lock` and commit the lock")
        pinned = {_normal(m.group(1)) for line in text.splitlines() if (m := _NAME.match(line)) and "==" in line}
        for requirement in wanted:
            name = _NAME.match(requirement.strip())
            if name and _normal(name.group(1)) not in pinned:
                found.append(f"{lock} pins no version of {name.group(1)} (pyproject.toml: {requirement})")
    return found


def stamp() -> None:
    for lock, extras in LOCKS.items():
        path = ROOT / lock
        lines = [line for line in path.read_text().splitlines() if not line.startswith(STAMP)]
        path.write_text("\n".join([STAMP + digest(inputs(extras)), *lines]) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--stamp"]:
        stamp()
    found = problems()
    for problem in found:
        print(f"lock check: {problem}", file=sys.stderr)
    sys.exit(1 if found else 0)
