"""Issue 37, item 8: nothing pinned what was installed (pyproject.toml's `redis>=5` let redis-py 8
in, whose changed default broke every deployment).  requirements.txt and requirements-test.txt
lock every dependency with hashes (.ci/lock); .ci/install and the Dockerfile install from them,
and .ci/lockcheck.py (run by .ci/install, offline) fails when pyproject.toml and a lock disagree.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCKS = ("requirements.txt", "requirements-test.txt")


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """pyproject.toml, the locks and the check, in a directory of their own to edit."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "lockcheck.py", tmp_path / ".ci" / "lockcheck.py")
    for name in ("pyproject.toml", *LOCKS):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(root / ".ci" / "lockcheck.py")], capture_output=True, text=True,
                          timeout=60)


def test_the_locks_agree_with_pyproject() -> None:
    out = _check(ROOT)
    assert out.returncode == 0, out.stderr


def test_every_locked_package_has_an_exact_version_and_hashes() -> None:
    for name in LOCKS:
        entries = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / name).read_text().split("\n", 3)[3])
        assert len(entries) > 10
        for entry in entries:
            assert re.match(r"^[A-Za-z0-9._-]+==[^ ]+", entry) and "--hash=sha256:" in entry, entry
    app = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^redis==\S+ \\$", app, re.M)  # the transitive and direct ones alike
    assert re.search(r"^twisted==", app, re.M)


@pytest.mark.parametrize(("old", "new"), [
    ('"redis>=5",', '"redis>=5,<8",'),  # a bound changed
    ('    "httpx>=0.27",\n', ""),  # a dependency removed
    ('"websockets>=13",', '"websockets>=13",\n    "requests>=2",'),  # a test dependency added
])
def test_a_pyproject_edit_without_a_new_lock_fails_the_check(copy: Path, old: str, new: str) -> None:
    pyproject = copy / "pyproject.toml"
    assert old in pyproject.read_text()
    pyproject.write_text(pyproject.read_text().replace(old, new))
    out = _check(copy)
    assert out.returncode == 1
    assert "run `bash .ci/lock`" in out.stderr, out.stderr


def test_a_lock_missing_a_direct_dependency_fails_the_check(copy: Path) -> None:
    lock = copy / "requirements.txt"
    lock.write_text(re.sub(r"^whitenoise==.*?(?=^\S)", "", lock.read_text(), flags=re.M | re.S))
    out = _check(copy)
    assert out.returncode == 1 and "requirements.txt pins no version of whitenoise" in out.stderr, out.stderr
