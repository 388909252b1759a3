"""The deploy files (issue 51, section 1) hold what the compose run showed they must, checked
without Docker: the README's rolling-restart command exists and parses, the images' open-files
entrypoint degrades to the host's hard limit and says so, the app refuses to start in production
without a secret key while compose itself needs none, and the compose file keeps the fixes
(health endpoint, TCP check of PostgreSQL, no hard `ulimits`).  The compose run itself
(build, up, a match through the proxy, a replica stopped, the rolling restart) needs root and
minutes: bench/README.md has its figures."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = (ROOT / "docker-compose.yml").read_text()


def rolling_restart_command() -> str:
    """The first line of the code block under the README's heading "Rolling restart"."""
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"^#+ Rolling restart\n\n((?:    .*\n)+)", readme, re.MULTILINE)
    assert found, 'no indented code block right under a "Rolling restart" heading in README.md'
    return found.group(1).splitlines()[0].strip()


def test_the_readme_rolling_restart_is_a_script_of_the_checkout_that_parses() -> None:
    command = rolling_restart_command()
    assert command == "bash config/deploy/rolling-restart.sh"
    script = ROOT / command.split()[1]
    checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def _open_files(hard: int, **env: str) -> tuple[str, str]:
    """config/deploy/open-files.sh run under a hard limit of `hard` (soft 256): the limits the
    command it starts has, and what it logged."""
    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    run = subprocess.run(["sh", str(ROOT / "config" / "deploy" / "open-files.sh"), "sh", "-c",
                          "echo $(ulimit -Sn) $(ulimit -Hn)"], preexec_fn=lower, capture_output=True,
                         text=True, timeout=30, env={**os.environ, **env})
    assert run.returncode == 0, run.stderr
    return run.stdout.strip(), run.stderr.strip()


def test_the_open_files_limit_degrades_to_the_hard_limit_and_says_so() -> None:
    limits, said = _open_files(4096)
    assert limits == "4096 4096"
    assert said.startswith("open files: 4096, not the 65536 asked for: the host's hard limit is 4096")


def test_the_open_files_limit_is_raised_as_asked_when_the_host_allows_it() -> None:
    limits, said = _open_files(4096, DEATHMATCH_OPEN_FILES="2000")
    assert limits == "2000 4096"
    assert said == "open files: 2000 (DEATHMATCH_OPEN_FILES=2000)"


def test_production_refuses_to_start_without_a_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    run = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={**env, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": ""})
    assert run.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off" in run.stderr


def test_compose_needs_no_secret_and_asks_no_hard_limit() -> None:
    # `docker compose down/ps/logs` interpolate the whole file: a `:?` variable stopped them
    assert "${DJANGO_SECRET_KEY:-}" in COMPOSE
    assert ":?" not in COMPOSE
    # a hard nofile above the engine's own stops runc from starting the container at all: only
    # limits at or below 1,024 (every engine's floor; lowering needs no privilege)
    pairs = re.findall(r"nofile:\s*\{soft:\s*(\d+),\s*hard:\s*(\d+)\}", COMPOSE)
    assert pairs and max(int(n) for pair in pairs for n in pair) <= 1024
    assert len(re.findall(r"^\s*ulimits:", COMPOSE, re.MULTILINE)) == len(pairs)
    # PostgreSQL's first start runs a temporary server on the Unix socket only
    assert re.search(r'pg_isready -h 127\.0\.0\.1 ', COMPOSE)
    assert "http://127.0.0.1:8000/healthz" in COMPOSE


def test_the_build_context_leaves_build_output_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert {"*.egg-info", "build/", "dist/"} <= set(ignored)


def _worker_connections_step() -> str:
    """The Dockerfile's RUN that raises nginx's worker_connections, as one shell command."""
    dockerfile = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found = [line for line in dockerfile.splitlines() if line.startswith("RUN ") and "worker_connections" in line]
    assert len(found) == 1, found
    return found[0][len("RUN "):]


def test_the_dockerfile_raises_worker_connections_or_fails_the_build(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    step = _worker_connections_step().replace("/etc/nginx/nginx.conf", str(conf))
    # the official image's nginx.conf, as its events block reads
    conf.write_text("user  nginx;\nworker_processes  auto;\n\nevents {\n    worker_connections  1024;\n}\n")
    run = subprocess.run(["sh", "-c", step], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "    worker_connections 16384;\n" in conf.read_text()
    # an nginx.conf that spells it otherwise: the build stops, it does not ship 1,024 silently
    conf.write_text("events {\n    # worker_connections set elsewhere\n}\n")
    run = subprocess.run(["sh", "-c", step], capture_output=True, text=True)
    assert run.returncode != 0
    assert "no worker_connections line" in run.stderr
