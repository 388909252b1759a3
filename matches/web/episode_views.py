"""A roster player's personal page (/me/<personal token>/) and the manage page's episode actions.

The personal page is its player's only: their seat links, garnets and tokens, and the choices
of the episode waiting for them (the pick, the bans, who starts), never another audience's link.
It stays correct by reloading: after each post (post, redirect, get) and when the season
changes, which a small poll notices (`personal_poll`: 204 while nothing changed, else htmx's
HX-Refresh).  A poll rather than the match websocket: the page follows a season, not a match,
and matches/live (rewritten by another issue) has no season audience.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_POST

from config import ratelimits
from matches.models import Match, Season, SeasonPlayer
from matches.play import death_matches
from matches.seasons import episode_state, episodes
from matches.seasons import ledger as seasons

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def _secret(view: Any) -> Any:
    return cache_control(private=True)(never_cache(view))


@ratelimits.token_lookup
def _player_from_token(token: str) -> SeasonPlayer:
    if not _TOKEN.match(token):
        raise Http404("no such player")
    return get_object_or_404(SeasonPlayer.objects.select_related("season"), personal_token=token, removed=False)


def _version(season: Season) -> int:
    """Changes with every season event (a pick, a ban, a match created, started or over)."""
    return season.events.order_by("-id").values_list("id", flat=True).first() or 0


@_secret
@require_GET
def personal_page(request: HttpRequest, token: str) -> HttpResponse:
    player = _player_from_token(token)
    season = player.season
    seats = player.seats.select_related("match").order_by("-match__created")
    rows: list[dict[str, Any]] = [
        {"seat": s, "match": s.match, "title": episode_state.title(s.match), "result": episode_state.result_text(s.match)}
        for s in seats if s.match.season_id == season.pk
    ]
    context = {
        "player": player,
        "season": season,
        "garnets": player.garnet_balance(),
        "tokens": player.tokens_held(),
        "status_label": seasons.STATUS_WORDS[player.status],
        "waiting": episode_state.waiting_for_player(player),
        "running": [r for r in rows if r["match"].status != Match.FINISHED],
        "finished": [r for r in rows if r["match"].status == Match.FINISHED],
        "act_url": reverse("personal_act", args=[token]),
        "poll_url": reverse("personal_poll", args=[token]) + f"?v={_version(season)}",
    }
    return render(request, "matches/personal.html", context)


@_secret
@require_GET
def personal_poll(request: HttpRequest, token: str) -> HttpResponse:
    player = _player_from_token(token)
    if str(request.GET.get("v", "")) == str(_version(player.season)):
        return HttpResponse(status=204)
    response = HttpResponse("")
    response["HX-Refresh"] = "true"
    return response


@_secret
@require_POST
def personal_act(request: HttpRequest, token: str) -> HttpResponse:
    player = _player_from_token(token)
    season, data = player.season, request.POST
    key = str(data.get("key", "")) or None
    action = str(data.get("action", ""))
    try:
        if action == "choose_opponent":
            duel = death_matches.choose_opponent(season, player, str(data.get("opponent", "")), key=key)
            messages.success(request, f"You chose {duel.opponent.name}.")
        elif action == "death_match_choice":
            duel = death_matches.step(season, _int(data, "duel"), player, str(data.get("verdict", "")),
                                      str(data.get("game", "")), key=key)
            messages.success(request, "Done." if not duel.game_slug else
                             f"The death match is {episode_state.game_name(duel.game_slug)}.")
        elif action == "starter":
            death_matches.choose_starter(season, _int(data, "duel"), player, str(data.get("starter", "")), key=key)
            messages.success(request, "Done: the death match is ready.")
        else:
            raise seasons.ServiceError("unknown action; reload the page")
    except seasons.AlreadyDone as exc:
        messages.info(request, f"{exc} (a doubled submit: nothing was applied twice)")
    except seasons.ServiceError as exc:
        messages.error(request, str(exc))
    return redirect("personal_page", token=token)


def _int(data: Any, name: str) -> int:
    try:
        return int(str(data.get(name, "")).strip())
    except ValueError:
        raise seasons.ServiceError("reload the page: the form lost its fields") from None


# -- the manage page: episode actions (season_views.ACTIONS) -------------------------------------


def _start_episode(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    episode = episodes.start_episode(season, key=key)
    return f"Episode {episode.number} begins", "episode"


def _pool(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    pool = episodes.set_pool(season, [str(g) for g in data.getlist("game")], key=key)
    return f"Death match pool: {', '.join(episode_state.game_name(g) for g in pool) or 'empty'}", "episode-options"


def _options(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    text = str(data.get("deadline", "")).strip()
    deadline = _int(data, "deadline") if text else None
    episodes.set_options(season, advantage=str(data.get("advantage", "")), start=str(data.get("start", "")),
                         deadline=deadline, key=key)
    return "Episode options saved", "episode-options"


def _pick_first(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    episodes.set_pick_first(season, _int(data, "player"), key=key)
    return "Pick order set", "episode"


def _host_pick(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    duel = death_matches.choose_opponent(season, _int(data, "player"), str(data.get("opponent", "")), by_host=True,
                                    key=key)
    return f"{duel.candidate.name} faces {duel.opponent.name}", "episode"


def _host_step(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    duel = death_matches.step(season, _int(data, "duel"), _int(data, "player"), str(data.get("verdict", "")),
                              str(data.get("game", "")), by_host=True, key=key)
    settled = f": the death match is {episode_state.game_name(duel.game_slug)}" if duel.game_slug else ""
    return f"Recorded{settled}", "episode"


def _host_game(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    duel = death_matches.set_game(season, _int(data, "duel"), str(data.get("game", "")), key=key)
    return f"The death match is {episode_state.game_name(duel.game_slug)}", "episode"


def _host_starter(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    duel = death_matches.choose_starter(season, _int(data, "duel"), None, str(data.get("starter", "")), key=key)
    return f"{duel.starter.name if duel.starter else '?'} starts the death match", "episode"


ACTIONS = {
    "start_episode": _start_episode,
    "death_match_pool": _pool,
    "episode_options": _options,
    "pick_first": _pick_first,
    "host_pick": _host_pick,
    "host_step": _host_step,
    "host_game": _host_game,
    "host_starter": _host_starter,
}


def manage_context(season: Season) -> dict[str, Any]:
    """The manage page's episode in progress, what it waits for, and the forms to drive it."""
    episode = episode_state.current(season)
    context: dict[str, Any] = {
        "episode": None,
        "pool_choices": episode_state.pool_choices(),
        "pool": episode_state.season_pool(season),
        "advantages": Season.ADVANTAGES,
        "starts": Season.STARTS,
        "personal_links": list(season.players.filter(removed=False).order_by("name")),
    }
    if episode is None:
        return context
    q = episode_state.queue(episode)
    pending = [{"player": p, "eligible": episode_state.eligible(episode, p)} for p in q.pending]
    duels = []
    for duel in episode.duels.select_related("candidate", "opponent", "death_match", "starter"):
        state = episode_state.duel_state(duel)
        duels.append({
            "duel": duel, "state": state, "steps": state.steps, "pair": [duel.candidate, duel.opponent],
            "open": [(g, episode_state.game_name(g)) for g in state.open],
            "eligible": episode_state.eligible(episode, duel.candidate, leaving=duel),
            "waiting": state.waiting_for, "game": episode_state.game_name(duel.game_slug) if duel.game_slug else "",
        })
    context.update(
        episode=episode,
        story=episode_state.episode_story(episode),
        episode_waiting=episode_state.waiting(episode),
        pending=pending if episode_state.main_over(episode) else [],
        tie=q.tie,
        deadline_passed=q.passed(),
        duels=duels,
    )
    return context

