"""Answers through the proxy while something restarts: GET a URL every 0.2 s while a command runs
(a rolling restart, a replica stopped), then count them by status.

    python3 bench/restart_5xx.py http://localhost:8000/ -- bash config/deploy/rolling-restart.sh
    python3 bench/restart_5xx.py http://localhost:8000/ -- docker stop dm-web-1
    python3 bench/restart_5xx.py http://localhost:8000/ --after 5 -- docker compose restart web

Standard library only (it runs with the host's python3 beside a compose deployment).  Each GET has
its own connection and a 10 s timeout; it goes on `--after` seconds (default 3) once the command
has ended.  Prints the command's exit status, the answers by status (a connection that failed
counts as "error"), every answer other than 200 with its time, and the longest time without a 200.
Exit status 0 only if the command succeeded and every answer was 200.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter


def poll(url: str, stop: threading.Event, answers: list[tuple[float, str]], every: float) -> None:
    started = time.monotonic()
    while not stop.is_set():
        sent = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                answer.read()
                status = str(answer.status)
        except urllib.error.HTTPError as error:
            status = str(error.code)
        except OSError as error:
            status = f"error ({type(error).__name__})"
        answers.append((sent - started, status))
        stop.wait(max(0.0, every - (time.monotonic() - sent)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--every", type=float, default=0.2, help="seconds between GETs (0.2)")
    parser.add_argument("--after", type=float, default=3.0, help="seconds of GETs once the command ended (3)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    answers: list[tuple[float, str]] = []
    stop = threading.Event()
    poller = threading.Thread(target=poll, args=(args.url, stop, answers, args.every), daemon=True)
    poller.start()
    started = time.monotonic()
    code = subprocess.run(command).returncode
    took = time.monotonic() - started
    stop.wait(args.after)
    stop.set()
    poller.join()
    counts = Counter(status for _, status in answers)
    # from the last 200 (or the start) to the next one, or to the last answer when none came
    longest, last_ok = 0.0, 0.0
    for at, status in answers:
        longest = max(longest, at - last_ok)
        if status == "200":
            last_ok = at
    print(f"command exited {code} after {took:.1f} s")
    for at, status in answers:
        if status != "200":
            print(f"  {at:6.1f} s  {status}")
    print("; ".join(f"{status} x {n}" for status, n in counts.most_common())
          + f"; 5xx: {sum(n for status, n in counts.items() if status.startswith('5'))}"
          + f"; longest time without a 200: {longest:.1f} s")
    return 0 if code == 0 and set(counts) == {"200"} else 1


if __name__ == "__main__":
    sys.exit(main())
