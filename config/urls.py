from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("admin/", admin.site.urls),
    # browsers ask for /favicon.ico whatever the page says: send them the page's icon
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("", include("matches.web.urls")),
    path("", include("matches.web.season_urls")),
    path("discord/", include("matches.discord.discord_urls")),
    # Sign in with Discord: allauth's pages (Discord only: config/discord_signin/)
    path("accounts/", include("allauth.urls")),  # Discord's interactions endpoint (404 unless configured)
]
