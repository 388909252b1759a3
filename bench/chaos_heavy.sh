#!/usr/bin/env bash
# Heavier variants of the chaos tests (tests/chaos) and of the form fuzzing:
# idle sockets for 10 minutes with the production Redis timeouts, 5,000
# sockets on one process, 3,000 concurrent requests, 10,000 fuzzed form posts.
# Each starts its own redis-server and daphne; PostgreSQL from DATABASE_URL
# (a database of its own).  Prints the figures.  Takes ~20-40 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
run() { .venv/bin/python -m pytest -q -p no:cacheprovider -s "$@"; }
DEATHMATCH_CHAOS_IDLE=600 DEATHMATCH_CHAOS_READ_TIMEOUT=15 \
  run tests/chaos/test_idle_sockets.py
DEATHMATCH_CHAOS_SOCKETS=5000 run tests/chaos/test_many_sockets.py
DEATHMATCH_CHAOS_REQUESTS=3000 run tests/chaos/test_concurrency.py
DEATHMATCH_FUZZ_POSTS=10000 run tests/reliability/test_fuzz_forms.py -k fuzzed
