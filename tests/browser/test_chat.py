"""The match chat by clicks in headless Chromium (real daphne): a player asks the host in their
private thread, the host answers and announces, a spectator chats (on a phone, where the chat is
a tab at the bottom of the screen), the host removes the line and mutes the spectator, who is
told until when.  Players never see the spectators' room.  Screenshots: test-artifacts/chat-*.png
(desktop 1280x800, phone 390x844)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _say(page: Any, room: str, text: str) -> None:
    page.click(f"#chat-tab-{room}")
    page.fill(f"#chat-room-{room} .chat-text", text)
    page.click(f"#chat-room-{room} .chat-send")
    page.wait_for_selector(f"#chat-list-{room} li >> text={text}", timeout=TIMEOUT)
    # the box is cleared once the line is taken
    page.wait_for_function(f"document.querySelector('#chat-room-{room} .chat-text').value === ''", timeout=TIMEOUT)


def _unread(page: Any, room: str) -> str:
    page.wait_for_selector(f"#chat-tab-{room} .chat-unread:not([hidden])", timeout=TIMEOUT)
    return str(page.inner_text(f"#chat-tab-{room} .chat-unread"))


def test_chat_by_clicks_on_desktop_and_phone(start_match: StartMatch, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport=DESKTOP).new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    match = start_match("lance-assembly", ["Ann", "Bob"], host=host)
    links, watch_link = match.seats, match.watch
    ann = browser.new_context(viewport=DESKTOP).new_page()
    bob = browser.new_context(**PHONE).new_page()
    zed = browser.new_context(**PHONE).new_page()
    for page, url in ((ann, links[1]), (bob, links[2]), (zed, watch_link)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    wait_connected(host, ann, bob, zed)

    # Ann asks the host in her private thread (the first tab of her chat, beside the board)
    assert ann.is_visible("#chat") and ann.get_attribute("#chat-tab-seat-1", "aria-selected") == "true"
    _say(ann, "seat-1", "May I pass this turn?")
    # the arrow keys move in the chat box, not on the board
    ann.fill("#chat-room-seat-1 .chat-text", "ab")
    ann.press("#chat-room-seat-1 .chat-text", "ArrowLeft")
    ann.keyboard.type("X")
    assert ann.input_value("#chat-room-seat-1 .chat-text") == "aXb"
    assert ann.evaluate("document.activeElement.classList.contains('chat-text')")
    ann.fill("#chat-room-seat-1 .chat-text", "")
    # the host's console marks the thread unread, then shows it
    assert _unread(host, "seat-1") == "1"
    assert host.inner_text("#chat-unread-total") == "1"
    host.screenshot(path=str(ARTIFACTS / "chat-host-unread.png"))
    _say(host, "seat-1", "Yes: passing is allowed.")
    assert host.is_hidden("#chat-tab-seat-1 .chat-unread")
    ann.wait_for_selector("#chat-list-seat-1 li >> text=Yes: passing is allowed.", timeout=TIMEOUT)
    # the host announces to everyone: Bob's phone tab counts it
    _say(host, "announce", "Bout 1 starts at nine")
    bob.wait_for_selector(".chat-toggle .chat-unread:not([hidden])", timeout=TIMEOUT)
    assert bob.is_hidden("#chat")  # on a phone the chat waits behind its tab
    assert bob.inner_text(".chat-toggle .chat-unread") == "1"
    bob.click(".chat-toggle")
    bob.click("#chat-tab-announce")
    bob.wait_for_selector("#chat-list-announce li >> text=Bout 1 starts at nine", timeout=TIMEOUT)
    assert bob.query_selector("#chat-list-seat-1") is None  # Ann's thread is not on Bob's page
    bob.screenshot(path=str(ARTIFACTS / "chat-phone-player.png"))
    ann.wait_for_selector("#log-list >> text=announcement: Bout 1 starts at nine", timeout=TIMEOUT)

    # a spectator on a phone chooses a name once, then chats in the spectators' room
    zed.click(".chat-toggle")
    zed.click("#chat-tab-spectators")
    zed.fill("#chat-room-spectators input[name=name]", "Zed")
    zed.click("#chat-room-spectators .chat-name button")
    zed.wait_for_selector("#chat-room-spectators .chat-text", timeout=TIMEOUT)
    _say(zed, "spectators", "Bob holds the lance at F3")
    host.wait_for_selector("#chat-list-spectators li >> text=Bob holds the lance at F3", state="attached", timeout=TIMEOUT)
    assert _unread(host, "spectators") == "1"
    # the host may mute a new writer at once: their line puts them in the host's list
    host.wait_for_selector(".chat-mute-form select[name=writer] >> text=Zed (spectator)", state="attached",
                           timeout=TIMEOUT)
    zed.screenshot(path=str(ARTIFACTS / "chat-phone-spectator.png"))

    # the host removes the line and mutes Zed for 15 minutes with a reason
    host.click("#chat-tab-spectators")
    host.click("#chat-list-spectators li >> text=Remove")
    zed.wait_for_selector("#chat-list-spectators li.removed >> text=removed by the host", timeout=TIMEOUT)
    # the host's reply redraws their panel: the host opens the moderation once it has come (a click
    # whose press and release fall on either side of that redraw opens nothing)
    host.wait_for_selector("#chat-flash >> text=Message removed.", timeout=TIMEOUT)
    host.click(".chat-moderate summary")
    host.select_option(".chat-mute-form select[name=writer]", label="Zed (spectator)")
    host.select_option(".chat-mute-form select[name=duration]", "15")
    host.fill(".chat-mute-form input[name=reason]", "ghosting")
    host.click(".chat-mute-form button[type=submit]")
    host.wait_for_selector("#chat-flash >> text=Writer muted.", timeout=TIMEOUT)
    # the mute is done: its form is empty again, ready for the next one
    host.wait_for_function("document.querySelector('.chat-mute-form input[name=reason]').value === ''", timeout=TIMEOUT)
    zed.wait_for_selector("#chat-mute-note >> text=Reason: ghosting", timeout=TIMEOUT)
    assert "until" in zed.inner_text("#chat-mute-note")
    zed.fill("#chat-room-spectators .chat-text", "but I saw it")
    zed.click("#chat-room-spectators .chat-send")
    zed.wait_for_selector("#chat-error-spectators >> text=The host muted you", timeout=TIMEOUT)
    # the panel every page fetches after the mute may land after that error: the error stays
    zed.evaluate("""() => new Promise(done => {
        document.addEventListener("htmx:oobAfterSwap", e => { if (e.detail.target.id === "chat") done(); });
        htmx.ajax("GET", "chat/", {target: "#chat-stale", swap: "none"});
    })""")
    assert "The host muted you" in zed.inner_text("#chat-error-spectators")
    zed.screenshot(path=str(ARTIFACTS / "chat-phone-spectator-muted.png"))
    host.wait_for_selector("#log-list >> text=chat: host muted Zed for 15 minutes: ghosting", timeout=TIMEOUT)
    host.screenshot(path=str(ARTIFACTS / "chat-host.png"), full_page=True)

    # players never see the spectators' room: no tab, no line, not even after all of the above
    for player in (ann, bob):
        assert player.query_selector("#chat-room-spectators") is None
        assert "Bob holds the lance" not in player.content()
    ann.screenshot(path=str(ARTIFACTS / "chat-desktop-player.png"))
    assert not errors, errors


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_chat_options_on_the_create_form_and_lifting_a_mute(server: Server, browser: Any, device: str) -> None:
    """The host chooses the chat options on the "host a match" form (table off, spectators' room
    delayed to players), mutes a spectator and lifts the mute early: the spectator is told, then
    writes again.  Screenshots: test-artifacts/chat-options-*-<device>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    screen = {"viewport": DESKTOP} if device == "desktop" else PHONE

    def page_of() -> Any:
        page = browser.new_context(**screen).new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    def open_chat(page: Any) -> None:
        if device == "phone":
            page.click(".chat-toggle")

    host = page_of()
    host.goto(server.url + "/")
    host.fill('input[name="seat1"]', "Ann")
    host.fill('input[name="seat2"]', "Bob")
    host.select_option("#chat-table", "off")
    host.select_option("#chat-spectators", "delayed")
    host.locator("#chat-spectators").scroll_into_view_if_needed()
    host.screenshot(path=str(ARTIFACTS / f"chat-options-form-{device}.png"))
    host.click("#create-form button[type=submit]")
    host.wait_for_url("**/h/**")
    ann_link, watch_link = host.input_value("#seat-link-1"), host.input_value("#watch-link")
    ann, zed = page_of(), page_of()
    ann.goto(ann_link)
    zed.goto(watch_link)
    wait_connected(host, ann, zed)

    # the form's choices are the match's: no table, the spectators' room hidden from players
    for page in (host, ann):
        assert page.query_selector("#chat-tab-table") is None
    assert ann.query_selector("#chat-tab-spectators") is None
    open_chat(host)
    host.click(".chat-moderate summary")
    assert not host.is_checked(".chat-options-form input[name=table]")
    assert host.input_value(".chat-options-form select[name=spectators]") == "delayed"

    # a spectator chats, the host mutes them for the match, then lifts the mute early
    open_chat(zed)
    zed.click("#chat-tab-spectators")
    zed.fill("#chat-room-spectators input[name=name]", "Zed")
    zed.click("#chat-room-spectators .chat-name button")
    zed.wait_for_selector("#chat-room-spectators .chat-text", timeout=TIMEOUT)
    _say(zed, "spectators", "Ann bid 40 on E5")
    host.click("#chat-tab-spectators")
    host.wait_for_selector(".chat-mute-form select[name=writer] >> text=Zed (spectator)", state="attached",
                           timeout=TIMEOUT)  # offered as soon as Zed's line came
    host.click("#chat-list-spectators li >> text=Remove")
    host.wait_for_selector("#chat-flash >> text=Message removed.", timeout=TIMEOUT)
    host.select_option(".chat-mute-form select[name=writer]", label="Zed (spectator)")
    host.select_option(".chat-mute-form select[name=duration]", "match")
    host.fill(".chat-mute-form input[name=reason]", "ghosting")
    host.click(".chat-mute-form button[type=submit]")
    zed.wait_for_selector("#chat-mute-note >> text=for the rest of this match", timeout=TIMEOUT)
    lift = host.locator(".chat-unmute-form button >> text=Lift the mute of Zed")  # found again after a redraw
    lift.wait_for(timeout=TIMEOUT)
    assert "Zed is muted for the rest of this match" in host.inner_text(".chat-muted-list")
    # (no scrolling to it: the panel every page fetches after a mute may replace it meanwhile)
    host.screenshot(path=str(ARTIFACTS / f"chat-options-host-muted-{device}.png"), full_page=True)
    lift.click()
    host.wait_for_selector(".chat-muted-list", state="detached", timeout=TIMEOUT)  # nobody is muted now
    host.wait_for_selector("#log-list >> text=chat: host lifted the mute of Zed", state="attached", timeout=TIMEOUT)
    zed.wait_for_selector("#chat-mute-note", state="detached", timeout=TIMEOUT)
    _say(zed, "spectators", "Sorry, no more spoilers")
    host.wait_for_selector("#chat-list-spectators li >> text=Sorry, no more spoilers", state="attached",
                           timeout=TIMEOUT)
    zed.screenshot(path=str(ARTIFACTS / f"chat-options-spectator-unmuted-{device}.png"))
    assert "Sorry, no more spoilers" not in ann.content()
    assert not errors, errors


