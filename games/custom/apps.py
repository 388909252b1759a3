from django.apps import AppConfig


class CustomConfig(AppConfig):
    name = "games.custom"
    label = "custom"
    verbose_name = "Host's game"
