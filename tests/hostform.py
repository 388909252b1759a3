"""The dashboard's forms carry `host_seq` (matches.host_actions: exactly-once
host actions); tests that post like the page add it with `seq(host_token)`."""

from __future__ import annotations


def seq(host_token: str) -> int:
    from matches.host_actions import host_seq
    from matches.models import Match

    return host_seq(Match.objects.get(host_token=host_token))