def test_a_chat_panel_fetched_before_the_latest_line_keeps_that_line(start_match: StartMatch, browser: Any) -> None:
    """The page fetches its whole chat panel again when the host changes the rooms or a mute; a line
    that arrived over the socket while that fetch was under way stays on the page (the panel was
    drawn before it).  The race is made by hand: the panel is fetched, a line arrives, then the
    fetched panel is swapped in as its reply would be."""
    errors: list[str] = []
    match = start_match("lance-assembly", ["Ann", "Bob"], host=browser.new_context(viewport=DESKTOP).new_page())
    host = match.host
    ann = browser.new_context(**PHONE).new_page()
    ann.on("pageerror", lambda exc: errors.append(str(exc)))
    ann.goto(match.seats[1])
    wait_connected(host, ann)
    _say(host, "seat-1", "Hello Ann")
    ann.wait_for_selector("#chat-list-seat-1 li >> text=Hello Ann", state="attached", timeout=TIMEOUT)
    stale = ann.evaluate("fetch('chat/', {headers: {'HX-Request': 'true'}}).then((r) => r.text())")
    assert 'id="chat"' in stale and "Hello Ann" in stale
    _say(host, "seat-1", "Your turn soon")
    ann.wait_for_selector("#chat-list-seat-1 li >> text=Your turn soon", state="attached", timeout=TIMEOUT)
    ann.evaluate("(html) => htmx.swap('#chat-stale', html, {swapStyle: 'none'})", stale)
    ann.wait_for_function("document.querySelector('#chat-list-seat-1') !== null")
    lines = ann.locator("#chat-list-seat-1 > li .chat-body").all_inner_texts()
    assert lines == ["Hello Ann", "Your turn soon"], lines
    assert not errors, errors
