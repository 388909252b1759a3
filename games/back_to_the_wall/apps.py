from django.apps import AppConfig


class BackToTheWallConfig(AppConfig):
    name = "games.back_to_the_wall"
    label = "back_to_the_wall"
    verbose_name = "Back to the Wall"
