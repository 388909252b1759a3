from django.urls import path

from matches.web import (
    chat_views,
    mine_views,
    practice,
    replay_views,
    rules_views,
    views,
)

urlpatterns = [
    path("", views.home, name="home"),
    path("practice/", practice.practice, name="practice"),
    path("new/board/", views.board_check, name="board_check"),
    path("p/<token:token>/", views.player_page, name="player_page"),
    path("p/<token:token>/move/", views.player_move, name="player_move"),
    path("p/<token:token>/request/", views.player_request, name="player_request"),
    path("w/<token:token>/", views.watch_page, name="watch_page"),
    path("h/<token:token>/", views.host_page, name="host_page"),
    path("h/<token:token>/act/", views.host_act, name="host_act"),
    path("h/<token:token>/end-preview/", views.host_end_preview, name="host_end_preview"),
    path("f/<token:token>/", views.fragments, name="fragments"),
    path("staff/matches/<int:match_id>/", views.staff_host, name="staff_host"),
    *chat_views.urlpatterns,  # the match chat under each audience's link
    *rules_views.urlpatterns,  # How to play: /rules/ and /rules/<slug>/, each game's own text
    *replay_views.urlpatterns,  # bouts/<n>/ replays and .txt records under each audience's link
    *mine_views.urlpatterns,  # /mine/: a player signed in with Discord finds their seasons and matches
]
