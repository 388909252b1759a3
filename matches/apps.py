from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    default_auto_field = "django.db.models.BigAutoField"
