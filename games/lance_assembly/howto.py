"""How to play Lance Assembly (and its Sliding Tic-Tac-Toe timing): the text of /rules/lance-assembly/.

The card's rules with the rulings in rules.py's docstring; every diagram is played through the rules
(games/core/howto.py)."""

from __future__ import annotations

from games.core.howto import Diagram, Example, HowToPlay, Section

#: a bout where red has A1-D1 and places F1: the slide that makes the lance comes next
_FOUR_IN_THE_TOP_ROW = ((1, "place A1"), (2, "place B4"), (1, "place B1"), (2, "place E4"),
                        (1, "place C1"), (2, "place C5"), (1, "place D1"), (2, "place D3"))

HOW_TO_PLAY = HowToPlay(
    goal=("Make a lance: five or more of your own tiles in a row (across, down or diagonally) at the end of "
          "your turn. The first to win two bouts wins the match (best of 3)."),
    turn=("The 6x6 board starts empty; each player has 18 tiles, seat 1 red and seat 2 blue. The starting "
          "player's first turn is one placed tile and nothing else. Every later turn is one of: place a tile; "
          "slide; place a tile and then slide. You may not pass, and you may not slide before you place."),
    sections=(
        Section("Sliding", (
            "A slide moves a connected run of tiles in one row or one column (yours, your opponent's, the neutral "
            "tile, in any mix) along that row or column by as many squares as you choose. Every square the run "
            "moves into must be empty: tiles outside the run never move, nothing is pushed, and nothing slides "
            "round a corner or diagonally.",
            "You choose the run: it may be part of a longer line of tiles, as long as the squares ahead of it are "
            "empty, and it need not include the tile you just placed.",
        ), diagrams=(
            Diagram("Red places F1, then slides the four tiles A1 to D1 right by one: B1 to F1 is a lance and "
                    "red wins the bout.", setup=_FOUR_IN_THE_TOP_ROW,
                    play=((1, "place F1; slide A1-D1 right 1"),), names=("Red", "Blue")),
        )),
        Section("The neutral tile", (
            "The player who moves second in the bout holds one neutral tile. They may place it once in the bout, "
            "on any empty square, at any point of their turn: before placing, between placing and sliding, or "
            "after the slide. It is not a turn on its own (a turn of the neutral tile alone is refused), it "
            "belongs to nobody, never counts toward a lance, and anyone may slide it afterwards.",
        ), diagrams=(
            Diagram("Red threatens a lance with A3 to D3. Blue places F6, then the neutral tile on E3: row 3 is "
                    "blocked for red until someone slides the neutral tile away.",
                    setup=((1, "place A3"), (2, "place A5"), (1, "place B3"), (2, "place B5"), (1, "place C3"),
                           (2, "place C6"), (1, "place D3")),
                    play=((2, "place F6; neutral E3"),), names=("Red", "Blue")),
        )),
        Section("When the board fills up", (
            "A tile (yours or the neutral one) may be placed only while more than 4 squares are empty. Once 4 or "
            "fewer are empty, every turn is a slide.",
            "A lance is checked once, at the end of the turn. If only one player has a lance, that player wins, "
            "even when it is the opponent of the player who made it. If both have one, the player who moved wins.",
            "The bout is a stalemate when the player to move has no legal turn, when the same position (board, "
            "player to move, neutral tile used or not) comes up for the third time, or when the host declares "
            "it. A stalemated bout is replayed with the same starting player; otherwise the starting player "
            "alternates from bout to bout.",
        )),
        Section("Clock", (
            "Lance Assembly gives 60 seconds a turn and a 5-minute reserve, refilled every bout. Sliding "
            "Tic-Tac-Toe is the same game with 2 minutes a turn and a reserve that is not refilled. Time over "
            "the per-turn limit comes out of the reserve; a player whose reserve runs out loses the bout.",
        )),
    ),
    notation_intro=("Squares are a column letter A-F and a row number 1-6; A1 is the top-left square. The "
                    "parts of a turn are written in the order they are played, joined by \"; \". Clicking the "
                    "board writes the move for you."),
    notation=(
        Example("place C3", "put one of your tiles on C3"),
        Example("slide B2 down 1", "slide the tile on B2 one square down"),
        Example("slide B2-D2 right 2", "slide the run B2, C2, D2 two squares right"),
        Example("place C3; slide B2-B3 down 1", "place, then slide"),
        Example("neutral D4; place C3", "the neutral tile first, then your own tile"),
        Example("I place tile on A1, and slide tiles on B2 and B3 down 1.", "a sentence works too"),
        Example("move B2 to B4", "one tile to a square in its row or column"),
    ),
)
