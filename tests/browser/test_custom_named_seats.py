"""The home form creates a Host's game with the seats the host named (issue 56): two names typed
with the seat count left at its 4 make two seats, on a desktop and a phone.  Screenshots:
test-artifacts/custom-named-seats-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, Server

pytestmark = pytest.mark.browser

DEVICES: dict[str, dict[str, Any]] = {"desktop": {"viewport": {"width": 1280, "height": 800}},
           "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}


@pytest.mark.parametrize("device", DEVICES)
def test_two_names_on_the_home_form_make_a_two_seat_hosts_game(browser: Any, server: Server, device: str) -> None:
    page = browser.new_context(**DEVICES[device]).new_page()
    page.goto(server.url + "/")
    page.select_option("#game-select", "custom")
    assert page.input_value('input[name="opt-custom-seats"]') == "4"
    assert page.is_visible('input[name="seat4"]')  # the count's default shows four name fields
    assert page.is_visible("#seat-names-hint")
    page.fill('input[name="seat1"]', "Ann")
    page.fill('input[name="seat2"]', "Bob")
    page.locator("#seat-names-hint").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"custom-named-seats-form-{device}.png"))
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/h/**")
    links = page.eval_on_selector_all("input[id^=seat-link-]", "els => els.map(el => el.id)")
    assert links == ["seat-link-1", "seat-link-2"]
    host = page.inner_text("#main")
    assert "Ann" in host and "Bob" in host and "Player 3" not in host and "Player 4" not in host
    page.screenshot(path=str(ARTIFACTS / f"custom-named-seats-host-{device}.png"))
    page.context.close()
