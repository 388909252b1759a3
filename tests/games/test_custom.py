"""The Host's game (games/custom): every ruling of the module docstring, the
notation's messages, Hypothesis over the notation, random playouts through the
Game interface and the hidden-information rule for every viewer."""

from __future__ import annotations

import copy
import functools
import json
import random
from dataclasses import replace
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import HOST, SPECTATOR, IllegalAction, NotationError, RuleError
from games.custom.notation import Answer, End, OpenRound, Points, Reveal, Spec
from games.custom.rules import CustomGame, CustomState
from tests.games import playing

game = CustomGame()
play = functools.partial(playing.play, game)


def opened(definition: str, seats: int = 4) -> CustomState:
    return play(game.new({"seats": seats}), (HOST, definition))


def refused(state: CustomState, seat: int, text: str, message: str) -> None:
    before = game.dump(state)
    with pytest.raises(RuleError, match=message):
        game.play(state, seat, text)
    assert game.dump(state) == before


# -- seats ---------------------------------------------------------------------
def test_the_bout_has_the_seats_of_its_option_and_the_game_fits_sixteen() -> None:
    assert game.slug == "custom" and game.name == "Host's game" and game.sealed
    assert game.seats == 16
    assert game.new().seats == 4
    state = game.new({"seats": 16})
    assert state.seats == 16 and game.public_view(state)["points"].keys() == {str(s) for s in range(1, 17)}
    assert game.hidden(game.new(), 5) == {}


@pytest.mark.parametrize("value", [1, 17, "6", True, None])
def test_a_seat_count_outside_2_to_16_is_refused(value: object) -> None:
    with pytest.raises(IllegalAction, match="option seats must be a whole number from 2 to 16"):
        game.new({"seats": value})
    with pytest.raises(IllegalAction, match="has no option 'names'"):
        game.new({"names": ["a"]})


# -- rounds and answers ----------------------------------------------------------
def test_only_the_required_seats_answer_and_the_round_closes_when_they_all_have() -> None:
    state = opened('round "Pick a number" number 1-10 seats 1,3,4')
    assert game.to_act(state) == {1, 3, 4} and game.pending(state) == {1, 3, 4}
    refused(state, 2, "answer 5", "seat 2 is not asked to answer round 1")
    state = play(state, (1, "answer 7"), (3, "3"))
    assert game.pending(state) == {4} and game.to_act(state) == {1, 3, 4}
    state = play(state, (1, "2"))  # a resubmission replaces the answer
    assert state.rounds[0].answer_of(1) == 2 and not state.rounds[0].closed
    state = play(state, (4, "10"))
    assert state.rounds[0].closed and not game.to_act(state)
    refused(state, 1, "round 1 answer 4", "round 1 is closed; answers are no longer taken")


def test_the_host_resolves_a_round_and_a_silent_seat_has_no_answer() -> None:
    state = play(opened('round "Say hi" text'), (2, "hello"), (HOST, "resolve"))
    assert state.rounds[0].answers == ((1, None), (2, "hello"), (3, None), (4, None))
    assert game.public_view(state)["rounds"][0]["answered"] == [2]
    refused(state, HOST, "resolve", "there is no open round to resolve")
    refused(state, 1, "hi", "there is no open round to answer")


def test_one_round_is_open_at_a_time_and_the_host_does_not_answer() -> None:
    state = opened('round "A" text')
    refused(state, HOST, 'round "B" text', "round 1 is still open; resolve it before opening another")
    with pytest.raises(IllegalAction, match="the host does not answer rounds"):
        game.apply(state, HOST, Answer(1, "text", "x"))
    with pytest.raises(NotationError, match="unknown action 'answer'"):
        game.parse(state, HOST, "answer x")


