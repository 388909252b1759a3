"""Hosting from Discord (issue 39): the interactions endpoint, the slash commands, and the messages a
worker sends after commit.  See matches/discord/README.md."""
