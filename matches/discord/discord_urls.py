from django.urls import path

from matches.discord import interactions

urlpatterns = [
    path("interactions/", interactions.interactions, name="discord_interactions"),
]
