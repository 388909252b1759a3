"""slug -> Game and its page hooks: the one place a game is registered.

A game is its folder under games/ plus one line in `_BUILT_IN`: the slug, its
`Game` class and its page class ("module:Class", imported on first use so one
game's import cost, or a game still being written, never touches the others).
Its folder is a Django app (templates, static files) that config/settings.py
installs from `apps()`.  Everything the platform says or does about the game
it asks these two objects (games/core/README.md); matches/ names no game.

`register(game, page)` adds a game at run time (a test's toy game:
`with registered(game, page, app="toy"): ...` takes it away again).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from games.core import Game
from games.core.pages import GamePage, Page

#: slug -> (its Game, its page hooks or None for the default `Page`): one line per game
_BUILT_IN: dict[str, tuple[str, str | None]] = {
    "lance-assembly": ("games.lance_assembly.rules:LanceAssembly", "games.lance_assembly.page:LancePage"),
    "grid-master": ("games.grid_master.rules:GridMaster", "games.grid_master.page:GridMasterPage"),
    "two-connect": ("games.two_connect.rules:TwoConnect", "games.two_connect.page:TwoConnectPage"),
    "squava": ("games.two_connect.squava:Squava", "games.two_connect.page:SquavaPage"),
    "gomoku": ("games.two_connect.gomoku:Gomoku", "games.two_connect.page:GomokuPage"),
    "yinsh": ("games.two_connect.yinsh:Yinsh", "games.two_connect.page:YinshPage"),
    "bidding-ttt": ("games.bidding_ttt.rules:BiddingTTT", "games.bidding_ttt.page:BiddingPage"),
    "back-to-the-wall": ("games.back_to_the_wall.rules:BackToTheWall", "games.back_to_the_wall.page:BackToTheWallPage"),
    "custom": ("games.custom.rules:CustomGame", "games.custom.page:CustomPage"),
}

#: games registered at run time: slug -> (game, page, app folder of its templates)
_ADDED: dict[str, tuple[Game[Any, Any], GamePage, str]] = {}
#: built-in games and pages once imported
_GAME_CACHE: dict[str, Game[Any, Any]] = {}
_PAGE_CACHE: dict[str, GamePage] = {}


def slugs() -> list[str]:
    """Every registered slug, in a stable order (the built-in games first)."""
    return [*_BUILT_IN, *_ADDED]


def apps() -> list[str]:
    """The Django apps of the built-in games ("games.two_connect"), for INSTALLED_APPS."""
    return list(dict.fromkeys(f"games.{app_dir(slug)}" for slug in _BUILT_IN))


def get_game(slug: str) -> Game[Any, Any]:
    """The game registered under `slug`; KeyError if there is none."""
    if slug in _ADDED:
        return _ADDED[slug][0]
    game = _GAME_CACHE.get(slug)
    if game is None:
        game = _load(_entry(slug)[0])()
        if game.slug != slug:
            raise RuntimeError(f"{_entry(slug)[0]} registers as {game.slug!r}, expected {slug!r}")
        _GAME_CACHE[slug] = game
    return game


def get_page(slug: str) -> GamePage:
    """The page hooks of the game registered under `slug` (the default `Page` when it has none);
    KeyError if there is no such game."""
    if slug in _ADDED:
        return _ADDED[slug][1]
    page = _PAGE_CACHE.get(slug)
    if page is None:
        target = _entry(slug)[1]
        page = Page() if target is None else _load(target)()
        if not isinstance(page, GamePage):
            raise RuntimeError(f"{target} is not a GamePage")
        _PAGE_CACHE[slug] = page
    return page


def app_dir(slug: str) -> str:
    """The game's app folder ("two_connect" for "squava"): its templates are
    <app>/board.html, controls.html and the optional head.html, its click script
    static/<app>/."""
    if slug in _ADDED:
        return _ADDED[slug][2]
    return _entry(slug)[0].split(".")[1]


def all_games() -> list[Game[Any, Any]]:
    return [get_game(slug) for slug in slugs()]


def register(game: Game[Any, Any], page: GamePage | None = None, *, app: str) -> None:
    """Add `game` (and its page hooks) under `game.slug`; its templates are found as
    `<app>/board.html` and `<app>/controls.html`.  ValueError if the slug is taken."""
    if game.slug in _BUILT_IN or game.slug in _ADDED:
        raise ValueError(f"a game is already registered under {game.slug!r}")
    page = page if page is not None else Page()
    if not isinstance(page, GamePage):
        raise TypeError(f"{page!r} is not a GamePage")
    _ADDED[game.slug] = (game, page, app)


def unregister(slug: str) -> None:
    """Take away a game `register` added; KeyError if it added none under `slug`."""
    del _ADDED[slug]


@contextmanager
def registered(game: Game[Any, Any], page: GamePage | None = None, *, app: str) -> Iterator[Game[Any, Any]]:
    """`register` for the length of a `with` block (tests)."""
    register(game, page, app=app)
    try:
        yield game
    finally:
        unregister(game.slug)


def _entry(slug: str) -> tuple[str, str | None]:
    try:
        return _BUILT_IN[slug]
    except KeyError:
        raise KeyError(f"no game registered under {slug!r}") from None


def _load(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)
