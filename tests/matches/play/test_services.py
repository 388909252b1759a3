"""Services through the real games: moves, versions, match format, host actions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.core import HOST, IllegalAction, NotationError, RuleError
from matches.models import Bout, Match, TurnLog
from matches.play import services
from matches.seasons import ledger as seasons
from matches.seasons import results as season_results

# Lance Assembly: the winner fills column A (a lance at its fifth tile), the
# loser scatters tiles that never make five in a row.
WIN = ["A1", "A2", "A3", "A4", "A5"]
LOSE = ["F1", "F3", "F5", "D6", "C4"]


def current(match: Match) -> Bout:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    return bout


def lance_bout(play: Any, match: Match, winner: int, starter: int) -> Bout:
    loser = 3 - winner
    order = [(winner, WIN), (loser, LOSE)] if starter == winner else [(loser, LOSE), (winner, WIN)]
    for i in range(5):
        for seat, squares in order:
            play(match, seat, f"place {squares[i]}")
            if current(match).finished:
                return current(match)
    raise AssertionError("no lance")


def random_moves(play: Any, match: Match, n: int, seed: int = 7) -> None:
    game = match.game
    rng = random.Random(seed)
    for _ in range(n):
        bout = current(match)
        if bout.finished:
            break
        state = services.bout_state(bout)
        seat = min(game.to_act(state))
        play(match, seat, game.format(game.random_action(state, seat, rng)))


def snapshot(match: Match) -> tuple[int, Any, list[tuple[int, str, bool, bool]]]:
    bout = current(match)
    return bout.version, bout.state, list(TurnLog.objects.filter(match=match).values_list("id", "text", "undone", "corrected"))


# -- moves and versions --------------------------------------------------------------


def test_submit_applies_logs_canonical_text_and_bumps_version(roles: Any) -> None:
    match = roles.match
    bout = current(match)
    entry = services.submit(match, 1, "I place a tile on c3", bout.version)
    bout.refresh_from_db()
    assert entry.text == "place C3" and entry.actor == 1 and entry.kind == TurnLog.MOVE
    assert entry.version == bout.version == 2
    assert bout.state == match.game.dump(services.replay_bout(bout))


def test_stale_version_is_refused_with_both_versions_and_nothing_changes(roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    before = snapshot(match)
    with pytest.raises(services.StaleVersion, match=r"version 2, you sent 1"):
        services.submit(match, 2, "place D4", 1)
    assert snapshot(match) == before


def test_double_submit_with_the_same_version_is_applied_once(roles: Any) -> None:
    match = roles.match
    version = current(match).version
    services.submit(match, 1, "place C3", version)
    with pytest.raises(services.StaleVersion):
        services.submit(match, 1, "place C3", version)
    assert current(match).active_moves().count() == 1


def test_rule_errors_reach_the_player_and_change_nothing(roles: Any, play: Any) -> None:
    match = roles.match
    before = snapshot(match)
    with pytest.raises(NotationError):
        play(match, 1, "jump around")
    with pytest.raises(IllegalAction, match="not your turn"):
        play(match, 2, "place C3")
    assert snapshot(match) == before


def test_moves_are_refused_before_the_start_and_after_the_end(make_match: Any, play: Any) -> None:
    match = make_match("grid-master", start=False)
    with pytest.raises(services.NotAllowed, match="not started"):
        services.submit(match, 1, "place A1", 1)
    services.start_match(match)
    services.end_match(match, [1])
    with pytest.raises(services.NotAllowed, match="over"):
        play(match, 1, "place A1")


def test_each_change_is_announced_once_after_commit(roles: Any, django_capture_on_commit_callbacks: Any) -> None:
    from matches.core import events

    sent: list[tuple[int, list[str] | None]] = []

    def record(match_id: int, moved: events.Moved | None) -> None:
        sent.append((match_id, [row.text for row in moved.rows] if moved is not None else None))

    events.subscribe(record)
    try:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            services.submit(roles.match, 1, "place C3", current(roles.match).version)
            assert sent == []  # nothing before the commit
        assert callbacks and sent == [(roles.match.pk, ["place C3"])]
        with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.StaleVersion):
            services.submit(roles.match, 2, "place D4", 1)
        assert sent == [(roles.match.pk, ["place C3"])]
    finally:
        events.unsubscribe(record)


# -- match format ----------------------------------------------------------------------


def test_best_of_three_alternates_the_starter_and_ends_at_two_wins(roles: Any, play: Any) -> None:
    match = roles.match
    assert match.format["bouts"] == 3 and match.bouts_needed == 2
    first = lance_bout(play, match, winner=1, starter=1)
    assert first.winners == [1] and first.reason == "lance"
    match.refresh_from_db()
    assert match.status == Match.RUNNING and match.needs_next_bout
    with pytest.raises(services.NotAllowed, match="bout is over"):
        play(match, 2, "place B2")
    second = services.start_next_bout(match)
    assert (second.number, second.starting_seat) == (2, 2)
    assert services.bout_state(second).starting_seat == 2
    lance_bout(play, match, winner=1, starter=2)
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [1] and match.result_reason == "bouts"
    assert match.score() == {1: 2, 2: 0}
    with pytest.raises(services.NotAllowed):
        services.start_next_bout(match)


def test_a_stalemate_is_replayed_with_the_same_starter_and_does_not_count(make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly", starting_seat=2)
    for seat, text in [(2, "place A1"), (1, "place F6")] + [
        (2, "slide A1 down 1"), (1, "slide F6 up 1"), (2, "slide A2 up 1"), (1, "slide F5 down 1")
    ] * 2:
        play(match, seat, text)
    bout = current(match)
    assert bout.reason == "stalemate" and not bout.counts and bout.winners == []
    replay = services.start_next_bout(match)
    assert replay.starting_seat == 2
    lance_bout(play, match, winner=2, starter=2)
    third = services.start_next_bout(match)
    assert third.number == 3 and third.starting_seat == 1  # alternates after a counted bout
    match.refresh_from_db()
    assert match.score() == {1: 0, 2: 1} and match.status == Match.RUNNING


def test_host_declared_stalemate_replays_but_a_draw_counts(roles: Any) -> None:
    match = roles.match
    services.declare_result(match, "stalemate", current(match).version)
    assert not current(match).counts
    assert services.start_next_bout(match).starting_seat == 1
    services.declare_result(match, "draw", current(match).version)
    assert current(match).counts and current(match).reason == "draw"
    assert services.start_next_bout(match).starting_seat == 2
    with pytest.raises(services.ServiceError):
        services.declare_result(match, "victory", current(match).version)


def test_single_game_ends_the_match_with_the_bout(grid_roles: Any, play: Any) -> None:
    match = grid_roles.match
    assert match.format["bouts"] == 1 and match.format["clock"] is None
    services.award_bout(match, 2)
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [2] and match.result_reason == "award"


def test_create_match_refuses_what_makes_no_sense(db: Any) -> None:
    with pytest.raises(services.ServiceError, match="no game"):
        services.create_match("chess")
    with pytest.raises(services.ServiceError, match="2 seats"):
        services.create_match("grid-master", seat_names=["a", "b", "c"])
    with pytest.raises(RuleError):
        services.create_match("lance-assembly", options={"variant": "checkers"})
    with pytest.raises(services.ServiceError, match="clock"):
        services.create_match("lance-assembly", clock={"per_move": "soon"})
    with pytest.raises(services.ServiceError, match="at least one bout"):
        services.create_match("lance-assembly", bouts=0)


def test_create_match_options_and_tokens(db: Any) -> None:
    match = services.create_match("lance-assembly", seat_names=["Ann"], options={"variant": "sliding-tic-tac-toe"}, bouts=5)
    assert match.format["bouts"] == 5 and match.bouts_needed == 3
    assert match.format["clock"]["per_move"] == 120 and match.format["clock"]["refill"] is False
    assert [s.name for s in match.seats.all()] == ["Ann", "Seat 2"]
    tokens = {match.host_token, match.watch_token, *match.seats.values_list("token", flat=True)}
    assert len(tokens) == 4 and all(len(t) >= 32 for t in tokens)
    assert services.create_match("lance-assembly", clock=False).format["clock"] is None


# -- host: undo and correct --------------------------------------------------------------


def test_undo_gives_exactly_the_state_of_a_fresh_replay(roles: Any, play: Any) -> None:
    match = roles.match
    random_moves(play, match, 12)
    bout = current(match)
    kept = list(bout.active_moves())[:-3]
    services.undo(match, bout.version, 3)
    bout.refresh_from_db()
    game = match.game
    fresh = game.new({"starting_seat": 1})
    for entry in kept:
        fresh = game.play(fresh, entry.actor, entry.text)
    assert bout.state == game.dump(fresh) == game.dump(services.replay_bout(bout))
    assert TurnLog.objects.filter(bout=bout, undone=True).count() == 3  # marked, never deleted
    note = TurnLog.objects.filter(match=match, kind=TurnLog.HOST_NOTE).last()
    assert note is not None
    assert note.who == "host" and note.text.startswith("undo 3")
    assert sorted(game.to_act(services.bout_state(bout))) == [min(game.to_act(fresh))]


def test_undo_refuses_more_turns_than_there_are_and_stale_versions(roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    with pytest.raises(services.NotAllowed, match="only 1"):
        services.undo(match, current(match).version, 2)
    with pytest.raises(services.StaleVersion):
        services.undo(match, 1)


def test_undo_of_the_winning_move_reopens_the_bout_and_the_match(make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly", bouts=1)
    bout = lance_bout(play, match, winner=1, starter=1)
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    services.undo(match, bout.version)
    match.refresh_from_db()
    bout.refresh_from_db()
    assert match.status == Match.RUNNING and match.winners == [] and bout.finished is None and bout.result is None
    play(match, 1, "place A5")
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [1]


def test_correct_replaces_the_turn_and_equals_a_fresh_replay(roles: Any, play: Any) -> None:
    match = roles.match
    for seat, text in [(1, "place C3"), (2, "place D4"), (1, "place E5")]:
        play(match, seat, text)
    target = current(match).active_moves()[1]
    new = services.correct(match, target.sequence, "place B2", current(match).version)
    bout = current(match)
    assert new.sequence == target.sequence and new.text == "place B2" and new.corrected_from == "place D4"
    target.refresh_from_db()
    assert target.corrected and not target.active
    assert [t.text for t in bout.active_moves()] == ["place C3", "place B2", "place E5"]
    game = match.game
    fresh = game.new({"starting_seat": 1})
    for seat, text in [(1, "place C3"), (2, "place B2"), (1, "place E5")]:
        fresh = game.play(fresh, seat, text)
    assert bout.state == game.dump(fresh) == game.dump(services.replay_bout(bout))


def test_an_illegal_correction_changes_nothing(roles: Any, play: Any) -> None:
    match = roles.match
    for seat, text in [(1, "place C3"), (2, "place D4"), (1, "place E5")]:
        play(match, seat, text)
    moves = list(current(match).active_moves())
    before = snapshot(match)
    with pytest.raises(IllegalAction, match="correction of turn"):
        services.correct(match, moves[1].sequence, "place C3", current(match).version)
    with pytest.raises(IllegalAction, match="no longer legal"):
        services.correct(match, moves[1].sequence, "place E5", current(match).version)
    with pytest.raises(services.NotAllowed):
        services.correct(match, 999, "place A1", current(match).version)
    assert snapshot(match) == before


# -- host: other actions ------------------------------------------------------------------------


def test_host_enters_orders_for_a_seat_and_the_log_says_so(grid_roles: Any) -> None:
    match = grid_roles.match
    entry = services.host_apply(match, "seat 1: place A1", current(match).version)
    assert entry.actor == 1 and entry.by_host and entry.who == "host for seat 1"
    with pytest.raises(services.NotAllowed, match="no seat 5"):
        services.host_apply(match, "seat 5: place B2", current(match).version)
    with pytest.raises(RuleError):  # the host itself has no grid master move
        services.host_apply(match, "place B2", current(match).version)


def test_forfeit_loses_the_bout_or_the_match_per_format(roles: Any, make_match: Any) -> None:
    match = roles.match
    services.forfeit(match, 2)  # lance assembly: a forfeit loses the bout
    match.refresh_from_db()
    assert current(match).winners == [1] and current(match).reason == "forfeit" and match.status == Match.RUNNING
    services.start_next_bout(match)
    services.forfeit(match, 1, scope="match")
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [2] and match.result_reason == "forfeit"
    four = make_match("back-to-the-wall")
    services.forfeit(four, 3)
    four.refresh_from_db()
    assert four.winners == [1, 2, 4]


def test_award_and_end_match_by_bouts_won(roles: Any) -> None:
    match = roles.match
    services.award_bout(match, 2)
    services.start_next_bout(match)
    services.end_match(match)
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [2] and match.result_reason == "ended by the host"
    assert current(match).reason == "ended" and not current(match).counts
    with pytest.raises(services.NotAllowed):
        services.end_match(match)


def test_end_match_with_chosen_winners(grid_roles: Any) -> None:
    services.end_match(grid_roles.match, winners=[1, 2])
    grid_roles.match.refresh_from_db()
    assert grid_roles.match.winners == [1, 2]


def test_every_host_action_is_logged_as_host(roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    services.pause_clocks(match)
    with pytest.raises(services.NotAllowed, match="paused"):
        play(match, 2, "place D4")
    services.resume_clocks(match)
    services.adjust_clock(match, 2, 30)
    services.adjust_garnets(match, 1, 2, "style")
    services.undo(match, current(match).version)
    play(match, 1, "place C3")
    services.correct(match, current(match).active_moves()[0].sequence, "place C4", current(match).version)
    services.award_bout(match, 1)
    services.start_next_bout(match)
    services.forfeit(match, 1)
    services.start_next_bout(match)
    services.declare_result(match, "stalemate", current(match).version)
    services.start_next_bout(match)
    services.end_match(match)
    match.refresh_from_db()
    assert match.winners == [1, 2]  # one bout each: both lead
    notes = list(TurnLog.objects.filter(match=match, kind=TurnLog.HOST_NOTE).order_by("sequence"))
    assert all(n.actor == HOST and n.who == "host" for n in notes)
    texts = " | ".join(n.text for n in notes)
    for phrase in ["started the match", "paused", "restarted", "added 30 s", "garnet", "undo 1", "corrected turn",
                   "awarded bout 1", "started bout 2", "forfeits the bout", "a stalemate", "ended the match"]:
        assert phrase in texts, phrase
    sequences = [t.sequence for t in TurnLog.objects.filter(match=match, undone=False, corrected=False)]
    assert len(sequences) == len(set(sequences))


def test_garnets_of_a_match_in_no_season_stay_on_the_match(roles: Any) -> None:
    match = roles.match
    services.adjust_garnets(match, 1, 3, "won a board")
    services.adjust_garnets(match, 1, -1, "late")
    services.adjust_garnets(match, 2, 2)
    match.refresh_from_db()
    assert match.season is None  # never a season of its own (issue 21: anyone could name one first)
    assert season_results.match_garnet_totals(match) == {1: 2, 2: 2}
    with pytest.raises(services.ServiceError):
        services.adjust_garnets(match, 1, 0)


def test_garnets_go_to_the_named_season_roster(make_match: Any) -> None:
    match = make_match("grid-master", season=seasons.create_season("Autumn"))
    services.adjust_garnets(match, 2, 1, "nice")
    assert match.season.name == "Autumn" and match.season.garnets() == {"Bob": 1}
    assert sorted(match.season.players.values_list("name", flat=True)) == ["Ann", "Bob"]


def test_back_to_the_wall_winner_earns_a_token_of_life(make_match: Any) -> None:
    match = make_match("back-to-the-wall", season=seasons.create_season("Main"))
    services.end_match(match, [3])
    assert [t.player.name for t in match.season.tokens_of_life.all()] == ["Cy"]


# -- sealed rounds --------------------------------------------------------------------------------


def test_sealed_seats_submit_on_the_same_version_and_the_round_resolves(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    version = current(match).version
    services.submit(match, 1, "A1 3", version)
    services.submit(match, 2, "A1 2", version)  # loaded before seat 1 submitted: still this round
    bout = current(match)
    assert bout.round_version == bout.version  # the round resolved
    state = services.bout_state(bout)
    assert match.game.public_view(state)["round"] == 2
    assert bout.state == match.game.dump(services.replay_bout(bout))


def test_sealed_double_submit_and_old_round_versions_are_refused(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    version = current(match).version
    services.submit(match, 1, "A1 3", version)
    with pytest.raises(services.StaleVersion, match="already submitted"):
        services.submit(match, 1, "A1 3", version)
    services.submit(match, 1, "A1 4", current(match).version)  # a resubmission after reload replaces it
    services.host_apply(match, "resolve", current(match).version)
    with pytest.raises(services.StaleVersion, match="round changed"):
        services.submit(match, 2, "B1 1", version)
    assert Bout.objects.get(pk=current(match).pk).state == match.game.dump(services.replay_bout(current(match)))


def test_four_seat_sealed_round_through_the_services(make_match: Any) -> None:
    match = make_match("back-to-the-wall")
    game = match.game
    rng = random.Random(3)
    version = current(match).version
    for seat in (1, 2, 3, 4):
        state = services.bout_state(current(match))
        services.submit(match, seat, game.format(game.random_action(state, seat, rng)), version)
    bout = current(match)
    assert bout.round_version == bout.version and game.pending(services.bout_state(bout)) == {1, 2, 3, 4}
    assert bout.state == game.dump(services.replay_bout(bout))
    services.undo(match, bout.version, 2)
    bout.refresh_from_db()
    assert game.pending(services.bout_state(bout)) == {3, 4}
    assert bout.state == game.dump(services.replay_bout(bout))


def test_the_host_chooses_who_starts_bout_one_and_starts_once(make_match: Any) -> None:
    match = make_match("lance-assembly", start=False)
    with pytest.raises(services.NotAllowed, match="no seat 3"):
        services.start_match(match, starting_seat=3)
    bout = services.start_match(match, starting_seat=2)
    assert bout.starting_seat == 2 and services.bout_state(bout).starting_seat == 2
    assert match.game.to_act(services.bout_state(bout)) == {2}
    with pytest.raises(services.NotAllowed, match="already started"):
        services.start_match(match)
    with pytest.raises(services.NotAllowed, match="still being played"):
        services.start_next_bout(match)


def test_bidding_takes_the_garnets_of_the_season_ledger_at_bout_start(make_match: Any) -> None:
    match = make_match("bidding-ttt", season=seasons.create_season("Spring"), start=False)
    services.adjust_garnets(match, 2, 4, "board win")
    bout = services.start_match(match)
    assert bout.options["garnets"] == {"1": 0, "2": 4}
    assert match.game.public_view(services.bout_state(bout))["garnets"] == {"1": 0, "2": 4}


@pytest.mark.parametrize("slug", ["lance-assembly", "grid-master", "two-connect", "bidding-ttt", "back-to-the-wall"])
def test_random_moves_and_undos_always_equal_a_fresh_replay(make_match: Any, slug: str) -> None:
    match = make_match(slug, clock=False)
    game = match.game
    rng = random.Random(slug)
    for _ in range(25):
        bout = current(match)
        if bout.finished:
            break
        moves = bout.active_moves().count()
        if moves and rng.random() < 0.25:
            services.undo(match, bout.version, rng.randint(1, min(2, moves)))
        else:
            state = services.bout_state(bout)
            seat = rng.choice(sorted(game.pending(state) or game.to_act(state)))
            services.submit(match, seat, game.format(game.random_action(state, seat, rng)), bout.version)
        bout = current(match)
        assert bout.state == game.dump(services.replay_bout(bout))
    assert current(match).active_moves().count() > 0
