"""Practise against the computer: a match with bots in every other seat, started at once.

No host is needed: the match starts on creation and the player lands on their own
seat's page; the bots move from a worker (matches/play/bots.py).  One bout, the
game's own clock.  A finished one offers "Play again" (render._practice_again), posted here."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from config import ratelimits
from config.ratelimits import limit_posts
from games.registry import get_game, slugs
from matches.core.outcome import title
from matches.play import bots, practising, services
from matches.web import forms

#: the practice form's own double-submit key space (forms.create_key)
PRACTICE_FORM = "practice-form"
STRENGTH_CHOICES = [(strength, strength.capitalize()) for strength in bots.STRENGTHS]


class PracticeError(ValueError):
    pass


def practice_slugs() -> list[str]:
    """The games one can practise alone: every registered one but those the host plays too (the
    host's game, `custom`: its rounds are opened and judged by a person)."""
    return [slug for slug in slugs() if not get_game(slug).host_moves]


def practice_games() -> list[dict[str, Any]]:
    """The games a bot plays, with their seat counts."""
    return [g for g in forms.games() if g["slug"] in practice_slugs()]


def _parse(data: Any) -> tuple[str, str, int]:
    get = data.get
    slug = str(get("game", "")).strip()
    if slug not in practice_slugs():
        raise PracticeError("choose a game to practise")
    strength = str(get("strength", "")).strip()
    if strength not in bots.STRENGTHS:
        raise PracticeError("choose how strong the computer plays: easy, normal or strong")
    seats = get_game(slug).seats
    try:
        seat = int(str(get("seat", "1")).strip())
    except ValueError:
        raise PracticeError("choose your seat") from None
    if not 1 <= seat <= seats:
        raise PracticeError(f"{get_game(slug).name} has seats 1 to {seats}")
    return slug, strength, seat


@limit_posts("matches")
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    try:
        slug, strength, mine = _parse(request.POST)
        seats = get_game(slug).seats
        # the pages add "(computer, easy)" to a bot's name: "Opponent (computer, easy)"
        names = ["You" if n == mine else "Opponent" if seats == 2 else f"Opponent {n}" for n in range(1, seats + 1)]
        # the form's double-submit key: a doubled click finds the match its first one made; the
        # browser and its address: how many practice matches it may have running (play/practising.py)
        match = practising.create(slug, names, mine, strength, key=forms.create_key(request, PRACTICE_FORM),
                                  browser=forms.form_client(request, PRACTICE_FORM),
                                  address=ratelimits.client_network(request))
    except services.AlreadyCreated as done:
        return _to_seat(request, done.match.seats.get(bot=""))
    except practising.TooManyPractice as limit:
        return _refused(request, _too_many(limit), status=429)
    except (PracticeError, services.ServiceError) as error:
        return _refused(request, str(error), status=400)
    return _to_seat(request, match.seats.get(number=mine))


def _refused(request: HttpRequest, error: str, status: int) -> HttpResponse:
    if request.headers.get("HX-Request"):  # "Play again" on a finished practice match's page
        return HttpResponse(format_html('<span id="practice-again-error" class="move-error" role="alert" '
                                        'hx-swap-oob="true">{}</span>', error))
    context = {"practice_games": practice_games(), "strengths": STRENGTH_CHOICES, "practice_error": error,
               "practice_posted": request.POST}
    return render(request, "matches/practice_error.html", context, status=status)


def _too_many(limit: practising.TooManyPractice) -> str:
    """The refusal, one sentence naming the running matches: this browser's own with a link to the
    player's seat, any other browser's (behind the same address) by name only."""
    named = [format_html('<a href="{}">{} #{}</a>', reverse("player_page", kwargs={"token": r.seat_token}),
                         title(r.match), r.match.pk) if r.seat_token else format_html("{} #{}", title(r.match), r.match.pk)
             for r in limit.running]
    listed = format_html("{} and {}", format_html_join(", ", "{}", ((n,) for n in named[:-1])), named[-1]) \
        if len(named) > 1 else named[0]
    if limit.scope == "browser":
        return format_html("You have {} practice matches running already ({}): finish or resign one before you "
                           "start another.", limit.limit, listed)
    return format_html("{} practice matches are running from your address already ({}): one of them must end "
                       "before another starts.", limit.limit, listed)


def _to_seat(request: HttpRequest, seat: Any) -> HttpResponse:
    """To the player's seat page; by htmx ("Play again"), which would follow a redirect itself, the
    browser is sent there."""
    page = redirect("player_page", token=seat.token)
    if request.headers.get("HX-Request"):
        response = HttpResponse()
        response["HX-Redirect"] = page["Location"]
        return response
    return page
