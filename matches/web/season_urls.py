from django.urls import path

from matches.web import episode_views, season_views

urlpatterns = [
    path("seasons/", season_views.season_list, name="season_list"),
    path("seasons/<slug:slug>/", season_views.season_page, name="season_page"),
    path("seasons/<slug:slug>/ledger.csv", season_views.ledger_csv, name="season_ledger_csv"),
    path("seasons/<slug:slug>/standings.csv", season_views.standings_csv, name="season_standings_csv"),
    path("s/<token:token>/", season_views.season_manage, name="season_manage"),
    path("s/<token:token>/act/", season_views.season_act, name="season_act"),
    # a roster player's personal page (secret, like a seat link)
    path("me/<token:token>/", episode_views.personal_page, name="personal_page"),
    path("me/<token:token>/act/", episode_views.personal_act, name="personal_act"),
    path("me/<token:token>/poll/", episode_views.personal_poll, name="personal_poll"),
]
