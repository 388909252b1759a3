"""Issues 25 and 26 in a real browser: players and spectators, on desktop (1280x800) and phone
(390x844), see how many are watching and each seat online or offline, live as pages open and
close; the host, who asked on the create form to be alerted after 2 s, gets an alert naming the
seat and how long it has been away (the in-process clock sweeper decides), gone when it is back.
Screenshots in test-artifacts/ (presence-*.png)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected, wait_refused

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _shot(page: Any, name: str, element: str | None = None) -> None:
    if element:
        page.locator(element).scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"presence-{name}.png"))


def _count_is(page: Any, count: int) -> None:
    page.wait_for_function("(n) => document.querySelector('#spectator-count')?.textContent.trim() === n",
                           arg=str(count), timeout=TIMEOUT)


def _seat_is(page: Any, seat: int, state: str) -> None:
    page.wait_for_selector(f'#watching li.{state}[data-seat="{seat}"]', timeout=TIMEOUT)
    assert page.inner_text(f'#watching li[data-seat="{seat}"] .online-state') == state


def test_players_and_spectators_see_who_is_here_and_the_host_is_alerted(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport=DESKTOP).new_page()
    host.goto(server.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.fill('input[name="seat1"]', "Ann")
    host.fill('input[name="seat2"]', "Bob")
    host.fill("#away_alert", "9e9")  # refused, with a clear message, and nothing created
    host.click("button[type=submit]")
    wait_refused(host)
    assert "must be at most 604800 seconds (a week)" in host.inner_text("#form-error")
    assert host.get_attribute("#away_alert", "aria-invalid") == "true"
    host.fill("#away_alert", "2")
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    links = {n: host.input_value(f"#seat-link-{n}") for n in (1, 2)}
    watch = host.input_value("#watch-link")
    host.click("#host-start")

    def open_page(url: str, phone: bool) -> Any:
        context = (browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True) if phone
                   else browser.new_context(viewport=DESKTOP))
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        wait_connected(page)
        return page

    ann = open_page(links[1], phone=False)
    bob = open_page(links[2], phone=True)
    desk_watcher = open_page(watch, phone=False)
    for page in (ann, bob, desk_watcher):
        _count_is(page, 1)
        _seat_is(page, 1, "online")
        _seat_is(page, 2, "online")
    # a second spectator, on a phone: the count goes up on every page
    phone_watcher = open_page(watch, phone=True)
    for page in (ann, bob, desk_watcher, phone_watcher):
        _count_is(page, 2)
    _shot(ann, "player-desktop-two-watching")
    _shot(phone_watcher, "spectator-phone-two-watching", "#watching")
    # the desktop spectator leaves: the count goes down
    desk_watcher.context.close()
    for page in (ann, bob, phone_watcher):
        _count_is(page, 1)
    _shot(bob, "player-phone-one-watching", "#watching")

    # Ann's page closes: Bob and the spectator see her offline; the host (on both their computer and
    # their phone) is alerted after 2 s
    host_phone = open_page(host.url, phone=True)
    ann.context.close()
    for page in (bob, phone_watcher):
        _seat_is(page, 1, "offline")
        assert "has had no page open" not in page.content() and "disconnected for" not in page.content()
    alert = host.locator('#away-alerts [role="alert"][data-seat="1"]')
    alert.wait_for(state="visible", timeout=TIMEOUT)
    assert "Ann (seat 1) has had no page open for" in alert.inner_text()
    host.wait_for_function(
        "() => /\\d:\\d\\d$/.test(document.querySelector('#away-alerts .away-time').textContent.trim())",
        timeout=TIMEOUT)  # how long, counting on
    box = alert.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= DESKTOP["height"]  # in view
    _shot(bob, "player-phone-seat-offline", "#watching")
    _shot(phone_watcher, "spectator-phone-seat-offline", "#watching")
    _shot(host, "host-desktop-alert")
    phone_alert = host_phone.locator('#away-alerts [role="alert"][data-seat="1"]')
    phone_alert.wait_for(state="visible", timeout=TIMEOUT)
    box = phone_alert.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]  # in view
    _shot(host_phone, "host-phone-alert")

    # Ann is back (on a phone now): online again everywhere, and the host's alert goes
    ann = open_page(links[1], phone=True)
    for page in (bob, phone_watcher, ann):
        _seat_is(page, 1, "online")
    alert.wait_for(state="detached", timeout=TIMEOUT)
    phone_alert.wait_for(state="detached", timeout=TIMEOUT)
    _shot(ann, "player-phone-back", "#watching")
    assert not errors, errors
    for page in (host, host_phone, ann, bob, phone_watcher):
        page.context.close()
