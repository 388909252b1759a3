"""slug -> Game.  Modules are imported on first use so one game's import
cost (or a game still being written) never touches the others."""

from __future__ import annotations

import importlib
from functools import cache

from games.core import Game

_GAMES: dict[str, str] = {
    "lance-assembly": "games.lance_assembly.rules:LanceAssembly",
    "grid-master": "games.grid_master.rules:GridMaster",
    "two-connect": "games.two_connect.rules:TwoConnect",
    "squava": "games.two_connect.squava:Squava",
    "gomoku": "games.two_connect.gomoku:Gomoku",
    "yinsh": "games.two_connect.yinsh:Yinsh",
    "bidding-ttt": "games.bidding_ttt.rules:BiddingTTT",
    "back-to-the-wall": "games.back_to_the_wall.rules:BackToTheWall",
}


def slugs() -> list[str]:
    """Every registered slug, in a stable order."""
    return list(_GAMES)


@cache
def get_game(slug: str) -> Game:  # type: ignore[type-arg]
    """The game registered under `slug`; KeyError if there is none."""
    try:
        target = _GAMES[slug]
    except KeyError:
        raise KeyError(f"no game registered under {slug!r}") from None
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    game: Game = cls()  # type: ignore[type-arg]
    if game.slug != slug:
        raise RuntimeError(f"{target} registers as {game.slug!r}, expected {slug!r}")
    return game


def app_dir(slug: str) -> str:
    """The game's Django app folder under games/ ("two_connect" for "squava"):
    it owns the game's page (templates/<app>/board.html, controls.html, the
    optional page.py view shaping and static/<app>/ click script)."""
    try:
        target = _GAMES[slug]
    except KeyError:
        raise KeyError(f"no game registered under {slug!r}") from None
    return target.split(".")[1]


def all_games() -> list[Game]:  # type: ignore[type-arg]
    return [get_game(slug) for slug in _GAMES]
