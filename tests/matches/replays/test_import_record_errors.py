"""Defect 6 of issue 21: `manage.py import_record` refuses a bad record in one
line that names the line, exits with 2 and creates nothing; never a traceback.

The records are mutations of a real exported record (the host's, of a match
played through the services).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core import HOST
from matches.models import Match
from matches.play import services
from matches.replays import records as record

ROOT = Path(__file__).resolve().parents[3]
DEEP = "[" * 3000 + "]" * 3000


@pytest.fixture
def exported(make_match: Callable[..., Any]) -> str:
    """The host's record of a finished Lance Assembly match: one bout awarded, one played and forfeited."""
    match = make_match("lance-assembly", clock=False)
    services.submit(match, 1, "place C3", match.current_bout.version)
    services.award_bout(match, 2)
    services.start_next_bout(match)
    match.refresh_from_db()
    services.submit(match, 2, "place D4", match.current_bout.version)
    services.forfeit(match, 1, "match")
    match.refresh_from_db()
    text = record.export(match, HOST)
    assert "Complete: yes" in text
    return text


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if line.startswith(start))


def _replace(text: str, start: str, new: str) -> str:
    return "\n".join(new if line.startswith(start) else line for line in text.splitlines()) + "\n"


#: name -> (what the record's line starting with `start` becomes, start)
BROKEN = {
    "header JSON that does not parse": ("Options", 'Options: {"starting_seat": 1,'),
    "header JSON that is not an object": ("Format", "Format: [1, 2]"),
    "a seat name over 80 characters": ("Seat 2", "Seat 2: " + "B" * 81),
    "an unknown option": ("Options", 'Options: {"starting_seat": 1, "no such option": true}'),
    "an option value the game refuses": ("Options", 'Options: {"starting_seat": 9}'),
    "3,000-deep nesting in the header": ("Options", f"Options: {DEEP}"),
    "3,000-deep nesting in a bout": ("Result-JSON", f"Result-JSON: {DEEP}"),
    "nesting in a bout's options": ("Bout-options", "Bout-options: " + '{"a": ' * 3000 + "1" + "}" * 3000),
    "a result that is not an object": ("Result-JSON", "Result-JSON: [1]"),
}


def _import(text: str, tmp_path: Path) -> CommandError | None:
    path = tmp_path / "record.txt"
    path.write_text(text, encoding="utf-8")
    try:
        call_command("import_record", str(path))
    except CommandError as error:
        return error
    return None


@pytest.mark.parametrize("case", list(BROKEN), ids=list(BROKEN))
def test_a_broken_record_is_refused_in_one_line_naming_it_and_nothing_is_created(
        exported: str, tmp_path: Path, case: str) -> None:
    start, new = BROKEN[case]
    line = _line_of(exported, start)
    count = Match.objects.count()
    error = _import(_replace(exported, start, new), tmp_path)
    assert error is not None and error.returncode == 2
    assert "\n" not in str(error) and f"line {line}" in str(error), str(error)
    assert len(str(error)) < 300
    assert Match.objects.count() == count


@pytest.mark.parametrize("case", ["header JSON that does not parse", "a seat name over 80 characters",
                                  "an unknown option", "3,000-deep nesting in the header"])
def test_manage_py_prints_one_line_and_exits_2(exported: str, tmp_path: Path, case: str) -> None:
    start, new = BROKEN[case]
    line = _line_of(exported, start)
    path = tmp_path / "record.txt"
    path.write_text(_replace(exported, start, new), encoding="utf-8")
    # refused before any query: an empty database of its own is enough
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}"}
    out = subprocess.run([sys.executable, "manage.py", "import_record", str(path)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"line {line}" in lines[0] and "Traceback" not in out.stderr, out.stderr


def test_the_exported_record_still_imports(exported: str, tmp_path: Path) -> None:
    count = Match.objects.count()
    assert _import(exported, tmp_path) is None
    assert Match.objects.count() == count + 1


HOSTILE = ["", "\x00", "\u202e", "é", DEEP, '{"a": ' * 2000, "9" * 40, "-1", "0", "null", "[]", "{}", "A" * 200,
           '{"nonsense": 1}', '{"winners": [1, "x"], "reason": "lance"}', "place Z99", "End of bout 1", "Bout 2",
           "# host: awarded bout 1 to seat 9", "# host: seat 7 forfeits the match", "1. seat 9: place C3", ": :"]


@st.composite
def mutations(draw: st.DrawFn, lines: list[str]) -> str:
    lines = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "append", "cut", "swap", "number"]))
        if op == "delete" and len(lines) > 1:
            del lines[index]
        elif op == "duplicate":
            lines.insert(index, lines[index])
        elif op == "replace":
            lines[index] = draw(st.sampled_from(HOSTILE))
        elif op == "append":
            lines[index] += draw(st.sampled_from(HOSTILE))
        elif op == "cut":
            lines[index] = lines[index][: draw(st.integers(0, len(lines[index])))]
        elif op == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        else:
            head, _, tail = lines[index].partition(": ")
            lines[index] = f"{head}: {draw(st.sampled_from(['0', '-3', '9' * 25, '2', '1.5']))}" if tail else head
    return "\n".join(lines) + "\n"


def test_mutated_records_import_or_are_refused_in_one_line(exported: str, tmp_path: Path) -> None:
    lines = exported.splitlines()

    @settings(max_examples=150, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(mutations(lines))
    def check(text: str) -> None:
        count = Match.objects.count()
        error = _import(text, tmp_path)  # anything but CommandError (a traceback) fails the test
        if error is None:
            assert Match.objects.count() == count + 1
        else:
            assert error.returncode == 2 and "\n" not in str(error), str(error)
            assert Match.objects.count() == count

    check()
