from django.apps import AppConfig


class GridMasterConfig(AppConfig):
    name = "games.grid_master"
    label = "grid_master"
    verbose_name = "Grid Master"
