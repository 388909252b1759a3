"""Season services: the roster, the garnet ledger, Tokens of Life, candidates
and eliminations; match results fed exactly once and taken back exactly;
doubled submits applied once.  Expected outcomes of Back to the Wall come
from replaying the same orders through the pure rules, not from the season
code."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from games.core import SPECTATOR, RuleError
from games.registry import get_game
from matches.models import GarnetEntry, Match, SeasonEvent, SeasonPlayer, TokenOfLife
from matches.play import season_matches, services
from matches.seasons import ledger as seasons
from matches.seasons import results as season_results

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cy", "Di"]
DIRS = ["up", "down", "left", "right"]


def key() -> str:
    return f"k{random.getrandbits(64):016x}"


@pytest.fixture
def season() -> Any:
    season = seasons.create_season("Spring")
    for name in NAMES:
        seasons.add_player(season, name)
    return season


def player(season: Any, name: str) -> SeasonPlayer:
    result: SeasonPlayer = season.players.get(name=name)
    return result


def balances(season: Any) -> dict[str, int]:
    return {row["name"]: row["garnets"] for row in seasons.standings(season)}


def orders(seat: int, rnd: int, rng: random.Random, garnet: tuple[str, ...] = ()) -> str:
    parts = []
    for board in ("once", "twice", "thrice"):
        parts += [f"{board} piece {p} " + " ".join(rng.choice(DIRS) for _ in range(3)) for p in range(1, rnd + 1)]
        if board in garnet:
            parts.append(f"{board} garnet")
    return "; ".join(parts)


def plan(seed: int = 0, spends: dict[tuple[int, int], tuple[str, ...]] | None = None) -> list[list[str]]:
    """Orders per round, per seat (seeded), with garnet spends {(round, seat): boards}."""
    rng = random.Random(seed)
    spends = spends or {}
    return [[orders(seat, rnd, rng, spends.get((rnd, seat), ())) for seat in (1, 2, 3, 4)] for rnd in (1, 2, 3)]


def expected(rounds: list[list[str]]) -> dict[str, Any]:
    """The final standings of these orders, from the pure rules alone."""
    game = get_game("back-to-the-wall")
    state = game.new()
    for row in rounds:
        for seat, text in enumerate(row, start=1):
            state = game.play(state, seat, text)
    final = game.view(state, SPECTATOR)["public"]["final"]
    return {
        "earned": {NAMES[int(s) - 1]: n for s, n in final["garnets_earned"].items()},
        "spent": {NAMES[int(s) - 1]: len(b) for s, b in final["garnet_spends"].items()},
        "token": [NAMES[s - 1] for s in final["token_of_life"]],
        "candidate": [NAMES[s - 1] for s in final["elimination_candidate"]],
    }


def main_match(season: Any) -> Match:
    match = season_matches.create_season_match(season, "back-to-the-wall", [player(season, n).pk for n in NAMES])
    services.start_match(match)
    return match


def play_rounds(match: Match, rounds: list[list[str]]) -> None:
    for row in rounds:
        for seat, text in enumerate(row, start=1):
            bout = match.bouts.order_by("-number").first()
            assert bout is not None
            services.submit(match, seat, text, bout.version)


# -- creating a season, the roster ----------------------------------------------------------------


def test_a_season_has_a_slug_and_a_secret_manage_token(db: None) -> None:
    season = seasons.create_season("  Winter   League ")
    other = seasons.create_season("Winter league!")  # different name, same slug base
    assert season.name == "Winter League" and season.slug == "winter-league" and other.slug == "winter-league-2"
    assert len(season.manage_token) >= 32 and season.manage_token != other.manage_token
    with pytest.raises(services.ServiceError, match="already a season called"):
        seasons.create_season("winter league")
    with pytest.raises(services.ServiceError, match="name"):
        seasons.create_season("   ")


def test_creating_a_season_twice_with_one_key_makes_one_season(db: None) -> None:
    k = key()
    first = seasons.create_season("Autumn", key=k)
    assert seasons.create_season("Autumn", key=k) == first


def test_roster_add_rename_remove(season: Any) -> None:
    with pytest.raises(services.ServiceError, match="Ann is already on the roster"):
        seasons.add_player(season, "ann")
    seasons.rename_player(season, player(season, "Di"), "Dee")
    seasons.remove_player(season, player(season, "Bob"))
    assert [r["name"] for r in seasons.standings(season)] == ["Ann", "Cy", "Dee"]
    with pytest.raises(services.ServiceError, match="roster"):
        seasons.adjust_garnets(season, season.players.get(name="Bob"), 1, "late")
    seasons.add_player(season, "Bob")  # comes back with the same row (and ledger)
    assert season.players.filter(name="Bob").count() == 1
    texts = list(season.events.values_list("text", flat=True))
    assert "Di is now called Dee" in texts and "Bob leaves the roster" in texts


def test_a_player_in_a_running_match_cannot_be_removed(season: Any) -> None:
    main_match(season)
    with pytest.raises(services.ServiceError, match="has a seat in match"):
        seasons.remove_player(season, player(season, "Ann"))


def test_a_doubled_manage_submit_is_applied_once(season: Any) -> None:
    k = key()
    seasons.adjust_garnets(season, player(season, "Ann"), 2, "won a side bet", key=k)
    with pytest.raises(seasons.AlreadyDone, match="already done: Ann \\+2"):
        seasons.adjust_garnets(season, player(season, "Ann"), 2, "won a side bet", key=k)
    with pytest.raises(seasons.AlreadyDone):  # the key, not the action, decides
        seasons.grant_token(season, player(season, "Bob"), key=k)
    assert balances(season)["Ann"] == 2 and TokenOfLife.objects.count() == 0
    with pytest.raises(services.ServiceError, match="reload"):
        seasons.add_player(season, "Eve", key="bad key!")


# -- garnets, tokens, statuses ---------------------------------------------------------------------


def test_garnets_need_a_reason_and_never_go_below_zero_unless_allowed(season: Any) -> None:
    ann = player(season, "Ann")
    with pytest.raises(services.ServiceError, match="say why"):
        seasons.adjust_garnets(season, ann, 1, " ")
    seasons.adjust_garnets(season, ann, 1, "good sport")
    with pytest.raises(services.ServiceError, match='Ann has 1 garnet: deducting 2 would leave -1; tick "allow negative"'):
        seasons.adjust_garnets(season, ann, -2, "fine")
    seasons.adjust_garnets(season, ann, -2, "fine", allow_negative=True)
    assert balances(season)["Ann"] == -1
    with pytest.raises(services.ServiceError, match="at most 1000"):
        seasons.adjust_garnets(season, ann, 1001, "too many")
    entry = GarnetEntry.objects.order_by("-id").first()
    assert entry is not None and entry.event is not None
    assert (entry.kind, entry.reason, entry.event.text) == ("host", "fine", "Ann -2 garnets, now -1")


def test_an_award_to_a_player_below_zero_needs_no_tick(season: Any) -> None:
    ann = player(season, "Ann")
    seasons.adjust_garnets(season, ann, -3, "fine", allow_negative=True)
    seasons.adjust_garnets(season, ann, 1, "good sport")  # still below zero, but it brings her up
    assert balances(season)["Ann"] == -2
    with pytest.raises(services.ServiceError, match="Ann has -2 garnets: deducting 1 would leave -3"):
        seasons.adjust_garnets(season, ann, -1, "fine")


def test_a_token_clears_a_candidacy_and_saves_from_elimination(season: Any) -> None:
    ann = player(season, "Ann")
    with pytest.raises(services.ServiceError, match="nothing to clear"):
        seasons.use_token(season, ann)
    seasons.set_status(season, ann, "candidate", "lowest in the main match")
    with pytest.raises(services.ServiceError, match="Ann holds no Token of Life"):
        seasons.use_token(season, ann)
    seasons.grant_token(season, ann, "birthday")
    seasons.use_token(season, ann)
    ann.refresh_from_db()
    assert ann.status == "active" and ann.tokens_held() == 0
    seasons.set_status(season, ann, "eliminated")
    with pytest.raises(services.ServiceError, match="already eliminated"):
        seasons.set_status(season, ann, "eliminated")
    seasons.grant_token(season, ann)
    event = seasons.use_token(season, ann, "saved")
    assert event.text == "Ann is saved from elimination by a Token of Life"
    seasons.set_status(season, ann, "eliminated")
    seasons.set_status(season, ann, "active", "appeal upheld")
    assert player(season, "Ann").status == "active"


# -- matches in the season ------------------------------------------------------------------------------


def test_a_season_match_seats_roster_players_by_name(season: Any) -> None:
    pick = [player(season, n) for n in ("Cy", "Ann")]
    match = season_matches.create_season_match(season, "grid-master", [p.pk for p in pick], elimination=True)
    seats = list(match.seats.order_by("number"))
    assert [(s.name, s.season_player) for s in seats] == [("Cy", pick[0]), ("Ann", pick[1])]
    assert match.elimination and match.season == season
    created = season.events.get(kind="match", match=match)
    assert created.text.startswith(f"new elimination match: Grid Master #{match.pk} (Cy, Ann). Watch: /w/")


@pytest.mark.parametrize(("slug", "names", "elimination", "message"), [
    ("grid-master", ["Ann"], False, "Grid Master needs 2 players, you picked 1"),
    ("grid-master", ["Ann", "Ann"], False, "pick each player once"),
    ("back-to-the-wall", NAMES, True, "only a 2-player match can be the elimination match"),
    ("no-such-game", ["Ann", "Bob"], False, "choose a game"),
])
def test_a_season_match_is_refused_with_a_sentence(season: Any, slug: str, names: list[str], elimination: bool,
                                                   message: str) -> None:
    with pytest.raises(services.ServiceError, match=message):
        season_matches.create_season_match(season, slug, [player(season, n).pk for n in names], elimination=elimination)
    assert not Match.objects.exists()


def test_an_eliminated_player_is_not_seated(season: Any) -> None:
    seasons.set_status(season, player(season, "Bob"), "eliminated")
    with pytest.raises(services.ServiceError, match="Bob is eliminated; reinstate them first"):
        season_matches.create_season_match(season, "grid-master", [player(season, n).pk for n in ("Ann", "Bob")])


# -- Back to the Wall feeds the ledger -------------------------------------------------------------------


def test_back_to_the_wall_credits_debits_and_names_token_and_candidate(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Bob"), 2, "starting garnets")
    rounds = plan(0, {(1, 2): ("once",), (3, 2): ("thrice",)})
    want = expected(rounds)
    match = main_match(season)
    play_rounds(match, rounds)
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    got = balances(season)
    for name in NAMES:
        start = 2 if name == "Bob" else 0
        assert got[name] == start + want["earned"].get(name, 0) - want["spent"].get(name, 0), name
    assert want["spent"] == {"Ann": 0, "Bob": 2, "Cy": 0, "Di": 0}
    earned = season.garnet_entries.filter(kind="earned")
    assert sum(e.amount for e in earned) == sum(want["earned"].values()) > 0
    assert all(e.match == match and "sole first on" in e.reason for e in earned)
    spent = season.garnet_entries.get(kind="spent")
    assert (spent.player.name, spent.amount, spent.reason) == ("Bob", -2, f"spent on Once and Thrice (match #{match.pk})")
    tokens = [t.player.name for t in season.tokens_of_life.filter(revoked__isnull=True)]
    assert tokens == want["token"]
    rows = {r["name"]: r for r in seasons.standings(season)}
    assert [n for n, r in rows.items() if r["status"] == "candidate"] == want["candidate"]
    assert all(r["played"] == 1 for r in rows.values())
    assert [n for n, r in rows.items() if r["won"]] == want["token"]
    # fed exactly once: the hooks are idempotent for an already fed bout and match
    bout = match.bouts.get()
    assert bout.finished is not None
    season_results.bout_finished(match, bout, bout.finished)
    season_results.match_finished(match, bout, bout.finished)
    assert balances(season) == got and season.tokens_of_life.count() == len(want["token"])


def test_a_spend_without_a_garnet_is_refused_and_changes_nothing(season: Any) -> None:
    match = main_match(season)
    bout = match.bouts.get()
    assert bout.options["garnets"] == {"1": 0, "2": 0, "3": 0, "4": 0}  # the ledger when the bout started
    text = orders(1, 1, random.Random(1), ("once",))
    with pytest.raises(RuleError, match=r"^you have no garnet to spend \(this order spends one on Once\)$"):
        services.submit(match, 1, text, bout.version)
    assert match.bouts.get().version == bout.version and not match.turns.filter(kind="move").exists()


def test_spends_are_checked_against_the_ledger_when_the_orders_arrive(season: Any) -> None:
    """The rules count the garnets held when the bout started (a replay stays
    exact); the ledger may have lost some since: the live balance decides too."""
    ann = player(season, "Ann")
    seasons.adjust_garnets(season, ann, 2, "prize")
    match = main_match(season)
    bout = match.bouts.get()
    seasons.adjust_garnets(season, ann, -1, "fine")
    two = orders(1, 1, random.Random(1), ("twice", "thrice"))
    with pytest.raises(services.NotAllowed, match=r"^you have only 1 garnet to spend, and these orders spend 2$"):
        services.submit(match, 1, two, bout.version)
    seasons.adjust_garnets(season, ann, -1, "another fine")
    one = orders(1, 1, random.Random(1), ("once",))
    with pytest.raises(services.NotAllowed, match=r"^you have no garnet to spend$"):
        services.submit(match, 1, one, bout.version)
    with pytest.raises(services.NotAllowed, match=r"^Ann has no garnet to spend$"):
        services.host_apply(match, f"seat 1: {one}", bout.version)
    assert match.bouts.get().version == bout.version and not match.turns.filter(kind="move").exists()
    seasons.adjust_garnets(season, ann, 1, "refund")
    services.submit(match, 1, one, bout.version)  # one garnet, one spend: accepted
    assert garnets(match, 1) == 1  # a resubmission replaces the pending one


def test_garnets_spent_in_earlier_rounds_count_against_the_balance(season: Any) -> None:
    ann = player(season, "Ann")
    seasons.adjust_garnets(season, ann, 2, "prize")
    match = main_match(season)
    rounds = plan(3, {(1, 1): ("once",)})
    play_rounds(match, rounds[:1])
    seasons.adjust_garnets(season, ann, -1, "fine")
    bout = match.bouts.get()
    again = orders(1, 2, random.Random(9), ("twice",))
    with pytest.raises(services.NotAllowed,
                       match=r"^you have no garnet to spend \(1 garnet in the ledger, 1 already spent and not yet paid\)$"):
        services.submit(match, 1, again, bout.version)
    assert garnets(match, 1) == 0 and garnets(match, 2) == 0
    # the ledger is debited only when the bout ends (spends stay hidden until then)
    assert balances(season)["Ann"] == 1


def garnets(match: Match, seat: int) -> int | None:
    return season_results.garnets_available(match, seat)


def test_undoing_the_last_submission_takes_the_result_back_and_replaying_feeds_it_once(season: Any) -> None:
    rounds = plan(0, {(1, 2): ("once",)})
    seasons.adjust_garnets(season, player(season, "Bob"), 1, "start")
    match = main_match(season)
    play_rounds(match, rounds)
    fed = balances(season)
    bout = match.bouts.get()
    services.undo(match, bout.version)  # seat 4's round-3 orders: the round (and the match) is open again
    match.refresh_from_db()
    assert match.status == Match.RUNNING
    assert balances(season) == {"Ann": 0, "Bob": 1, "Cy": 0, "Di": 0}
    assert not season.tokens_of_life.filter(revoked__isnull=True).exists()
    assert all(r["status"] == "active" for r in seasons.standings(season))
    reversal = season.garnet_entries.filter(kind="reversal")
    assert reversal.count() == season.garnet_entries.filter(kind__in=["earned", "spent"]).count()
    assert season.events.filter(kind="reversal").count() == 2  # the bout's and the match's results
    bout.refresh_from_db()
    services.submit(match, 4, rounds[2][3], bout.version)
    assert balances(season) == fed
    assert season.tokens_of_life.filter(revoked__isnull=True).count() == len(expected(rounds)["token"])
    keys = sorted(season.events.filter(kind__in=["bout_result", "match_result"]).values_list("key", flat=True))
    assert keys == [f"bout:{bout.pk}:0", f"bout:{bout.pk}:1", f"match:{match.pk}:0", f"match:{match.pk}:1"]


def test_correcting_a_submission_feeds_the_corrected_result_instead(season: Any) -> None:
    rounds = plan(1)
    match = main_match(season)
    play_rounds(match, rounds)
    bout = match.bouts.get()
    last = bout.active_moves().filter(actor=3).order_by("-sequence").first()
    fixed = [list(r) for r in rounds]
    fixed[2][2] = orders(3, 3, random.Random(77))
    assert last is not None
    services.correct(match, last.sequence, fixed[2][2], bout.version)
    want = expected(fixed)
    got = balances(season)
    assert got == {n: want["earned"].get(n, 0) for n in NAMES}
    assert [t.player.name for t in season.tokens_of_life.filter(revoked__isnull=True)] == want["token"]
    assert [r["name"] for r in seasons.standings(season) if r["status"] == "candidate"] == want["candidate"]


def test_a_result_the_season_built_on_is_not_taken_back(season: Any) -> None:
    match = main_match(season)
    play_rounds(match, plan(0))
    candidate = season.players.get(status="candidate")
    winner = season.tokens_of_life.get().player
    seasons.grant_token(season, candidate)
    seasons.use_token(season, candidate)
    bout = match.bouts.get()
    with pytest.raises(services.NotAllowed, match=f"{candidate.name} used a Token of Life against the result"):
        services.undo(match, bout.version)
    assert match.bouts.get().version == bout.version
    assert season.tokens_of_life.filter(player=winner, revoked__isnull=True).exists()


# -- the elimination match -------------------------------------------------------------------------------


def elimination(season: Any, first: str = "Ann", second: str = "Di") -> Match:
    match = season_matches.create_season_match(season, "squava", [player(season, first).pk, player(season, second).pk],
                                        elimination=True)
    services.start_match(match)
    return match


def test_the_loser_of_the_elimination_match_is_eliminated(season: Any) -> None:
    seasons.set_status(season, player(season, "Di"), "candidate")
    match = elimination(season)
    for seat, move in [(1, "A1"), (2, "A5"), (1, "B1"), (2, "B5"), (1, "D1"), (2, "E3"), (1, "C1")]:
        services.submit(match, seat, move, match.bouts.get().version)
    match.refresh_from_db()
    assert match.winners == [1]
    di = player(season, "Di")
    assert di.status == "eliminated" and player(season, "Ann").status == "active"
    assert season.events.filter(text__startswith="Di lost the elimination match and is eliminated").exists()
    # a Token of Life saves them; the match result then stands
    seasons.grant_token(season, di, "kept from the main match")
    seasons.use_token(season, di)
    assert player(season, "Di").status == "active"


def test_an_award_in_the_elimination_match_is_reopened_and_the_elimination_undone(season: Any) -> None:
    seasons.set_status(season, player(season, "Di"), "candidate")
    match = elimination(season)
    services.forfeit(match, 2)
    assert player(season, "Di").status == "eliminated"
    services.reopen_bout(match, match.bouts.get().version)
    di = player(season, "Di")
    assert di.status_event is not None
    assert di.status == "candidate" and di.status_event.text == "Di is an elimination candidate"
    services.award_bout(match, 2)
    # Di won the elimination match: no longer a candidate (issue 25)
    assert player(season, "Ann").status == "eliminated" and player(season, "Di").status == "active"


def test_an_elimination_match_without_a_winner_eliminates_nobody(season: Any) -> None:
    match = elimination(season)
    services.declare_result(match, "draw", match.bouts.get().version)
    assert all(r["status"] == "active" for r in seasons.standings(season))
    assert season.events.filter(text__contains="ended without a winner").exists()


def test_the_match_host_garnet_form_writes_the_season_ledger_and_log(season: Any) -> None:
    match = main_match(season)
    services.adjust_garnets(match, 2, 3, "tidy orders")
    entry = season.garnet_entries.get()
    assert (entry.player.name, entry.amount, entry.kind) == ("Bob", 3, "match")
    assert SeasonEvent.objects.filter(season=season, kind="garnets", match=match).exists()


def test_bidding_starts_with_the_ledger_balances(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Bob"), 4, "board wins")
    match = season_matches.create_season_match(season, "bidding-ttt", [player(season, n).pk for n in ("Ann", "Bob")])
    bout = services.start_match(match)
    assert bout.options["garnets"] == {"1": 0, "2": 4}


@pytest.mark.parametrize("action", ["match", "player", "token_use", "status", "webhook"])
def test_every_manage_action_applies_a_doubled_submit_once(season: Any, action: str) -> None:
    ann = player(season, "Ann")
    seasons.grant_token(season, ann)
    seasons.set_status(season, ann, "candidate")
    calls: dict[str, Callable[[str], Any]] = {
        "match": lambda k: season_matches.create_season_match(season, "squava", [ann.pk, player(season, "Bob").pk], key=k),
        "player": lambda k: seasons.add_player(season, "Eve", key=k),
        "token_use": lambda k: seasons.use_token(season, ann, key=k),
        "status": lambda k: seasons.set_status(season, player(season, "Cy"), "eliminated", key=k),
        "webhook": lambda k: seasons.set_webhook(season, "https://discord.com/api/webhooks/1/x", key=k),
    }
    k = key()
    calls[action](k)
    before = (Match.objects.count(), season.players.count(), season.events.count(),
              TokenOfLife.objects.filter(used__isnull=False).count())
    with pytest.raises(seasons.AlreadyDone):
        calls[action](k)
    after = (Match.objects.count(), season.players.count(), season.events.count(),
             TokenOfLife.objects.filter(used__isnull=False).count())
    assert after == before
