"""Defect 7: no form post reaches a 500.

Posts built from the real forms (300 in CI, 10,000 with bench/chaos_heavy.sh): the field names are read from the
rendered pages (home, host dashboard, season list and season management), and
each post fills a random subset of them with hostile values ("[" * 5000,
huge numbers, NUL, long text, unicode digits...), with a seeded random
generator so a failure replays.  Every answer must be a page or a plain
refusal (2xx/3xx/4xx), never a 500, and the sample must have sent every hostile
value and put one in every field of every form.  DEATHMATCH_FUZZ_POSTS changes the count.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from typing import Any

import pytest
from django.test import Client

from tests.hostform import seq

#: CI posts 300 (enough to meet every field and every hostile value); `bench/chaos_heavy.sh` posts 10,000
POSTS = int(os.environ.get("DEATHMATCH_FUZZ_POSTS", "300"))
SEED = 6

NASTY = [
    "", " ", "0", "1", "2", "3", "4", "-1", "-0", "1.5", "1e309", "nan", "inf", "-inf", "99999999999999999999",
    "2147483648", "-2147483649", "\u0663", "\u00b2", " 7 ", "[", "[" * 5000, "{" * 3000, "[" * 5000 + "]" * 5000,
    "[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]", '"x"', "null", "true", "false", "[]", "{}",
    '{"a": 1}', "[[1, 2], [3]]", "A1", "C3", "place C3", "seat 1: A1", "resolve", "A1 3; E5 2",
    "\x00", "a\x00b", "\u202e", "\U0001f600" * 50, "x" * 10_000, "<script>alert(1)</script>", "' OR 1=1 --",
    "http://127.0.0.1:1/", "https://example.com/hook", "file:///etc/passwd", "bout", "match", "host", "delay",
]


def _names(html: str) -> list[str]:
    return sorted(set(re.findall(r'name="([^"]+)"', html)) - {"csrfmiddlewaretoken"})


def _options(html: str) -> dict[str, list[str]]:
    """Values the page itself offers (select options, button values) per field name."""
    found: dict[str, list[str]] = {}
    for name, value in re.findall(r'name="([^"]+)"[^>]*value="([^"]*)"', html):
        found.setdefault(name, []).append(value)
    return found


def _post(rng: random.Random, names: list[str], offered: dict[str, list[str]], fixed: dict[str, Any],
          met: set[tuple[str, str]] | None = None) -> dict[str, Any]:
    """A post; `met` collects each (field, hostile value) it sends."""
    data: dict[str, Any] = {}
    for name in rng.sample(names, k=rng.randint(0, len(names))):
        if offered.get(name) and rng.random() < 0.5:
            data[name] = rng.choice(offered[name])
            continue
        if rng.random() < 0.1:
            data[name] = [rng.choice(NASTY), rng.choice(NASTY)]  # a field sent twice
        else:
            data[name] = rng.choice(NASTY)
        if met is not None:
            met.update((name, value) for value in (data[name] if isinstance(data[name], list) else [data[name]]))
    for name, value in fixed.items():
        if rng.random() < 0.9:
            data[name] = value() if callable(value) else value
    return data


def _assert_all_met(targets: list[tuple[str, list[str], Any, Any]], met: dict[str, set[tuple[str, str]]],
                    fixed: frozenset[str] = frozenset()) -> None:
    """The sample sent every hostile value, and one into every field of every form (but those
    `fixed` fills with a valid value)."""
    unmet = [(url, name) for url, names, *_ in targets for name in names
             if name not in fixed and all(field != name for field, _ in met.get(url, ()))]
    values = {value for pairs in met.values() for _, value in pairs}
    assert not unmet and values >= set(NASTY), (unmet[:10], [v[:20] for v in set(NASTY) - values])


@pytest.mark.django_db(transaction=False)
def test_fuzzed_create_host_and_season_posts_never_give_a_500(make_match: Any) -> None:
    client = Client(raise_request_exception=False)
    rng = random.Random(SEED)
    match = make_match("lance-assembly")
    host_html = client.get(f"/h/{match.host_token}/").content.decode()
    home_html = client.get("/").content.decode()
    targets: list[tuple[str, list[str], dict[str, list[str]], dict[str, Any]]] = [
        ("/", _names(home_html), _options(home_html), {}),
        (f"/h/{match.host_token}/act/", _names(host_html), _options(host_html),
         {"host_seq": lambda: seq(match.host_token)}),
    ]
    seasons = client.get("/seasons/")
    if seasons.status_code == 200:  # the seasons pages (issue: season forms) when they exist
        list_html = seasons.content.decode()
        targets.append(("/seasons/", _names(list_html), _options(list_html), {}))
        from matches.models import Season

        created = client.post("/seasons/", {"name": "Fuzz season"})
        season = Season.objects.filter(name="Fuzz season").first()
        token = getattr(season, "manage_token", None) if season is not None else None
        if created.status_code < 400 and token:
            manage_html = client.get(f"/s/{token}/").content.decode()
            targets.append((f"/s/{token}/act/", _names(manage_html), _options(manage_html), {}))
    statuses: Counter[int] = Counter()
    failures: list[tuple[str, dict[str, Any]]] = []
    met: dict[str, set[tuple[str, str]]] = {}
    for number in range(POSTS):
        url, names, offered, fixed = targets[number % len(targets)]
        data = _post(rng, names, offered, fixed, met.setdefault(url, set()))
        # each post from an address of its own: the forms are fuzzed here, not the rate limits
        response = client.post(url, data, REMOTE_ADDR=f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}")
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            failures.append((url, {k: (str(v)[:40]) for k, v in data.items()}))
    print(f"\n{POSTS} fuzzed posts to {len(targets)} forms ({', '.join(t[0].split('/')[1] or 'home' for t in targets)}):"
          f" statuses {dict(sorted(statuses.items()))}")
    assert not failures, failures[:5]
    _assert_all_met(targets, met, frozenset({"host_seq"}))


def _chat_forms(html: str) -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """The page's chat forms (relative actions chat/, chat/name/, chat/mod/): their fields and the
    values the page offers, merged per action."""
    found: dict[str, tuple[list[str], dict[str, list[str]]]] = {}
    for action, body in re.findall(r'<form[^>]*action="(chat/[a-z/]*)"[^>]*>(.*?)</form>', html, re.S):
        names, offered = found.setdefault(action, ([], {}))
        names[:] = sorted(set(names) | set(_names(body)))
        for name, values in _options(body).items():
            offered.setdefault(name, []).extend(values)
    return found


@pytest.mark.django_db(transaction=False)
def test_fuzzed_chat_and_moderation_posts_never_give_a_500(make_match: Any) -> None:
    """Every chat form of the seat, host and spectator pages (a line, a spectator's name, the host's
    remove, mute, lift, close and options forms), fuzzed as above (issue 37: a NUL in the mute form's
    writer was PostgreSQL's DataError).  Nothing stored may hold a control or format character."""
    import unicodedata

    from games.core import SPECTATOR
    from matches.models import ChatMessage, ChatMute
    from matches.pages import chat_panel
    from matches.play import chat

    client = Client(raise_request_exception=False)
    rng = random.Random(SEED)
    match = make_match("lance-assembly")
    seat = match.seats.get(number=1)
    chat.post(match, 1, "table", "good luck")
    cookie = chat_panel.spectator_cookie("f00d42", "Zed")
    chat.post(match, SPECTATOR, "spectators", "hi all", spectator_id="f00d42", spectator_name="Zed")
    chat.mute(match, "spectator-f00d42", "15", "spam")  # the host page then draws a lift form too
    targets: list[tuple[str, list[str], dict[str, list[str]], dict[str, str]]] = []
    for base, cookies in ((f"/h/{match.host_token}/", {}), (f"/p/{seat.token}/", {}),
                          (f"/w/{match.watch_token}/", {}), (f"/w/{match.watch_token}/", {chat_panel.COOKIE: cookie})):
        client.cookies.clear()
        for name, value in cookies.items():
            client.cookies[name] = value
        for action, (names, offered) in _chat_forms(client.get(base).content.decode()).items():
            targets.append((base + action, names, offered, cookies))
    assert {t[0].split("/", 3)[3] for t in targets} >= {"chat/", "chat/mod/", "chat/name/"}, [t[0] for t in targets]
    extra = ["\u200b", "a\u2060b", "\ufeff" + match.host_token, "seat-\x00", "spectator-\x00", "spectator-f00d42"]
    statuses: Counter[int] = Counter()
    failures: list[tuple[str, dict[str, Any]]] = []
    met: dict[str, set[tuple[str, str]]] = {}
    for number in range(POSTS):
        url, names, offered, cookies = targets[number % len(targets)]
        data = _post(rng, names, {k: [*v, *extra] for k, v in offered.items()}, {}, met.setdefault(url, set()))
        client.cookies.clear()
        for name, value in cookies.items():
            client.cookies[name] = value
        headers: dict[str, Any] = {"HTTP_HX_REQUEST": "true"} if number % 2 else {}
        response = client.post(url, data, REMOTE_ADDR=f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}",
                               **headers)
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            failures.append((url, {k: (str(v)[:40]) for k, v in data.items()}))
    print(f"\n{POSTS} fuzzed posts to {len(targets)} chat forms: statuses {dict(sorted(statuses.items()))}")
    assert not failures, failures[:5]
    _assert_all_met(targets, met)
    stored = [*ChatMessage.objects.values_list("text", "name", "room", "writer"),
              *ChatMute.objects.values_list("reason", "name", "writer")]
    assert not any(unicodedata.category(ch) in ("Cc", "Cf") for row in stored for value in row for ch in value)


def test_deeply_nested_json_option_is_refused_in_words() -> None:
    """The create form has no raw JSON box any more (issue 13), but an option with a list or dict
    default that is posted as text still goes through `_coerce`: "[" * 5000 made json raise
    RecursionError (a 500) before the guard."""
    from matches.web import forms

    with pytest.raises(forms.CreateError, match="nested too deeply"):
        forms._coerce("walls", {}, "[" * 5000, "opt-x-walls")
    assert forms._coerce("walls", {}, '{"once": ["C3"]}') == {"once": ["C3"]}
