"""slug -> Game.  Modules are imported on first use so one game's import
cost (or a game still being written) never touches the others."""

from __future__ import annotations

import importlib
from functools import cache

from games.core import Game
from games.core.pages import GamePage, Page

_GAMES: dict[str, str] = {
    "lance-assembly": "games.lance_assembly.rules:LanceAssembly",
    "grid-master": "games.grid_master.rules:GridMaster",
    "two-connect": "games.two_connect.rules:TwoConnect",
    "squava": "games.two_connect.squava:Squava",
    "gomoku": "games.two_connect.gomoku:Gomoku",
    "yinsh": "games.two_connect.yinsh:Yinsh",
    "bidding-ttt": "games.bidding_ttt.rules:BiddingTTT",
    "back-to-the-wall": "games.back_to_the_wall.rules:BackToTheWall",
    "custom": "games.custom.rules:CustomGame",
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


#: each app's page hooks (games/<app>/page.py); an app without one gets the default `Page`
_PAGES: dict[str, str] = {
    "lance_assembly": "games.lance_assembly.page:LancePage",
    "grid_master": "games.grid_master.page:GridMasterPage",
    "two_connect": "games.two_connect.page:TwoConnectPage",
    "bidding_ttt": "games.bidding_ttt.page:BiddingPage",
    "back_to_the_wall": "games.back_to_the_wall.page:BackToTheWallPage",
    "custom": "games.custom.page:CustomPage",
}


@cache
def get_page(slug: str) -> GamePage:
    """The page hooks of the game registered under `slug` (shared by the games of one app:
    Squava, Gomoku and Yinsh use Two Connect's); KeyError if there is no such game."""
    target = _PAGES.get(app_dir(slug))
    if target is None:
        return Page()
    module_name, _, attr = target.partition(":")
    page = getattr(importlib.import_module(module_name), attr)()
    if not isinstance(page, GamePage):
        raise RuntimeError(f"{target} is not a GamePage")
    return page


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
