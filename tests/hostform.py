"""The dashboard's forms carry `host_seq` (matches.web.host_actions: exactly-once
host actions); tests that post like the page add it with `seq(host_token)`."""

from __future__ import annotations


def seq(host_token: str) -> int:
    from matches.models import Match
    from matches.play.engine import host_seq

    return host_seq(Match.objects.get(host_token=host_token))
