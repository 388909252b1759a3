from django.apps import AppConfig


class LanceAssemblyConfig(AppConfig):
    name = "games.lance_assembly"
    label = "lance_assembly"
    verbose_name = "Lance Assembly"