@pytest.mark.parametrize(("definition", "answer", "value"), [
    ('round "N" number -5 to 5', "-5", -5),
    ('round "C" choice "Red", "Green", "Blue"', "green", "Green"),
    ('round "C" choice "Red", "Green", "Blue"', "3", "Blue"),
    ('round "C" choice "3", "1"', "1", "3"),
    ('round "C" choice "3", "1"', '"1"', "1"),
    ('round "C" choice "Deep red", "Green"', '"Deep red"', "Deep red"),
    ('round "S" seat', "3, 1", (1, 3)),
    ('round "Q" square 3x4', "d3", "D3"),
    ('round "T" text', '"Quote \\"me\\""', 'Quote "me"'),
    ('round "T" text', "round and round we go", "round and round we go"),
    ('round "C" choice "Deep red", "Green"', "answer deep red.", "Deep red"),
    ('round "N" number 1-10', "answer 7.", 7),
    ('round "N" number 1-10', "round 1 answer 7.", 7),
    ('round "T" text', "  The butler, in the library.  ", "The butler, in the library."),
])
def test_each_kind_reads_its_answer(definition: str, answer: str, value: object) -> None:
    state = play(opened(definition), (1, answer))
    assert state.rounds[0].answer_of(1) == value


@pytest.mark.parametrize(("definition", "answer", "message"), [
    ('round "N" number 1-10', "11", "11 is out of range: answer a whole number from 1 to 10"),
    ('round "N" number 1-10', "seven", "expected a whole number for the answer, got 'seven'"),
    ('round "C" choice "Red", "Green"', "purple", "purple is not one of the choices: Red, Green"),
    ('round "S" seat', "5", r"there is no seat 5 in this bout \(seats 1 to 4\)"),
    ('round "S" seat', "2,2", "the seats you pick names a seat twice"),
    ('round "Q" square 3x4', "E1", "E1 is not on the grid: columns A to D, rows 1 to 3"),
    ('round "Q" square 3x4', "A4", "A4 is not on the grid"),
    ('round "Q" square 3x4', "middle", "expected a square like B3"),
    ('round "T" text', "x" * 501, "the answer is 501 characters long; the most is 500"),
    ('round "T" text', "   ", "the answer is empty"),
])
def test_an_answer_out_of_range_is_refused_with_a_sentence(definition: str, answer: str, message: str) -> None:
    refused(opened(definition), 1, answer, message)


def test_an_eliminated_seat_answers_nothing_and_is_no_longer_awaited() -> None:
    state = play(opened('round "N" number 1-3'), (1, "1"), (2, "2"), (3, "3"), (HOST, "eliminate 2"))
    assert game.pending(state) == {4} and 2 not in game.to_act(state)
    assert state.rounds[0].answer_of(2) == 2  # an earlier answer stays
    refused(state, 2, "1", "seat 2 is out and can no longer answer")
    refused(state, HOST, "eliminate 2", "seat 2 is already out")
    state = play(state, (HOST, "eliminate 4"))
    assert state.rounds[0].closed  # the last awaited seat went out
    refused(state, HOST, 'round "Again" text seats 2,3', "seat 2 is out and cannot be asked to answer")
    state = play(state, (HOST, 'round "Again" text'))
    assert state.rounds[1].required == (1, 3)


# -- reveals ---------------------------------------------------------------------
def test_reveals_publish_a_closed_everyone_round_whole_or_one_answer_at_a_time() -> None:
    state = play(opened('round "N" number 1-9'), (1, "4"), (2, "5"))
    refused(state, HOST, "reveal round 1", "round 1 is still open; resolve it before revealing")
    state = play(state, (HOST, "resolve"), (HOST, "reveal round 1 seat 2"))
    assert game.public_view(state)["rounds"][0]["revealed"] == {"2": 5}
    refused(state, HOST, "reveal round 1 seat 2", "seat 2's answer is already revealed")
    state = play(state, (HOST, "reveal 1"))
    assert game.public_view(state)["rounds"][0]["revealed"] == {"1": 4, "2": 5, "3": None, "4": None}
    refused(state, HOST, "reveal round 1", "round 1 is already revealed")
    refused(state, HOST, "reveal round 2", "there is no round 2")


