"""How to play the host's game (`custom`): how rounds, answers, reveals and points work, the text of
/rules/custom/ (the rulings in rules.py, the notation in notation.py).  The diagram is played through
the rules (games/core/howto.py)."""

from __future__ import annotations

from types import MappingProxyType

from games.core import HOST
from games.core.howto import Diagram, Example, HowToPlay, Section

HOW_TO_PLAY = HowToPlay(
    goal=("The host's game runs any game the server does not know: the host explains the game and decides who "
          "wins; the server keeps the rounds, the sealed answers, the reveals and the scoreboard."),
    turn=("The host opens a round with a question and the kind of answer it takes. Every seat asked answers, "
          "sealed: nobody else sees it. The round closes when all of them have answered, when its time runs out "
          "or when the host closes it; then the host may reveal the answers and give or take points."),
    sections=(
        Section("Rounds and answers", (
            "One round is open at a time. It asks every seat still in play (or the seats the host names) for a "
            "number in a range, one of a list of choices, one or more seats, a square of a grid, or free text of "
            "up to 500 characters. A seat may answer again until the round closes: the last answer counts. A seat "
            "that did not answer is recorded as \"no answer\".",
            "Who has answered is public; what they answered is not. The host sees every answer as it arrives and "
            "you always see your own.",
        )),
        Section("Reveals, points and the end", (
            "A round opened with \"reveal everyone\" (the default) may be revealed once it is closed, whole or one "
            "seat at a time. Answers of a \"reveal host\" or \"reveal author\" round are never shown to the "
            "others.",
            "The host gives or takes whole points one seat at a time, always with a reason; the scoreboard and "
            "its reasons are public. The host may eliminate a seat (it answers nothing more, for good) and ends "
            "the bout with a winner, several winners, a ranking or a draw.",
        ), diagrams=(
            Diagram("The host opened round 1, \"Pick a number\", 1 to 10. Once all three answered, the host "
                    "revealed the round and gave Bob 2 points for the number nobody else picked.",
                    options=MappingProxyType({"seats": 3}), names=("Ann", "Bob", "Cy"),
                    setup=((HOST, 'round "Pick a number" number 1-10'),),
                    play=((1, "answer 7"), (2, "answer 3"), (3, "answer 7"), (HOST, "reveal round 1"),
                          (HOST, 'give 2 2 "the only one to pick 3"'))),
        )),
    ),
    notation_intro=("Seats answer with the buttons or the box on their page. The host types the console's "
                    "actions, or builds them with its buttons; quoted text may hold anything."),
    notation=(
        Example("answer 7", "a seat's answer to the open round (a number, a choice, seats 1,3, a square B3, or text)"),
        Example('round "Pick a number" number 1-10', "host: open a round asking everyone for a number from 1 to 10"),
        Example('round "Colour?" choice "Red", "Green" reveal host', "host: a choice only the host will see"),
        Example('round "Where?" square 3x4 seats 1,3 time 60', "host: a square of a 3x4 grid, from seats 1 and 3, "
                "closing after 60 seconds"),
        Example("resolve", "host: close the open round now"),
        Example("reveal round 2 seat 3", "host: show seat 3's answer to round 2"),
        Example('give 3 5 "Best answer"', "host: 5 points to seat 3, with the reason"),
        Example('take 3 2 "Late"', "host: 2 points from seat 3"),
        Example("eliminate 3", "host: seat 3 is out"),
        Example("end ranking 3, 1=2, 4", "host: end the bout, best first, = for a tie"),
    ),
)
