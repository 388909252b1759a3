"""A toy game, plain 3x3 tic-tac-toe, added the way games/README.md says: its
rules (a `Game`), its page hooks and its templates, registered through the
registry alone (`games.registry.registered`).  It lives under tests/ so the
product never offers it; tests/matches/test_new_game.py plays it through the
platform to prove a game needs nothing in matches/."""
