"""How to play Grid Master: the text of /rules/grid-master/ (the card's rules with the rulings in
rules.py's docstring); its diagrams are played through the rules (games/core/howto.py)."""

from __future__ import annotations

from games.core.howto import Diagram, Example, HowToPlay, Section

HOW_TO_PLAY = HowToPlay(
    goal=("Have three of your symbols in a row (across, down or diagonally) at the end of a turn in which you "
          "moved one of them."),
    turn=("X (seat 1) places first, on a corner; O then places on any empty square. From each player's second "
          "turn on, a turn is two steps: place a new symbol on an empty square, then reposition one of your own "
          "symbols 1 or 2 squares up, down, left or right onto an empty square."),
    sections=(
        Section("Repositioning", (
            "On your second turn the symbol you reposition must be the one you placed on your first turn. From "
            "your third turn on it may be any of yours except the one you have just placed.",
            "A reposition goes 1 or 2 squares in a straight line, never diagonally, onto an empty square. It may "
            "pass over your own symbol but never over your opponent's.",
            "If no reposition is possible after your placement, the turn is the placement alone (such a turn "
            "cannot win). A placement alone is refused while a reposition is possible. With no symbol left in "
            "hand, or a full board, the turn is a reposition alone.",
        ), diagrams=(
            Diagram("X's second turn: X places on B2, then must reposition its first symbol, A1, here one "
                    "square down to A2.", setup=((1, "place A1"), (2, "place C1")),
                    play=((1, "place B2; move A1 down 1"),)),
        )),
        Section("Winning and drawing", (
            "Only a turn that included a reposition can win, and only the mover's lines count. A line that "
            "exists only between your placement and your reposition does not win; a line made by the placement "
            "and kept through the reposition of another symbol does.",
            "The game is drawn when the player to move has no legal turn (a full board with no reposition: with "
            "5 symbols each, a game nobody won ends this way when the ninth symbol fills the board), when the "
            "same position comes up for the third time, or when the host declares it.",
        )),
    ),
    notation_intro=("Squares are a column letter A-C and a row number 1-3; A1 is the top-left square. The "
                    "placement comes first, then the reposition. Clicking the board writes the move for you."),
    notation=(
        Example("place A1", "a first turn: one symbol on a corner"),
        Example("place B2; move A1 right 2", "place on B2, then move the symbol on A1 two squares right"),
        Example("place B2; move A1 to C1", "the same turn, naming where the symbol goes"),
        Example("move A1 down", "a reposition alone (no symbol in hand): one square when no distance is given"),
        Example("I place on B2 and move A1 to C1", "a sentence works too"),
    ),
)
