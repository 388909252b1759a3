from django.urls import path

from matches.web import season_views

urlpatterns = [
    path("seasons/", season_views.season_list, name="season_list"),
    path("seasons/<slug:slug>/", season_views.season_page, name="season_page"),
    path("seasons/<slug:slug>/ledger.csv", season_views.ledger_csv, name="season_ledger_csv"),
    path("seasons/<slug:slug>/standings.csv", season_views.standings_csv, name="season_standings_csv"),
    path("s/<token:token>/", season_views.season_manage, name="season_manage"),
    path("s/<token:token>/act/", season_views.season_act, name="season_act"),
]