@pytest.mark.parametrize(("policy", "whose"), [("host", "the host only"), ("author", "each answer's author only")])
def test_host_only_and_author_only_rounds_are_never_revealed(policy: str, whose: str) -> None:
    state = play(opened(f'round "Secret" text reveal {policy}'), (1, "mine"), (HOST, "resolve"))
    refused(state, HOST, "reveal round 1", f"round 1's answers are for {whose} and are never revealed")
    refused(state, HOST, "reveal round 1 seat 1", "never revealed")
    assert game.view(state, 1)["private"] == {"answers": {"1": "mine"}}
    assert game.view(state, HOST)["hidden"]["1"] == {"answers": {"1": "mine"}}
    for viewer in (2, 3, 4, SPECTATOR):
        assert "mine" not in json.dumps(game.view(state, viewer))


def test_seats_and_host_actions_keep_to_their_roles() -> None:
    state = opened('round "A" text')
    for text, verb in [('round "B" text', "open a round"), ("resolve", "resolve"), ('give 1 2 "x"', "give"), ("eliminate 2", "eliminate"),
                       ("end draw", "end")]:
        with pytest.raises(IllegalAction, match=f"only the host may {verb}"):
            game.apply(state, 1, game.parse(state, HOST, text))


# -- points and the end ------------------------------------------------------------
def test_points_are_a_public_scoreboard_with_reasons_and_the_result_scores() -> None:
    state = play(game.new({"seats": 3}), (HOST, 'give 2 5 "Best answer"'), (HOST, 'take 1 3 "Late"'),
                 (HOST, 'announce "Night falls."'))
    view = game.public_view(state)
    assert view["points"] == {"1": -3, "2": 5, "3": 0}
    assert view["awards"] == [{"seat": 2, "points": 5, "reason": "Best answer"},
                              {"seat": 1, "points": -3, "reason": "Late"}]
    assert view["announcements"] == ["Night falls."]
    refused(state, HOST, 'give 4 1 "x"', r"there is no seat 4 in this bout \(seats 1 to 3\)")
    state = play(state, (HOST, "end winner 2"))
    result = game.result(state)
    assert result is not None and result.winners == {2} and result.reason == "winner"
    assert result.scores == {1: -3, 2: 5, 3: 0}
    refused(state, HOST, 'give 1 1 "x"', "the bout is over")
    assert not game.to_act(state)


def test_endings_ranking_ties_and_draw_and_an_open_round_closes() -> None:
    base = play(opened('round "A" text', seats=4), (1, "a"))
    ranked = play(base, (HOST, "end ranking 3, 1 = 2, 4"))
    result = game.result(ranked)
    assert result is not None and result.winners == {3} and result.reason == "ranking"
    assert ranked.rounds[0].closed and ranked.rounds[0].answer_of(2) is None
    tied = game.result(play(base, (HOST, "end ranking 1=2, 3, 4")))
    assert tied is not None and tied.winners == {1, 2}
    draw = game.result(play(base, (HOST, "end draw")))
    assert draw is not None and draw.is_draw and draw.reason == "draw"
    two = game.result(play(base, (HOST, "end winners 4, 2")))
    assert two is not None and two.winners == {2, 4}
    refused(base, HOST, "end ranking 3, 1, 2", "the ranking leaves out seat 4: rank every seat, ties with =")
    refused(base, HOST, "end ranking 3, 1, 2, 4, 3", "the ranking names a seat twice")
    refused(base, HOST, "end winner 9", "there is no seat 9 in this bout")


