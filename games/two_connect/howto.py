"""How to play Two Connect and its three boards alone (Squava, Gomoku, Yinsh blitz): the text of their
/rules/ pages: the card's rules with the rulings in rules.py, squava.py, gomoku.py and yinsh.py.
Diagrams are played through the rules (games/core/howto.py)."""

from __future__ import annotations

from games.core.howto import Diagram, Example, HowToPlay, Section

_SQUAVA = ("Squava is 5x5: place a stone on any empty square. Four in a row (across, down or diagonally; "
           "more than four counts) wins the board, even when the same stone also makes three. Three in a row "
           "without four loses it. A full board with no result is drawn.")
_GOMOKU = ("Gomoku is 14x14: place a stone on any empty point. Five or more in a row wins the board; a full "
           "board is drawn.")
_YINSH = ("Yinsh (blitz) is the official Yinsh board of 85 points. Each player first places 5 rings, one a "
          "turn. After that a turn is a ring move: put a marker of your colour in one of your rings, then move "
          "that ring in a straight line over any number of empty points; it may then jump one unbroken group of "
          "markers (any colours) and must stop on the first empty point behind them. A ring never passes over "
          "another ring. Every marker it jumps flips to the other colour; the marker left where it started does "
          "not. The first row of five markers of one colour wins the board: if a move makes rows for both "
          "players the mover wins, and a row only for the opponent wins for the opponent.")
_YINSH_DRAWS = ("The 51 markers are shared: the board is drawn the moment the last one is put down without a "
                "row. A player whose rings are all blocked passes; when both are blocked the board is drawn.")
_LINES = ("Yinsh lines run along a letter (E4, E5, E6), along a number (E7, F7, G7) and along letter and number "
          "together (E5, F6, G7); the other diagonal is not a line.")

#: ten rings placed, then each seat has moved a ring once: red's marker on E5 and ring on E7
_RINGS = ((1, "ring E5"), (2, "ring K7"), (1, "ring A2"), (2, "ring K8"), (1, "ring A3"), (2, "ring K9"),
          (1, "ring B1"), (2, "ring K10"), (1, "ring C1"), (2, "ring J11"), (1, "E5-E7"), (2, "K7-H7"))

_YINSH_MOVE = Diagram("Red puts a marker in its ring on E7 and moves the ring along the E line: over the empty "
                      "E6, then it jumps red's marker on E5, which flips to blue, and stops on the first empty "
                      "point behind it, E4.",
                      setup=_RINGS, play=((1, "E7-E4"),), names=("Red", "Blue"))

SQUAVA = HowToPlay(
    goal="Make four in a row before your opponent, without ever making three in a row (without four) yourself.",
    turn="Two players alternate, seat 1 first; a turn is one stone on any empty square of the 5x5 board.",
    sections=(Section("Three loses, four wins", (_SQUAVA,), diagrams=(
        Diagram("Red places C1, its third stone in a row on row 1 without a fourth: red loses the board.",
                setup=((1, "A1"), (2, "E5"), (1, "B1"), (2, "E4")), play=((1, "C1"),), names=("Red", "Blue")),
    )),),
    notation_intro="Squares are a column letter A-E and a row number 1-5; A1 is the top-left square.",
    notation=(Example("C3", "a stone on C3"), Example("squava C3", "the same, with the board's name (as in Two Connect)")),
)

GOMOKU = HowToPlay(
    goal="Make five or more stones in a row (across, down or diagonally).",
    turn="Two players alternate, seat 1 first; a turn is one stone on any empty point of the 14x14 board.",
    sections=(Section("The board", (_GOMOKU, "There is no other rule: overlines count, nothing is forbidden."), diagrams=(
        Diagram("Red's fifth stone in row 7 makes five in a row: red wins.",
                setup=((1, "D7"), (2, "D8"), (1, "E7"), (2, "E8"), (1, "F7"), (2, "F8"), (1, "G7"), (2, "K2")),
                play=((1, "H7"),), names=("Red", "Blue")),
    )),),
    notation_intro="Points are a column letter A-N and a row number 1-14; A1 is the top-left point.",
    notation=(Example("H7", "a stone on H7"), Example("gomoku H7", "the same, with the board's name")),
)

