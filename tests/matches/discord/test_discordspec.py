"""The checker the Discord tests rely on (tests/discordspec.py) refuses what Discord refuses: were it
to take anything, every test that goes through it would prove nothing."""

from __future__ import annotations

from tests import discordspec

MESSAGE = {"content": "hi", "flags": 64, "allowed_mentions": {"parse": []}}


def test_each_interaction_type_takes_only_its_callback_types() -> None:
    assert discordspec.callback(4, 200, {"type": 4, "data": MESSAGE})  # the autocomplete answer
    assert discordspec.callback(4, 200, {"type": 8, "data": {"choices": []}}) == []
    assert discordspec.callback(1, 200, {"type": 4, "data": MESSAGE})
    assert discordspec.callback(1, 200, {"type": 1}) == []
    assert discordspec.callback(2, 200, {"type": 7, "data": MESSAGE})  # 6 and 7: components only
    assert discordspec.callback(3, 200, {"type": 7, "data": MESSAGE}) == []
    assert discordspec.callback(5, 200, {"type": 9, "data": {}})  # no form in answer to a form
    assert discordspec.callback(2, 429, {"type": 4, "data": MESSAGE})


def test_messages_keep_discords_limits() -> None:
    assert discordspec.message(MESSAGE, flags=discordspec.CALLBACK_FLAGS) == []
    assert discordspec.message({**MESSAGE, "content": "x" * 2001}, flags=discordspec.CALLBACK_FLAGS)
    assert discordspec.message({**MESSAGE, "content": ""}, flags=discordspec.CALLBACK_FLAGS)
    assert discordspec.message(MESSAGE, flags=discordspec.MESSAGE_FLAGS)  # a DM cannot be ephemeral
    assert discordspec.message({**MESSAGE, "allowed_mentions": {"parse": ["all"]}}, flags=discordspec.CALLBACK_FLAGS)
    assert discordspec.callback(4, 200, {"type": 8, "data": {"choices": [{"name": "x", "value": "x"}] * 26}})


def test_requests_need_discords_headers_and_shapes() -> None:
    headers = {"User-Agent": "DiscordBot (https://example.org, 1.0)", "Content-Type": "application/json",
               "Authorization": "Bot t"}
    assert discordspec.request("open-dm", "POST", headers, {"recipient_id": "1500000000000000001"}) == []
    assert discordspec.request("open-dm", "POST", headers, {"recipient_id": 1500000000000000001})
    assert discordspec.request("open-dm", "POST", {**headers, "User-Agent": "python-httpx/0.28"},
                               {"recipient_id": "1"})
    assert discordspec.request("send", "POST", {**headers, "Authorization": ""}, {"content": "hi"})
    assert discordspec.request("followup", "POST", headers, MESSAGE)  # a follow-up carries no bot token
    optional_first = [{"name": "deathmatch", "description": "d", "options": [
        {"type": 1, "name": "new", "description": "d", "options": [
            {"type": 3, "name": "a", "description": "d"}, {"type": 3, "name": "b", "description": "d",
                                                          "required": True}]}]}]
    assert discordspec.request("commands", "PUT", headers, optional_first)


def test_oauth_requests_need_the_code_grant_s_shapes() -> None:
    query = {"client_id": "1100000000000000001", "response_type": "code", "scope": "identify",
             "state": "s", "redirect_uri": "https://dm.example.org/accounts/discord/login/callback/"}
    assert discordspec.request("authorize", "GET", {}, query) == []
    assert discordspec.request("authorize", "GET", {}, {**query, "scope": "identify email"})
    assert discordspec.request("authorize", "GET", {}, {**query, "response_type": "token"})
    assert discordspec.request("authorize", "GET", {}, {k: v for k, v in query.items() if k != "state"})
    form = {"grant_type": "authorization_code", "code": "c", "redirect_uri": query["redirect_uri"],
            "client_id": query["client_id"], "client_secret": "x"}
    headers = {"User-Agent": "DiscordBot (https://example.org, 1.0)",
               "Content-Type": "application/x-www-form-urlencoded"}
    assert discordspec.request("token", "POST", headers, form) == []
    assert discordspec.request("token", "POST", {**headers, "Content-Type": "application/json"}, form)
    assert discordspec.request("token", "POST", headers, {**form, "client_secret": ""})
    assert discordspec.request("token", "POST", {**headers, "Authorization": "Bot t"}, form)
    assert discordspec.request("me", "GET", {**headers, "Authorization": "Bearer b"}, None) == []
    assert discordspec.request("me", "GET", headers, None)
