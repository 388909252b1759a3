"""How to play Back to the Wall: the text of /rules/back-to-the-wall/ (the card's rules with the
rulings in rules.py's docstring).  The diagram's round is played through the rules (games/core/howto.py)."""

from __future__ import annotations

from games.core.howto import Diagram, Example, HowToPlay, Section

#: round 1: every seat's orders for its one piece on each board; on Once seat 1's wall C4 touches B3 and seat 3's
#: C5 (both dropped), on Twice seat 2's walls B5 and F3 stand
_ROUND_ONE = (
    (1, "once wall C4; once piece 1 right down left; twice piece 1 right down left; thrice piece 1 down right up"),
    (2, "once piece 1 down left up; twice walls B5 F3; twice piece 1 up left down; thrice piece 1 down left up"),
    (3, "once wall C5; once piece 1 left up up; twice piece 1 left up right; thrice piece 1 up right down"),
    (4, "once piece 1 up right down; twice piece 1 up right down; thrice piece 1 left up right"),
)

HOW_TO_PLAY = HowToPlay(
    goal=("Four players capture squares on three boards at once, Once (6x6), Twice (7x7) and Thrice (8x8). After "
          "three rounds the most points wins and earns a Token of Life; the fewest points is the Elimination "
          "Candidate."),
    turn=("Each round every player sends sealed orders, for each board: up to 1, 2 or 3 wall squares (Once, Twice, "
          "Thrice), exactly three directions for each of their pieces there, and, once a match a board, a garnet "
          "spent on it. Everyone starts in a different corner of each board, so each board pits you diagonally "
          "against someone else. You have one piece a board in round 1; a new one appears on your corner at the "
          "start of rounds 2 and 3. The round is resolved when all four have sent orders (or the host resolves)."),
    sections=(
        Section("Walls", (
            "A submitted wall is dropped if it is on a corner, a wall or a piece; on Once if it touches another "
            "wall, even diagonally; on Twice if it touches another wall side by side. Both walls of such a pair "
            "are dropped. The walls left are then added one at a time in seat order, and one that would cut a "
            "corner off from every other corner is dropped. The same square sent by several players is one wall, "
            "placed for each of them. A wall off the board is refused when you send it.",
        )),
        Section("Movement", (
            "Pieces move in three phases, one for each of your three directions. In a phase all pieces move at "
            "once, one square a tick, each until the next square is a wall or the edge. Pieces never block each "
            "other: they pass through one another.",
            "A piece whose direction is blocked at the start of a phase goes the way whose path holds the most "
            "squares owned by nobody; ties go to a turn to either side before going back, then to the direction "
            "toward its own corner. A piece that cannot move stays.",
            "Every square a piece enters becomes its owner's, even one another player held. When pieces of "
            "different players enter the same square on the same tick, it does not change hands. A new piece "
            "captures its corner.",
        ), diagrams=(
            Diagram("Round 1. On Once, player 1's wall C4 touches B3 and player 3's C5, so C4 and C5 are both "
                    "dropped. On Twice, player 2's walls B5 and F3 stand. Every piece runs to a wall or the edge "
                    "in each of its three phases and captures the squares it enters; round 2 then starts with a "
                    "new piece on each corner. Under each board, \"How the round resolved\" gives every ruling.",
                    play=_ROUND_ONE, wide=True),
        )),
        Section("Scoring", (
            "Per board you score the squares you hold, plus a garnet bonus: the number of walls you actually "
            "placed on that board in the round you spent a garnet on it. The places on a board give 6, 4, 2 and 1 "
            "points; tied players share the average of the places they span. A sole first place on a board earns "
            "a garnet.",
            "The points shown during play count captured squares only: garnet bonuses, which would reveal a "
            "spend, appear with the final result. Ties on points go to the better single board, then to points "
            "on Thrice, then Twice, then Once. Players still equal after every tie-break for first place (or "
            "for last) get no Token of Life (or no candidacy) by the rules: the host settles that tie.",
            "A player who sends no orders keeps their pieces in place and places no wall; the host may enter "
            "orders for them before resolving.",
        )),
    ),
    notation_intro=("Each part starts with its board's name: once, twice or thrice. Squares are a column letter "
                    "and a row number; A1 is the top-left square. Directions are up, down, left, right (or U D L "
                    "R). The order builder under the boards writes the orders for you."),
    notation=(
        Example("once wall C3; once piece 1 up right down; twice garnet",
                "a wall on C3 of Once, piece 1's three directions on Once, a garnet spent on Twice"),
        Example("twice walls D3 C3", "two walls on Twice"),
        Example("thrice piece 2 U R D", "piece 2's directions on Thrice, as letters"),
        Example("wall C3 on once", "a sentence works too"),
        Example("resolve", "the host resolves the round"),
    ),
)
