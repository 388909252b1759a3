#!/usr/bin/env bash
# A rolling restart of docker-compose.yml's `web`: one replica at a time, each new one healthy
# before an old one stops, so the proxy always has the others to route to (README "Rolling restart").
#
#   bash config/deploy/rolling-restart.sh [SERVICE]      (from the checkout; SERVICE: web)
#
# For each replica running when it starts:
#  1. one replica more (`compose up --no-deps --no-recreate --scale web=N+1`): a new container, on
#     the image and configuration compose has now (a new build is rolled out this way); the old
#     ones are left as they are;
#  2. wait until Docker calls it healthy (its healthcheck: GET /healthz), then RESOLVE_WAIT seconds
#     (2: twice the proxy's DNS interval, config/nginx/) so that the proxy sends it requests;
#  3. `docker stop` one old replica: SIGTERM, it drains (config/drain.py: refuses new connections,
#     which the proxy retries on the others, tells its websockets to reconnect, answers what is in
#     flight) and exits within compose's stop_grace_period; then it is removed.  Meanwhile a few
#     GETs of /healthz go through the proxy (PROXY_URL, from the new replica): the proxy tries the
#     one that refuses and sets it aside before its address vanishes (config/nginx/ says why that
#     matters), whether or not visitors are about.
# The replica count is what it was.  A new replica that does not become healthy within
# HEALTH_TIMEOUT (120 s) is stopped and removed, the old ones keep serving, and this exits 1.
#
# `compose up -d --no-deps web` and `compose restart web` are not rolling: they stop or recreate
# every replica at once.  Compose v2 (`docker compose`) or, with COMPOSE="docker-compose
# --compatibility", v1; COMPOSE_PROJECT_NAME and COMPOSE_FILE are honoured as compose honours them.
set -euo pipefail
SERVICE=${1:-web}
HEALTH_TIMEOUT=${HEALTH_TIMEOUT:-120}
RESOLVE_WAIT=${RESOLVE_WAIT:-2}
PROXY_URL=${PROXY_URL:-http://proxy:80/healthz}
read -r -a COMPOSE <<<"${COMPOSE:-docker compose}"

say() { printf '%s rolling restart: %s\n' "$(date +%H:%M:%S)" "$*"; }
containers() { "${COMPOSE[@]}" ps -a -q "$SERVICE" | sort; }
running() { "${COMPOSE[@]}" ps -q "$SERVICE" | sort; }
name() { docker inspect -f '{{.Name}}' "$1" | sed 's,^/,,'; }

mapfile -t old < <(running)
[ ${#old[@]} -gt 0 ] || { say "no $SERVICE replica is running (start them with: docker compose up -d)"; exit 1; }
say "${#old[@]} replica(s) of $SERVICE, one at a time"

for container in "${old[@]}"; do
  before=$(containers)
  count=$(running | wc -l)
  "${COMPOSE[@]}" up -d --no-deps --no-recreate --scale "$SERVICE=$((count + 1))" "$SERVICE" >/dev/null
  new=$(comm -13 <(printf '%s\n' "$before") <(containers) | head -n 1)
  [ -n "$new" ] || { say "compose started no new replica of $SERVICE"; exit 1; }
  say "started $(name "$new"), waiting for it to be healthy"
  waited=0
  until [ "$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$new")" = healthy ]; do
    status=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$new")
    case "$status" in
      *none|"running ") say "$(name "$new") has no healthcheck: the compose file's $SERVICE needs one"; exit 1 ;;
    esac
    if [ "$waited" -ge "$HEALTH_TIMEOUT" ] || [ "${status%% *}" != running ]; then
      say "$(name "$new") is not healthy after ${waited} s ($status): removed; the old replicas keep serving"
      docker logs --tail 20 "$new" >&2 || true
      docker stop "$new" >/dev/null && docker rm "$new" >/dev/null
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  sleep "$RESOLVE_WAIT"
  say "$(name "$new") healthy; stopping $(name "$container") (it drains first)"
  docker stop "$container" >/dev/null &
  stopping=$!
  docker exec "$new" python -c "
import time, urllib.request
for _ in range(20):
    time.sleep(0.1)
    try:
        urllib.request.urlopen('$PROXY_URL', timeout=5).read()
    except OSError:
        pass
" || say "could not reach the proxy at $PROXY_URL from $(name "$new") (PROXY_URL)"
  wait "$stopping"
  docker rm "$container" >/dev/null
done
say "done: $(running | wc -l) replica(s) of $SERVICE, all new"
