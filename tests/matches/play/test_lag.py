"""The lag quota (matches/play/lag.py) against hand-worked sequences, and its promises for any
sequence (Hypothesis): never charge less than the think time the server can prove, never give
back more than the quota, and a client that lies about its think time gains nothing beyond it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.play import lag


def test_the_gain_follows_lichess_from_the_estimated_game_length() -> None:
    # estimate = reserve + 40 x per-move allowance; gain = min(1 s, estimate x 0.004 + 0.15 s)
    assert lag.estimate(60, 300) == 2700
    assert lag.gain(60, 300) == 1.0  # Lance Assembly's default clock
    assert lag.gain(None, 60) == pytest.approx(0.39)  # a one-minute bank
    assert lag.gain(None, 15) == pytest.approx(0.21)
    assert lag.gain(None, 212.5) == pytest.approx(1.0)
    assert lag.gain(None, None) == pytest.approx(0.15)
    assert lag.start_quota(0.39) == pytest.approx(1.17) and lag.quota_cap(0.39) == pytest.approx(2.73)


def test_the_grace_is_the_quota_up_to_two_seconds() -> None:
    assert lag.grace(None) == 0.0  # compensation off: the flag falls at the deadline
    assert lag.grace(1.17) == 1.17
    assert lag.grace(7.0) == 2.0


def _run(moves: Sequence[tuple[float, float | None, float | None]], gain: float = 1.0) -> list[lag.Charge]:
    quota: float | None = lag.start_quota(gain)
    out = []
    for elapsed, think, network in moves:
        c = lag.charge(elapsed, think, quota=quota, gain_=gain, network_lag=network)
        out.append(c)
        quota = c.quota
    return out


def _quotas(charges: list[lag.Charge]) -> list[float | None]:
    """Each charge's quota after it, to the microsecond (None: compensation off)."""
    return [None if c.quota is None else round(c.quota, 6) for c in charges]


def test_first_moves_grow_the_quota_to_its_cap() -> None:
    # 300 s game: gain 1 s, quota starts at 3 s, capped at 7 s; the socket measured 0.5 s
    charges = _run([(3.0, 2.5, 0.5), (1.0, 1.0, 0.5), (2.0, 2.0, 0.5), (2.0, 2.0, 0.5), (2.0, 2.0, 0.5)])
    first = charges[0]
    assert first.lag == pytest.approx(0.5) and first.comp == pytest.approx(0.5) and first.charged == pytest.approx(2.5)
    assert _quotas(charges) == [3.5, 4.5, 5.5, 6.5, 7.0]
    assert [c.comp for c in charges[1:]] == [0.0] * 4  # no lag claimed, none given


def test_a_lag_spike_is_given_back_up_to_the_network_lag_then_up_to_what_is_left_of_the_quota() -> None:
    calm = [(2.0, 2.0, 0.1)] * 5  # quota at its cap: 7 s
    spike = [(10.0, 4.0, 5.0), (10.0, 4.0, 5.0), (10.0, 4.0, 5.0)]
    charges = _run(calm + spike)[5:]
    # 6 s of lag: 5 s of network + 40 ms given back, then the 2.96 s left, then the 1 s gained
    assert [round(c.comp, 6) for c in charges] == [5.04, 2.96, 1.0]
    assert [round(c.charged, 6) for c in charges] == [4.96, 7.04, 9.0]
    assert _quotas(charges) == [2.96, 1.0, 1.0]


def test_a_client_claiming_no_think_time_gains_only_its_network_lag() -> None:
    # 10 s a move by the server's watch, "0 ms" by the client's word, 0.2 s measured on the socket
    charges = _run([(10.0, 0.0, 0.2)] * 20)
    assert all(c.reported == 0.0 and c.lag == 10.0 for c in charges)
    assert all(c.comp == pytest.approx(0.24) and c.charged == pytest.approx(9.76) for c in charges)


def test_a_liar_who_also_inflates_its_network_lag_gains_nothing_beyond_the_quota() -> None:
    # it answers pings late (a 10 s "round trip") and claims 0 ms on every move
    charges = _run([(10.0, 0.0, 10.0)] * 20)
    assert [round(c.comp, 6) for c in charges[:3]] == [3.0, 1.0, 1.0]  # the start, then one gain a move
    assert sum(c.comp for c in charges) == pytest.approx(3.0 + 19 * 1.0)


def test_a_report_is_clamped_to_what_the_server_saw() -> None:
    over = lag.charge(5.0, 9.0, quota=3.0, gain_=1.0, network_lag=1.0)
    assert (over.reported, over.lag, over.comp, over.charged) == (5.0, 0.0, 0.0, 5.0)
    under = lag.charge(5.0, -2.0, quota=3.0, gain_=1.0, network_lag=None)  # no socket measure: the margin only
    assert under.reported == 0.0 and under.comp == pytest.approx(0.04)
    garbage = lag.charge(5.0, float("nan"), quota=3.0, gain_=1.0, network_lag=1.0)
    assert (garbage.reported, garbage.comp, garbage.charged) == (None, 0.0, 5.0)


def test_compensation_off_charges_what_the_server_measured() -> None:
    c = lag.charge(5.0, 1.0, quota=None, gain_=1.0, network_lag=1.0)
    assert (c.lag, c.comp, c.charged, c.quota) == (4.0, 0.0, 5.0, None)


seconds = st.floats(min_value=0, max_value=600, allow_nan=False)
reports = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))
networks = st.one_of(st.none(), st.floats(min_value=-1, max_value=30, allow_nan=False))


@given(st.lists(st.tuples(seconds, reports, networks), max_size=40),
       st.floats(min_value=0.15, max_value=1.0))
def test_any_sequence_keeps_the_promises(moves: list[tuple[float, float | None, float | None]], gain: float) -> None:
    quota = lag.start_quota(gain)
    given_back = 0.0
    for elapsed, think, network in moves:
        c = lag.charge(elapsed, think, quota=quota, gain_=gain, network_lag=network)
        proven = c.reported if c.reported is not None else elapsed  # the think time the server can prove
        assert proven - 1e-9 <= c.charged <= elapsed + 1e-9
        assert 0 <= c.comp <= min(quota, max(0.0, network or 0.0) + lag.NETWORK_MARGIN) + 1e-9
        assert c.quota is not None and 0 <= c.quota <= lag.quota_cap(gain) + 1e-9
        given_back += c.comp
        quota = c.quota
    assert given_back <= lag.start_quota(gain) + len(moves) * gain + 1e-6
