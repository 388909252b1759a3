from django.apps import AppConfig


class BiddingTttConfig(AppConfig):
    name = "games.bidding_ttt"
    label = "bidding_ttt"
    verbose_name = "Bidding 3D Tic-Tac-Toe"
