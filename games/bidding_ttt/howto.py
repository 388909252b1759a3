"""How to play Bidding 3D Tic-Tac-Toe: the text of /rules/bidding-ttt/ (the card's rules with the
rulings in rules.py's docstring).  The diagram's round is played through the rules (games/core/howto.py)."""

from __future__ import annotations

from games.core.howto import Diagram, Example, HowToPlay, Section

HOW_TO_PLAY = HowToPlay(
    goal=("Control three boards in a line (across, down or diagonally) of the 3x3 grid of boards. You control a "
          "board when you own three of its tiles in a line."),
    turn=("The match is three rounds. In each round both players send sealed bids at the same time: any number of "
          "tiles, each with the chips you bid on it. Red (seat 1) starts controlling board D and Blue (seat 2) "
          "board F; each has 80 chips. The round is resolved when both have sent their bids (or when the host "
          "closes it)."),
    sections=(
        Section("Bidding", (
            "Bid only on tiles nobody owns, on boards nobody controls; at least 1 chip a tile, one bid a tile, and "
            "no more chips in all than you have left. An empty submission (pass) is allowed. Until the round is "
            "resolved you may send your bids again: the last ones count.",
            "Round 1: your bid tiles may not hold three in a line on any board. Round 2: your bid tiles may lie on "
            "two boards at most. Round 3: no restriction.",
        )),
        Section("Resolution", (
            "Every bid tile goes to the higher bidder. Equal bids leave the tile unowned and unmarked. Every chip "
            "you bid is spent, whether you win the tile or not.",
            "Three tiles in a line on a board give you its control; if both players make a line on the same board "
            "in the same round, both control it. Nobody may bid on a controlled board again.",
            "Nobody ever sees the other player's bids or chips, not even after the round: only which tiles each "
            "side now owns. Spectators see what the players see of each other; the host sees everything.",
        ), diagrams=(
            Diagram("Round 1, both bids sealed. A1: 5 against 5, a tie: nobody gets it. A2: Blue's 4 beats Red's "
                    "3. B5 goes to Red and E5 to Blue, unopposed. Red has spent 18 chips and Blue 21, won or lost.",
                    play=((1, "A1 5; A2 3; B5 10"), (2, "A1 5; A2 4; E5 12")), names=("Red", "Blue")),
        )),
        Section("The end", (
            "After each round, a player who alone controls three boards in a line wins. If both do, or after "
            "round 3 neither does, the winner is the one controlling more boards, then owning more tiles, then "
            "holding more chips (the result says who has more, never how many), then holding more garnets (from "
            "the season's ledger). If all of these are equal the match is a draw for the host to settle.",
        )),
    ),
    notation_intro=("The boards are A to I in reading order (A B C / D E F / G H I), and the tiles of each board 1 "
                    "to 9 in reading order: E5 is the centre tile of the centre board. Clicking tiles and choosing "
                    "chips writes the bids for you."),
    notation=(
        Example("A1 3; E5 2", "bid 3 chips on A1 and 2 on E5"),
        Example("bid 2 on E5", "one bid, as a sentence"),
        Example("E5 x2", "the same"),
        Example("pass", "bid nothing this round"),
        Example("resolve", "the host closes the round: a player who sent nothing bids nothing"),
    ),
)
