"""Speed of the pure rules, per game.

    .venv/bin/python bench/rules.py            # every game
    .venv/bin/python bench/rules.py lance      # games whose module name contains "lance"

Each game has a module bench/rules_<game>.py with `bench() -> [(figure, value, unit)]`;
this script runs them and prints one table.  Figures, not assertions: the
targets are in bench/README.md.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main(argv: list[str]) -> None:
    wanted = argv[1:]
    modules = sorted(HERE.glob("rules_*.py"))
    for path in modules:
        name = path.stem.removeprefix("rules_")
        if wanted and not any(w in name for w in wanted):
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        started = time.perf_counter()
        rows = module.bench()
        print(f"\n{name}  ({time.perf_counter() - started:.1f} s)")
        for figure, value, unit in rows:
            print(f"  {figure:<48} {value:>12,.1f} {unit}")


if __name__ == "__main__":
    main(sys.argv)