# -- notation ------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "message"), [
    ("round", "expected the prompt in double quotes, got nothing"),
    ("round Pick a number", "expected the prompt in double quotes, got 'Pick'"),
    ('round "Pick" number 1-10 seats 1,3,4 extra', "expected reveal everyone|expected a seat"),
    ('round "" text', "the prompt is empty"),
    ('round "' + "p" * 301 + '" text', "the prompt is 301 characters long; the most is 300"),
    ('round "Pick a number', "the quoted text starting '\"Pick a number' is not closed"),
    ('round "Pick"', "expected the kind of answer after the prompt .* got nothing"),
    ('round "Pick" colour', "expected the kind of answer after the prompt .* got 'colour'"),
    ('round "Pick" number', "expected a range like number 1-10, got 'number'"),
    ('round "Pick" number ten', "expected a range like number 1-10, got 'number ten'"),
    ('round "Pick" number 10-1', "the range 10 to 1 is empty: put the lower number first"),
    ('round "Pick" choice "Red"', "a choice round needs at least two choices"),
    ('round "Pick" choice "Red", "red"', "a choice round lists the same choice twice"),
    ('round "Pick" square 3', r"expected a grid like square 3x4 \(rows x columns\), got 'square 3'"),
    ('round "Pick" square 0x4', "a grid has 1 to 26 rows and columns, got 0x4"),
    ('round "Pick" square 27x2', "a grid has 1 to 26 rows and columns, got 27x2"),
    ('round "Pick" text seats 0', "expected a seat from 1 to 16, got '0'"),
    ('round "Pick" text seats 17', "expected a seat from 1 to 16, got '17'"),
    ('round "Pick" text seats 1,1', "the seats that answer names a seat twice"),
    ('round "Pick" text seats', "expected the seats that answer"),
    ('round "Pick" text reveal nobody', "expected reveal everyone, reveal host or reveal author"),
    ('round "Pick" seat 3', "a seat round takes nothing after 'seat' but seats and reveal"),
    ("dance", "unknown action 'dance'"),
    ('give 2 0 "x"', "points must be from 1 to 1000000, got 0"),
    ("give 2 5", 'expected the reason in double quotes, got nothing'),
    ('announce ""', "the announcement is empty"),
    ("eliminate", "expected eliminate SEAT"),
    ("end", "expected end winner S"),
    ("end soon", "expected end winner, end ranking or end draw, got end 'soon'"),
    ("reveal", "expected reveal round N"),
    ("resolve now", "resolve takes nothing after it"),
])
def test_a_malformed_host_action_gets_a_specific_sentence(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        game.parse(game.new(), HOST, text)


def test_a_seat_names_a_round_that_exists() -> None:
    state = opened('round "A" text')
    with pytest.raises(NotationError, match="there is no round 3"):
        game.parse(state, 1, "round 3 answer hi")


# hypothesis's characters() takes Unicode category names typed as literals; "Cs" is the surrogates
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
_text = st.text(st.characters(codec="utf-8", exclude_categories=_SURROGATES), min_size=1, max_size=40).filter(
    lambda t: t.strip() == t and bool(t))
_seats = st.lists(st.integers(1, 16), min_size=1, max_size=16, unique=True).map(lambda s: tuple(sorted(s)))
_specs = st.one_of(
    st.just(Spec("text")), st.just(Spec("seat")),
    st.tuples(st.integers(-10**9, 10**9), st.integers(0, 10**9)).map(
        lambda t: Spec("number", low=t[0], high=min(t[0] + t[1], 10**9))),
    st.lists(_text, min_size=2, max_size=26, unique_by=str.lower).map(lambda c: Spec("choice", choices=tuple(c))),
    st.tuples(st.integers(1, 26), st.integers(1, 26)).map(lambda t: Spec("square", rows=t[0], columns=t[1])),
)
_host_actions = st.one_of(
    st.builds(OpenRound, _text, _specs, st.one_of(st.just(()), _seats), st.sampled_from(["everyone", "host", "author"]),
              st.one_of(st.none(), st.integers(5, 24 * 3600))),
    st.builds(Reveal, st.integers(1, 999), st.one_of(st.none(), st.integers(1, 16))),
    st.builds(Points, st.integers(1, 16), st.integers(1, 10**6).flatmap(lambda n: st.sampled_from([n, -n])), _text),
    st.builds(End, st.just("winner"), _seats.map(lambda s: (s,))),
    st.builds(End, st.just("ranking"), st.permutations(range(1, 9)).map(lambda p: ((p[0], p[1]), *((s,) for s in p[2:])))),
    st.just(End("draw")),
    st.builds(End, st.just("draw"), st.just(()), _seats, _seats),
)


@settings(max_examples=200, deadline=None)
@given(_host_actions)
def test_host_notation_round_trips(action: object) -> None:
    text = game.format(action)  # type: ignore[arg-type]
    assert game.parse(game.new(), HOST, text) == action, text


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_answers_of_every_kind_of_round_round_trip(data: st.DataObject) -> None:
    # typed garbage: tests/games/test_parser_fuzz.py, like every game's
    spec = data.draw(_specs)
    state = game.apply(game.new({"seats": 16}), HOST, OpenRound("Q", spec))
    action = game.random_action(state, 1, random.Random(data.draw(st.integers(0, 99))))
    assert isinstance(action, Answer)
    assert game.parse(state, 1, game.format(action)) == action


# -- random playouts through the Game interface ---------------------------------------
SENTINEL = "a different answer nobody typed"


def _leaks(state: CustomState) -> None:
    """Non-interference: for every viewer but the host, changing every answer
    that viewer may not see (other seats', not revealed) changes nothing in its
    view.  The host's view holds every answer."""
    for viewer in [*range(1, state.seats + 1), SPECTATOR]:
        swapped = replace(state, rounds=tuple(
            replace(r, answers=tuple((s, v if v is None or s == viewer or s in r.revealed else SENTINEL)
                                     for s, v in r.answers))
            for r in state.rounds))
        assert game.view(swapped, viewer) == game.view(state, viewer), viewer
        assert SENTINEL not in json.dumps(game.view(swapped, viewer))
    host = game.view(state, HOST)["hidden"]
    for r in state.rounds:
        for author, value in r.answers:
            expected = list(value) if isinstance(value, tuple) else value
            assert host[str(author)]["answers"][str(r.number)] == expected


def _playout(seed: int) -> None:
    rng = random.Random(seed)
    state = game.new({"seats": rng.randint(2, 16)})
    for _step in range(400):
        if game.result(state) is not None:
            assert not game.to_act(state)
            return
        acting = sorted(game.pending(state))
        ending = _step > 200 or rng.random() < 0.01
        seat = HOST if not acting or rng.random() < 0.25 or ending else rng.choice(acting)
        if seat == HOST:
            options = list(game.legal_actions(state, HOST))
            ends = [a for a in options if isinstance(a, End)]
            rest = [a for a in options if not isinstance(a, End)]
            action = rng.choice(ends if ending else rest)
        else:
            drawn = game.random_action(state, seat, rng)
            assert drawn is not None
            action = drawn
            for idle in set(range(1, state.seats + 1)) - game.to_act(state):
                with pytest.raises(IllegalAction):
                    game.apply(state, idle, action)
        text = game.format(action)
        assert game.parse(state, seat, text) == action, text
        before = copy.deepcopy(game.dump(state))
        new = game.apply(state, seat, action)
        assert game.dump(state) == before, "apply mutated its input"
        dumped = json.dumps(game.dump(new), sort_keys=True)
        state = game.load(json.loads(dumped))
        assert json.dumps(game.dump(state), sort_keys=True) == dumped and state == new
        _leaks(state)
    pytest.fail(f"no result after 400 actions (seed {seed})")


@pytest.mark.parametrize("seed", range(12))
def test_random_playouts_conform(seed: int) -> None:
    _playout(seed)


def test_listed_answers_are_all_accepted() -> None:
    for definition in ['round "N" number 1-4', 'round "S" seat', 'round "Q" square 2x3', 'round "T" text',
                       'round "C" choice "a", "b"']:
        state = opened(definition, seats=3)
        listed = list(game.legal_actions(state, 2))
        assert listed
        for action in listed:
            game.apply(state, 2, action)
    assert len(list(game.legal_actions(opened('round "S" seat', seats=3), 1))) == 7


def test_a_sealed_answer_looks_the_same_to_everyone_else() -> None:
    state = opened('round "N" number 1-10', seats=3)
    first, second = play(state, (1, "3")), play(state, (1, "9"))
    for viewer in (2, 3, SPECTATOR):
        assert game.view(first, viewer) == game.view(second, viewer)
    assert game.view(first, HOST) != game.view(second, HOST)
    assert game.view(first, 1)["private"] == {"answers": {"1": 3}}


# -- a round's time limit ----------------------------------------------------------
@pytest.mark.parametrize(("text", "seconds"), [("time 60", 60), ("time 90s", 90), ("time 2m", 120),
                                               ("time 2 minutes", 120), ("", None)])
def test_a_round_may_carry_its_own_time_limit(text: str, seconds: int | None) -> None:
    state = opened(f'round "Quick" number 1-5 seats 1,2 {text}')
    assert state.rounds[0].seconds == seconds
    assert game.round_clock(state, 30.0) == (float(seconds) if seconds else 30.0)
    assert game.view(state, SPECTATOR)["public"]["rounds"][0]["seconds"] == seconds
    assert game.load(json.loads(json.dumps(game.dump(state)))) == state
    closed = play(state, (HOST, "resolve"))
    assert game.round_clock(closed, 30.0) is None  # no round open: no round clock


@pytest.mark.parametrize(("text", "message"), [
    ('round "Quick" number 1-5 time 3', "a round's time limit is 5 seconds to 24 hours, got 3 s"),
    ('round "Quick" number 1-5 time 2d', "expected a time limit like time 60"),
    ('round "Quick" number 1-5 time', "expected a time limit like time 60"),
])
def test_a_bad_time_limit_gets_a_sentence(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        game.parse(game.new({}), HOST, text)


def test_a_reveal_is_news_and_nothing_else_is() -> None:
    state = play(opened('round "Pick" number 1-9 seats 1,2'), (1, "4"), (2, "6"))
    after = play(state, (HOST, "reveal round 1 seat 2"))
    assert game.news(state, after, HOST, game.parse(state, HOST, "reveal round 1 seat 2")) == [
        "round 1 revealed (Pick): seat 2: 6"]
    give = game.parse(after, HOST, 'give 1 1 "x"')
    assert game.news(after, game.apply(after, HOST, give), HOST, give) == []


# -- a season's Token of Life and Elimination Candidates ---------------------------------------------
def test_an_ending_may_name_a_token_of_life_and_elimination_candidates() -> None:
    state = game.new({"seats": 4})
    ended = play(state, (HOST, "end ranking 2, 3, 1=4 token 2 candidates 4,1"))
    assert ended.ending == End("ranking", ((2,), (3,), (1, 4)), token=(2,), candidate=(1, 4))
    assert game.format(ended.ending) == "end ranking 2, 3, 1=4 token 2 candidate 1,4"
    assert game.view(ended, SPECTATOR)["public"]["final"] == {"token_of_life": [2], "elimination_candidate": [1, 4]}
    assert game.load(json.loads(json.dumps(game.dump(ended)))) == ended
    assert play(state, (HOST, "end draw candidate 3")).ending == End("draw", candidate=(3,))
    refused(state, HOST, "end winner 1 token 9", "there is no seat 9 in this bout")
    with pytest.raises(NotationError, match="the ending names token twice"):
        game.parse(state, HOST, "end winner 1 token 2 token 3")


def test_curly_quotes_are_quotes_when_typed_and_text_inside_straight_quotes() -> None:
    """Phones type \u201ccurly\u201d quotes: they delimit a prompt or a choice like straight ones.
    Inside a straight-quoted (canonical) prompt they are only text (Hypothesis found the prompt
    '\u201c' read back as an unclosed quote when every curly quote was made straight)."""
    typed = game.parse(game.new(), HOST, "round \u201cPick one\u201d choice \u201cred\u201d, \u201cblue\u201d")
    assert isinstance(typed, OpenRound) and typed.prompt == "Pick one"
    assert typed.spec.choices == ("red", "blue")
    action = OpenRound('She said \u201cgo\u201d', Spec("choice", choices=("0", '"')), (), "everyone")
    assert game.parse(game.new(), HOST, game.format(action)) == action
    with pytest.raises(NotationError, match="not closed"):
        game.parse(game.new(), HOST, "round \u201cPick one choice a, b")
