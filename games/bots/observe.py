"""What a seat may know: the state a bot searches, rebuilt from the seat's view.

A bot never reads another seat's hidden information.  Games without sealed
rounds hide nothing (`hidden` is empty for every seat, so the state holds only
what every view shows) and are searched as they are.  In the sealed games every
other seat's hidden part is replaced by what the seat can assume from its own
view: their sealed submissions of this round are unknown (None: the search
samples them), their chips and garnets are a guess from public facts only.
Two states with the same view for the seat give the same observed state.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from games.back_to_the_wall.state import BackToTheWallState
from games.bidding_ttt.rules import BiddingState
from games.core import Game

#: what a bot assumes an opponent still holds in a season match whose garnets it cannot see
GUESSED_GARNETS = 3


def observed_state(game: Game[Any, Any], state: Any, seat: int) -> Any:
    """`state` with every other seat's hidden information replaced by a guess from `seat`'s view."""
    if isinstance(state, BiddingState):
        return _bidding(state, seat)
    if isinstance(state, BackToTheWallState):
        return _back_to_the_wall(state, seat)
    if game.sealed or type(game).hidden is not Game.hidden:
        raise NotImplementedError(f"no bot knows what a seat of {game.name} may see")
    return state


def _bidding(state: BiddingState, seat: int) -> BiddingState:
    other = 3 - seat
    mine = state.chips[seat - 1]
    # the opponent's chips are never shown: assume they hold as many as we do
    chips = (mine, mine)
    bids = list(state.bids)
    bids[other - 1] = None
    history = list(state.history)
    # their past bids are never shown either: as many rounds of unknown (empty) bids
    history[other - 1] = ((),) * len(state.history[seat - 1])
    return replace(
        state,
        chips=chips,
        bids=(bids[0], bids[1]),
        history=(history[0], history[1]),
    )


def _back_to_the_wall(state: BackToTheWallState, seat: int) -> BackToTheWallState:
    subs = [s if i + 1 == seat else None for i, s in enumerate(state.submissions)]
    spends = [row if i + 1 == seat else (0, 0, 0) for i, row in enumerate(state.spends)]
    bonus = [row if i + 1 == seat else (0, 0, 0) for i, row in enumerate(state.bonus)]
    garnets = state.garnets
    if garnets is not None:
        garnets = tuple(g if i + 1 == seat else GUESSED_GARNETS for i, g in enumerate(garnets))  # type: ignore[assignment]
    return replace(
        state,
        submissions=(subs[0], subs[1], subs[2], subs[3]),
        spends=(spends[0], spends[1], spends[2], spends[3]),
        bonus=(bonus[0], bonus[1], bonus[2], bonus[3]),
        garnets=garnets,
    )