YINSH = HowToPlay(
    goal="Make the first row of five markers of your colour (blitz: one row wins).",
    turn=("Two players alternate, seat 1 first. While you have fewer than 5 rings on the board a turn places a "
          "ring on an empty point; after that a turn moves one of your rings, leaving a marker where it stood."),
    sections=(
        Section("A ring move", (_YINSH, _LINES), diagrams=(_YINSH_MOVE,)),
        Section("Draws", (_YINSH_DRAWS,)),
    ),
    notation_intro="Points are a column letter A-K and a number; E5 is near the middle of the board.",
    notation=(
        Example("ring E5", "place a ring on E5 (while you have fewer than 5 on the board)"),
        Example("E5-E8", "put a marker in your ring on E5 and move the ring to E8"),
        Example("move ring from e5 to e8", "the same, as a sentence"),
        Example("yinsh E5-E8", "the same, with the board's name"),
    ),
)

TWO_CONNECT = HowToPlay(
    goal=("Squava, Yinsh (blitz) and Gomoku are played at once: the first player to win two of the three "
          "boards wins the match."),
    turn=("Players alternate turns, seat 1 first. A turn is one move on each of two different boards, sent "
          "together and played in the order given. The turn is one move on one board instead on the very first "
          "turn of the match, once any board is finished (won or drawn), and when only one board is open to you. "
          "If the first move wins its board, the second move is still played. You may play the same board on "
          "several turns running."),
    sections=(
        Section("Two moves a turn", (
            "The turn's two moves go on two different boards and are played in the order you write them.",
        ), diagrams=(
            Diagram("Red's first turn was one move, C3 on Squava. Blue then plays two moves in one turn: B2 on "
                    "Squava and H7 on Gomoku. Each board's bars count each player's moves there for the turn "
                    "bank.", setup=((1, "squava C3"),), play=((2, "squava B2; gomoku H7"),),
                    names=("Red", "Blue"), wide=True),
        )),
        Section("The three boards", (_SQUAVA, _GOMOKU, _YINSH, _YINSH_DRAWS)),
        Section("The turn bank", (
            "Each player counts their own moves on each unfinished board. A board where your count reaches 10 is "
            "closed to you until every other unfinished board has also reached 10 for you; then all your counts "
            "return to 0. Every count of both players returns to 0 whenever a board is finished. A ring placement "
            "on Yinsh counts like any other move. Each board shows both players' counts.",
            "A player who cannot play on any board passes automatically.",
        )),
        Section("The end of the match", (
            "Two boards won wins at once, even if the second move of the same turn gives your opponent a second "
            "board. Otherwise, when every board is finished (or nobody can play any more), the player with more "
            "boards wins; with equal boards, the winner of the most recently won board; with no board won, the "
            "match is a draw for the host to settle.",
            "The clock is a 20-minute bank a player for the whole match, shown to players to the minute; "
            "running out loses the whole match.",
        )),
    ),
    notation_intro=("Each move starts with its board's name: squava, yinsh or gomoku. Two moves are joined by "
                    "\"; \" (or \"and\", \"then\", a comma). Clicking the boards writes the turn for you."),
    notation=(
        Example("squava C3; gomoku H7", "a two-move turn: C3 on Squava, then H7 on Gomoku"),
        Example("yinsh ring E5", "place a Yinsh ring on E5"),
        Example("yinsh E5-E8; squava B2", "a Yinsh ring move, then a Squava stone"),
        Example("I play on yinsh ring e5, then squava b2.", "a sentence works too"),
        Example("gomoku H7", "a one-move turn (the first turn, or once a board is finished)"),
    ),
)
