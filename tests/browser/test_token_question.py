"""The Token of Life question by clicks (issue 25), in headless Chromium against a real daphne.
Xavi holds a Token of Life and forfeits the elimination match: the host's panel (desktop) asks;
"Don't use it" is confirmed in a sentence naming the consequence and the elimination stands;
reopening the match takes the answer back, the forfeit asks again, and this time the season's
manage page on a phone answers "Use the token": Xavi is saved, and the host's panel stops asking
at once.  The manage page's "eliminate" asks first and a dismissed confirmation changes nothing;
a confirmed one (and garnets deducted on the phone) is taken back by its message's Undo.
Screenshots go to test-artifacts/."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, season_act

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


class Dialogs:
    """Answers each confirm() with the next answer, and keeps what it asked."""

    def __init__(self, page: Any) -> None:
        self.asked: list[str] = []
        self.answers: list[bool] = []
        page.on("dialog", self._answer)

    def _answer(self, dialog: Any) -> None:
        self.asked.append(dialog.message)
        if self.answers.pop(0) if self.answers else True:
            dialog.accept()
        else:
            dialog.dismiss()


def _status(page: Any, name: str) -> str:
    result: str = page.inner_text(f'#standings tr[data-player="{name}"] .status-badge').strip()
    return result


def test_the_host_answers_the_token_of_life_question_by_clicks(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport=DESKTOP).new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    asked = Dialogs(host)
    host.goto(server.url + "/seasons/")
    host.fill("#season-name", "Season 3")
    with host.expect_navigation():
        host.click("#create-season")
    manage = host.url
    for name in ("Ann", "Xavi", "Cy"):
        season_act(host, {"#add-name": name}, "#add-player")
    assert "Xavi receives a Token of Life" in season_act(host, {"#token-player": "Xavi"}, "#token-grant")

    # "eliminate" names its consequence; dismissed, nothing changes
    asked.answers = [False]
    host.select_option("#status-player", label="Cy")
    host.select_option("#status-value", label="eliminated")
    host.click("#status-submit")
    assert asked.asked[-1] == "Cy is eliminated from Season 3."
    assert _status(host, "Cy") == "active"
    # confirmed, it is done, and its message offers an Undo for 30 s: Cy is back as she was
    with host.expect_navigation():
        host.click("#status-submit")
    assert "Cy is eliminated" in host.inner_text(".season-messages") and _status(host, "Cy") == "eliminated"
    host.screenshot(path=str(ARTIFACTS / "season-undo-desktop.png"))
    with host.expect_navigation():
        host.click("#season-undo")
    assert "undone: Cy is eliminated (Cy is active again)" in host.inner_text(".season-messages")
    assert _status(host, "Cy") == "active" and host.locator("#season-undo").count() == 0

    host.check("#match-elimination")
    season_act(host, {"#match-game": "Squava (2 players)", "#match-seat1": "Ann", "#match-seat2": "Xavi",
                "#match-seat3": "—", "#match-seat4": "—"}, "#create-match")
    host.click("#matches li:has-text('elimination match') .host-link")
    host.wait_for_url("**/h/**")
    host.click("#host-start")
    host.wait_for_selector("#host-forfeit-match", timeout=TIMEOUT)

    def forfeit_xavi() -> None:
        host.select_option("form:has(#host-forfeit-match) select[name=seat]", label="Xavi")
        host.click("#host-forfeit-match")
        host.wait_for_selector("#host-token-questions", timeout=TIMEOUT)

    # the host's panel asks at the match's end; "Don't use it": the elimination stands
    forfeit_xavi()
    assert "Xavi lost this elimination match and holds a Token of Life" in host.inner_text("#host-token-questions")
    assert "Xavi holds a Token of Life: answer under Moderation" in host.inner_text("#banner")
    host.screenshot(path=str(ARTIFACTS / "token-question-host.png"), full_page=True)
    host.click("#host-token-questions button[value=keep]")
    host.wait_for_selector("#host-token-questions", state="detached", timeout=TIMEOUT)
    assert asked.asked[-1] == "Xavi keeps the Token of Life and is eliminated from Season 3."
    # (the live update that removes the question may land before the answer to the click, its flash)
    host.wait_for_selector('#host-flash:has-text("Xavi does not use a Token of Life: the elimination stands")',
                           timeout=TIMEOUT)

    # reopening takes the answer back; the forfeit asks again
    host.click("#host-reopen")
    host.wait_for_selector("#host-forfeit-match", timeout=TIMEOUT)
    forfeit_xavi()

    # the manage page on a phone answers "Use the token"; the host's panel stops asking
    phone = browser.new_context(**PHONE).new_page()
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    on_phone = Dialogs(phone)
    phone.goto(manage)
    assert _status(phone, "Xavi") == "eliminated unless the Token of Life is used"
    phone.screenshot(path=str(ARTIFACTS / "token-question-manage-phone.png"))
    with phone.expect_navigation():
        phone.tap("#questions button[value=use]")
    assert on_phone.asked == ["Xavi uses the Token of Life and stays in Season 3."]
    assert "Xavi is saved from elimination by a Token of Life" in phone.inner_text(".season-messages")
    assert _status(phone, "Xavi") == "active" and phone.locator("#questions").count() == 0
    phone.screenshot(path=str(ARTIFACTS / "token-question-answered-phone.png"))
    # garnets deducted on the phone, then taken back from the message's Undo
    phone.fill("#garnets-amount", "2")
    phone.fill("#garnets-reason", "late")
    phone.select_option("#garnets-player", label="Ann")
    phone.select_option("#garnets-sign", "deduct")
    phone.check("#garnets-negative")
    with phone.expect_navigation():
        phone.tap("#garnets-submit")
    assert "Ann -2 garnet(s) recorded" in phone.inner_text(".season-messages")
    phone.screenshot(path=str(ARTIFACTS / "season-undo-phone.png"))
    with phone.expect_navigation():
        phone.tap("#season-undo")
    assert "undone: Ann -2 garnets" in phone.inner_text(".season-messages")
    host.wait_for_selector("#host-token-questions", state="detached", timeout=TIMEOUT)
    host.screenshot(path=str(ARTIFACTS / "token-question-host-answered.png"), full_page=True)
    assert errors == []
