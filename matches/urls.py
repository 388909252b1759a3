from django.urls import path

from . import replay_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("new/board/", views.board_check, name="board_check"),
    path("p/<str:token>/", views.player_page, name="player_page"),
    path("p/<str:token>/move/", views.player_move, name="player_move"),
    path("w/<str:token>/", views.watch_page, name="watch_page"),
    path("h/<str:token>/", views.host_page, name="host_page"),
    path("h/<str:token>/act/", views.host_act, name="host_act"),
    path("f/<str:token>/", views.fragments, name="fragments"),
    path("staff/matches/<int:match_id>/", views.staff_host, name="staff_host"),
    *replay_views.urlpatterns,  # bouts/<n>/ replays and .txt records under each audience's link
]
