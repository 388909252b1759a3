"""Season pages: the list, the public page of a season, its CSV exports, and
the secret manage page.  Thin: access helpers, then `matches.seasons.ledger`.

Public pages (/seasons/..., CSVs) show spectator links only; the manage page
(/s/<manage token>/) is the season host's, like a match's host link, and also
lists each match's host dashboard.  Every manage form carries a fresh `key`,
so a doubled submit is applied once (the second is told "already done").
"""

from __future__ import annotations

import csv
import re
from typing import Any, NamedTuple

from django.contrib import messages
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_POST, require_safe

from config import ratelimits
from games.registry import get_game, slugs
from matches.models import Match, Season, WebhookPost
from matches.play import season_matches, season_tokens
from matches.seasons import episode_state, season_options
from matches.seasons import ledger as seasons
from matches.web import episode_views, forms

LEDGER_ROWS = 500
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
#: what a spreadsheet reads as the start of a formula in a text cell
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _secret(view: Any) -> Any:
    """The manage page holds the season's secret link: never cached."""
    return cache_control(private=True)(never_cache(view))


@ratelimits.token_lookup
def _season_from_manage_token(token: str) -> Season:
    if not _TOKEN.match(token):  # not one of ours (and nothing a database refuses, like NUL)
        raise Http404("no such season")
    return get_object_or_404(Season, manage_token=token)


def _form_client(request: HttpRequest) -> str | None:
    """Who posts the season form, for its double-submit key (forms.form_client)."""
    return forms.form_client(request, "season-form")


