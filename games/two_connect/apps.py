from django.apps import AppConfig


class TwoConnectConfig(AppConfig):
    name = "games.two_connect"
    label = "two_connect"
    verbose_name = "Two Connect"
