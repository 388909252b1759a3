#!/bin/sh
# The images' entrypoint (Dockerfile: web and proxy): raise this process's open-files soft limit to
# DEATHMATCH_OPEN_FILES (65536: a websocket holds a descriptor in daphne and two in nginx) or to the
# hard limit when that is lower, say which on stderr, then run the command (exec, so the limit and
# the PID stay with it: daphne, or the nginx image's own /docker-entrypoint.sh).
#
# Why not compose's `ulimits: nofile: 65536`: that asks the runtime for a hard limit above the
# engine's own, and runc refuses to start the container at all where the engine may not raise it
# (rootless Docker, some CI runners, a dockerd started from a shell with a lower hard limit).  The
# soft limit can always be raised up to the hard one, without any privilege; a host that allows
# less than asked runs with less (fewer websockets per process) and says so in the log.
#   sh open-files.sh COMMAND [ARG...]
set -u
want=${DEATHMATCH_OPEN_FILES:-65536}
hard=$(ulimit -Hn)
soft=$(ulimit -Sn)
if [ "$hard" = unlimited ] || [ "$hard" -ge "$want" ]; then
  target=$want
else
  target=$hard
fi
if [ "$soft" != unlimited ] && [ "$soft" -lt "$target" ]; then
  ulimit -Sn "$target" || target=$soft
else
  target=$soft
fi
if [ "$target" = unlimited ] || [ "$target" -ge "$want" ]; then
  echo "open files: $target (DEATHMATCH_OPEN_FILES=$want)" >&2
else
  echo "open files: $target, not the $want asked for: the host's hard limit is $hard (fewer websockets per process; raise the engine's limit, e.g. dockerd --default-ulimit nofile=$want:$want)" >&2
fi
exec "$@"