def _base_url(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


# -- public --------------------------------------------------------------------------------


@ratelimits.limit_posts("seasons")
@cache_control(private=True, no_store=True)  # the answer to a post is the new season's manage link
def season_list(request: HttpRequest) -> HttpResponse:
    error = ""
    if request.method == "POST":
        client = _form_client(request)
        try:
            season = seasons.create_season(
                str(request.POST.get("name", "")), webhook_url=str(request.POST.get("webhook_url", "")),
                base_url=_base_url(request), key=(str(request.POST.get("key", "")) or None) if client else None,
                client=client,
            )  # fmt: skip
        except seasons.ServiceError as exc:
            error = str(exc)
        else:
            messages.success(request, "Season created. This page is its manage link: keep it to yourself.")
            return redirect("season_manage", token=season.manage_token)
    # only seasons with a match: an empty one shows nothing, and listing them invited filling the page
    rows = Season.objects.filter(Exists(Match.objects.filter(season=OuterRef("pk")))).order_by("-created")[:200]
    return render(request, "matches/season_list.html", {"seasons": rows, "error": error,
                                                        "form": request.POST if error else {}},
                  status=400 if error else 200)


@require_GET
def season_page(request: HttpRequest, slug: str) -> HttpResponse:
    season = get_object_or_404(Season, slug=slug)
    return render(request, "matches/season.html", _context(season))


@require_safe  # GET and HEAD (a download manager or a link checker asks HEAD first)
def ledger_csv(request: HttpRequest, slug: str) -> HttpResponse:
    season = get_object_or_404(Season, slug=slug)
    response = _csv_response(f"{season.slug}-ledger.csv")
    out = csv.writer(response)
    out.writerow(["time", "player", "amount", "kind", "reason", "match", "watch"])
    for entry in season.garnet_entries.select_related("player", "match").order_by("created", "id"):
        watch = _watch(request, entry.match) if entry.match else ""
        out.writerow(_cells([entry.created.isoformat(), entry.player.name, entry.amount, entry.get_kind_display(),
                             entry.reason, entry.match_id or "", watch]))
    return response


@require_safe
def standings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    season = get_object_or_404(Season, slug=slug)
    response = _csv_response(f"{season.slug}-standings.csv")
    out = csv.writer(response)
    out.writerow(["player", "status", "garnets", "tokens of life", "played", "won"])
    for row in seasons.standings(season):
        out.writerow(_cells([row["name"], row["status_label"], row["garnets"], row["tokens"], row["played"],
                             row["won"]]))
    return response


def _cells(row: list[Any]) -> list[Any]:
    """A text cell a spreadsheet would run as a formula (= + - @, tab, carriage
    return first) starts with an apostrophe instead, as OWASP's "CSV Injection"
    advises; numbers (a garnet amount of -3) are written as numbers."""
    return [f"'{cell}" if isinstance(cell, str) and cell.startswith(_FORMULA) else cell for cell in row]


def _csv_response(filename: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _watch(request: HttpRequest, match: Match) -> str:
    return request.build_absolute_uri(reverse("watch_page", args=[match.watch_token]))


# -- manage ----------------------------------------------------------------------------------


@_secret
@require_GET
def season_manage(request: HttpRequest, token: str) -> HttpResponse:
    season = _season_from_manage_token(token)
    if not season.base_url:  # links in announcements need the site's address
        Season.objects.filter(pk=season.pk).update(base_url=_base_url(request))
    context = _context(season, manage=True)
    context.update(
        manage_url=request.build_absolute_uri(reverse("season_manage", args=[season.manage_token])),
        public_url=request.build_absolute_uri(reverse("season_page", args=[season.slug])),
        act_url=reverse("season_act", args=[season.manage_token]),
        games=_games(),
        seat_numbers=[str(n) for n in range(1, forms.MAX_SEATS + 1)],
        events=season.events.select_related("match").order_by("-created", "-id")[:200],
        posts_pending=season.webhook_posts.filter(status=WebhookPost.PENDING).count(),
        posts_failed=season.webhook_posts.filter(status=WebhookPost.FAILED).count(),
        paste=request.session.pop(_PASTE.format(season.pk), ""),
        **episode_views.manage_context(season),
    )
    return render(request, "matches/season_manage.html", context)


@_secret
@require_POST
def season_act(request: HttpRequest, token: str) -> HttpResponse:
    season = _season_from_manage_token(token)
    data = request.POST
    action = str(data.get("action", ""))
    handler = ACTIONS.get(action)
    anchor = ""
    if action == "webhook" and data.get("do") == "test" and (limited := _test_posts_limited(request, season)):
        return limited
    if action == "match" and (seconds := ratelimits.over(request, "matches")) is not None:
        return ratelimits.too_many(request, "matches", seconds)  # as the home page's form: one budget
    try:
        if handler is None:
            raise seasons.ServiceError("unknown action; reload the page")
        done = handler(season, data, str(data.get("key", "")) or None)
        message, anchor = str(done[0]), str(done[1])
    except seasons.AlreadyDone as exc:
        messages.info(request, f"{exc} (a doubled submit: nothing was applied twice)")
    except (seasons.ServiceError, ValueError) as exc:
        messages.error(request, str(exc))
        if action == "add_players":  # a refused paste comes back in its box, for the host to fix
            request.session[_PASTE.format(season.pk)] = str(data.get("names", ""))[:PASTE_CHARS]
    else:
        # a status change or garnets: the message carries an Undo for 30 s (season_manage.html)
        undoable = done.undo if isinstance(done, Undoable) else None
        messages.success(request, message, extra_tags=f"undo-{undoable}" if undoable else "")
        if undoable:  # the page opens at its message, where the Undo is (not at the form's section)
            anchor = "season-messages"
    return redirect(reverse("season_manage", args=[token]) + (f"#{anchor}" if anchor else ""))


#: the session key of a refused roster paste (shown again once in the box), and how much of it is kept
_PASTE = "roster-paste:{}"
PASTE_CHARS = 5000


class Undoable(NamedTuple):
    """A handler's message, the page's anchor, and the season event its Undo takes back (30 s)."""

    message: str
    anchor: str
    undo: int | None


def _test_posts_limited(request: HttpRequest, season: Season) -> HttpResponse | None:
    """A few test posts a minute per season (whoever asks) and per client (whichever season)."""
    seconds = ratelimits.over(request, "webhook-tests-season", key=lambda group, request: f"season:{season.pk}")
    if seconds is not None:
        return ratelimits.too_many(request, "webhook-tests-season", seconds)
    seconds = ratelimits.over(request, "webhook-tests")
    return ratelimits.too_many(request, "webhook-tests", seconds) if seconds is not None else None


def _int(data: Any, key: str, label: str) -> int:
    try:
        return int(str(data.get(key, "")).strip())
    except ValueError:
        raise seasons.ServiceError(f"the {label} must be a whole number") from None


def _add_player(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    player = seasons.add_player(season, str(data.get("name", "")), key=key)
    return f"{player.name} added to the roster", "roster"


def _add_players(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    added = season_options.add_players(season, str(data.get("names", "")), key=key)
    names = [p.name for p in added]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{listed} added to the roster ({len(names)} player{'s' if len(names) != 1 else ''})", "roster"


def _result_options(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    season_options.set_result_options(season, data.get("main_tokens", ""), data.get("main_candidates", ""),
                                      data.get("winner_takes_garnets") == "on", key=key)
    return "episode results options saved", "result-options"


def _rename(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    player = seasons.rename_player(season, _int(data, "player", "player"), str(data.get("name", "")), key=key)
    return f"renamed to {player.name}", "roster"


def _remove(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    player = seasons.remove_player(season, _int(data, "player", "player"), key=key)
    return f"{player.name} removed from the roster", "roster"


def _garnets(season: Season, data: Any, key: str | None) -> Undoable:
    amount = _int(data, "amount", "number of garnets")
    if data.get("sign") == "deduct":
        amount = -abs(amount)
    entry = seasons.adjust_garnets(season, _int(data, "player", "player"), amount, str(data.get("reason", "")),
                                   allow_negative="allow_negative" in data, key=key)
    return Undoable(f"{entry.player.name} {entry.amount:+d} garnet(s) recorded", "garnets", entry.event_id)


def _token(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    player, reason = _int(data, "player", "player"), str(data.get("reason", ""))
    if data.get("do") == "use":
        return seasons.use_token(season, player, reason, key=key).text, "tokens"
    token = seasons.grant_token(season, player, reason, key=key)
    return f"{token.player.name} receives a Token of Life", "tokens"


def _token_question(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    """The Token of Life question of an elimination match, answered here (see season_tokens)."""
    player, verdict = _int(data, "player", "player"), str(data.get("answer", ""))
    if verdict not in ("use", "keep"):
        raise seasons.ServiceError("answer the Token of Life question with use or keep")
    found = seasons.find_player(season, player)
    question = next((q for q in seasons.open_questions(season) if q["player"].pk == found.pk), None)
    if question is None:  # answered already (said by the ledger), or never asked
        seasons.answer_token_question(season, found, verdict == "use", key=key)
        raise seasons.ServiceError(f"{found.name} has no open Token of Life question")
    event = season_tokens.answer(question["match"], found, verdict == "use", key=key,
                                 where="answered on the season's manage page")
    return event.text, "questions"


def _status(season: Season, data: Any, key: str | None) -> Undoable:
    event = seasons.set_status(season, _int(data, "player", "player"), str(data.get("status", "")),
                               str(data.get("reason", "")), key=key)
    return Undoable(event.text, "status", event.pk)


def _undo(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    event = seasons.undo(season, _int(data, "event", "action to undo"), key=key)
    return event.text, "status" if event.player and event.kind == "status" else "garnets"


def _match(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    slug = str(data.get("game", ""))
    picked = [str(data.get(f"seat{n}", "")).strip() for n in range(1, forms.MAX_SEATS + 1)]
    players = [_int({"p": p}, "p", "player") for p in picked if p]
    bouts = _int(data, "bouts", "number of bouts") if str(data.get("bouts", "")).strip() else None
    if bouts is not None and not 1 <= bouts <= 99:
        raise seasons.ServiceError("the number of bouts must be between 1 and 99")
    match = season_matches.create_season_match(season, slug, players, elimination="elimination" in data, bouts=bouts,
                                        key=key)
    kind = "Elimination match" if match.elimination else "Match"
    return f"{kind} #{match.pk} created: open its host dashboard below to hand out the seat links", "matches"


def _attach(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    event = season_matches.attach_match(season, str(data.get("link", "")), key=key)
    match = event.match
    assert match is not None
    names = [seat.name for seat in match.seats.order_by("number")]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    moved = int(event.data.get("garnets", 0))
    garnets = f"{moved} garnet entr{'y' if moved == 1 else 'ies'} moved into the ledger" if moved else "no garnets to move"
    return f"{match.game.name} #{match.pk} joins {season.name}: {who} are on its roster; {garnets}", "matches"


def _webhook(season: Season, data: Any, key: str | None) -> tuple[str, str]:
    if data.get("do") == "test":
        seasons.test_webhook(season, key=key)
        return "test announcement queued", "webhook"
    event = seasons.set_webhook(season, str(data.get("webhook_url", "")), key=key)
    return event.text, "webhook"


ACTIONS = {
    "undo": _undo,
    "add_player": _add_player,
    "add_players": _add_players,
    "result_options": _result_options,
    "rename": _rename,
    "remove": _remove,
    "garnets": _garnets,
    "token": _token,
    "token_question": _token_question,
    "status": _status,
    "match": _match,
    "attach": _attach,
    "webhook": _webhook,
    **episode_views.ACTIONS,  # the episode: pool, options, the host's overrides
}


# -- shared context ----------------------------------------------------------------------------


def _games() -> list[dict[str, Any]]:
    out = []
    for slug in slugs():
        try:
            game = get_game(slug)
        except Exception:  # a game still being written must not break the page
            continue
        # the host's game seats 2 to 16 (its "seats" option): as many as the host picks
        seats = f"2 to {game.seats}" if "seats" in game.default_options else str(game.seats)
        out.append({"slug": slug, "name": game.name, "seats": seats})
    return out


def _context(season: Season, *, manage: bool = False) -> dict[str, Any]:
    matches = list(season.matches.prefetch_related("seats").order_by("-created"))
    return {
        "season": season,
        "manage": manage,
        "standings": seasons.standings(season),
        "questions": seasons.open_questions(season) if manage else [],
        "roster": list(season.players.filter(removed=False).order_by("name")),
        "ledger": season.garnet_entries.select_related("player", "match").order_by("-created", "-id")[:LEDGER_ROWS],
        "ledger_total": season.garnet_entries.count(),
        "running": [_match_row(m) for m in matches if m.status != Match.FINISHED],
        "finished": [_match_row(m) for m in matches if m.status == Match.FINISHED],
        "episodes": episode_state.recap(season),
    }


def _match_row(match: Match) -> dict[str, Any]:
    seats = sorted(match.seats.all(), key=lambda s: s.number)
    names = {s.number: s.name for s in seats}
    try:
        game_name = match.game.name
    except KeyError:
        game_name = match.game_slug
    winners = [names.get(int(w), f"seat {w}") for w in match.winners]
    result = ""
    if match.status == Match.FINISHED:
        result = (", ".join(winners) + (" wins" if len(winners) == 1 else " win")) if winners else "no winner"
        if match.result_reason:
            result += f" ({match.result_reason})"
        bout = match.current_bout
        scores = (bout.result or {}).get("scores") if bout is not None else None
        if scores:
            result += " · " + ", ".join(f"{names.get(int(s), s)} {v:g}" for s, v in scores.items())
    return {
        "match": match,
        "game": game_name,
        "players": [s.name for s in seats],
        "result": result,
        "status": {"setup": "not started", "running": "running now", "finished": "finished"}[match.status],
    }
