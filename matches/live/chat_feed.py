"""Each chat change goes only to the audiences that read its room (chatrooms.audiences_of): a new
line appended to `#chat-list-<room>`, a removed one replacing itself by id, a change of the rooms
as `#chat-stale` (static/js/chat.js fetches the panel again).  The spectators' room never goes to
a seat, a private thread never to another seat or to spectators."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.core import HOST, SPECTATOR
from matches.core import chatrooms
from matches.core.audiences import group_name, viewer_label
from matches.core.events import Chatted
from matches.live import fanout, presence
from matches.pages.chat_panel import line


def prepare(chatted: Chatted) -> list[tuple[str, dict[str, Any]]]:
    """[(group, message)] for a chat change: only the audiences that read the room."""
    from matches.models import ChatMessage, Match

    match = Match.objects.filter(pk=chatted.match_id).first()
    if match is None:
        return []
    opts = chatrooms.options(match)
    if chatted.message_id is None:  # the rooms changed: every page fetches its panel again
        stamp = int(timezone.now().timestamp() * 1000)
        html = f'<div id="chat-stale" hx-swap-oob="true" data-stamp="{stamp}" hidden></div>'
        viewers = [HOST, SPECTATOR, *range(1, match.seat_count + 1)]
        return [(group_name(match.pk, v), {"html": html}) for v in viewers]
    message = ChatMessage.objects.filter(pk=chatted.message_id, match_id=match.pk).first()
    if message is None:
        return []
    viewers = chatrooms.audiences_of(match, message.room, opts)
    open_ = presence.open_audiences(match.pk, [viewer_label(v) for v in viewers])
    if open_ is not None:
        viewers = [v for v in viewers if viewer_label(v) in open_]
    drawn: dict[bool, str] = {}
    out = []
    for viewer in viewers:
        host = viewer == HOST
        if host not in drawn:
            li = line(message, host=host)
            drawn[host] = (li.replace("<li ", '<li hx-swap-oob="true" ', 1) if chatted.removed
                           else f'<ol hx-swap-oob="beforeend:#chat-list-{message.room}">{li}</ol>')
        out.append((group_name(match.pk, viewer), {"html": drawn[host]}))
    return out


def notify(chatted: Chatted) -> None:
    """The `events.subscribe_chat` subscriber: draw the change and send it (after commit)."""
    messages = prepare(chatted)
    if messages:
        fanout.send_soon(messages)
