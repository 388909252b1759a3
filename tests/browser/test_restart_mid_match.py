"""Two web processes behind the repository's nginx (tests/chaos/cluster.py): both are restarted, one
after the other (SIGTERM: each drains, config/drain.py), in the middle of a match.  The players'
pages reconnect by themselves (close code 1012), catch up and keep playing: no reload (a mark left
on each page's window is still there at the end)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.chaos.cluster import NGINX, Cluster
from tests.chaos.conftest import RedisServer

from .conftest import TIMEOUT, _migrated, cell, skip_without_browser, wait_connected

pytestmark = [pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    skip_without_browser()
    if shutil.which("redis-server") is None or NGINX is None:
        pytest.skip("redis-server and nginx are needed")
    workdir = tmp_path_factory.mktemp("restart")
    db = workdir / "db.sqlite3"
    shutil.copyfile(_migrated(), db)
    redis = RedisServer(workdir)
    running = Cluster(workdir, f"sqlite:///{db}", redis.url, procs=2)
    yield running
    running.stop()
    redis.kill()


def test_players_keep_playing_through_a_restart_of_every_web_process(cluster: Cluster, browser: Any) -> None:
    host = browser.new_context().new_page()
    host.goto(cluster.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    p1 = browser.new_context().new_page()
    p2 = browser.new_context().new_page()
    p1.goto(host.input_value("#seat-link-1"))
    p2.goto(host.input_value("#seat-link-2"))
    wait_connected(host, p1, p2)
    host.click("#host-start")
    p1.wait_for_selector(cell("A1"), timeout=TIMEOUT)
    p1.click('#board .cell[data-coord="C3"]')
    p1.click("#move-submit")
    p2.wait_for_selector(cell("C3", "R"), timeout=TIMEOUT)
    for page in (p1, p2):
        page.evaluate("() => { window.notReloaded = true; }")

    for index in range(len(cluster.web)):  # every process, so surely the ones the pages were on
        cluster.restart(index)
    wait_connected(p1, p2)

    p2.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    p2.click('#board .cell[data-coord="D4"]')
    p2.click("#move-submit")
    p1.wait_for_selector(cell("D4", "B"), timeout=TIMEOUT)
    p1.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    p1.click('#board .cell[data-coord="E5"]')
    p1.click("#move-submit")
    p2.wait_for_selector(cell("E5", "R"), timeout=TIMEOUT)
    for page in (p1, p2):
        assert page.evaluate("() => window.notReloaded === true")
        assert page.inner_text("#move-error").strip() == ""


def test_a_move_whose_answer_was_lost_is_sent_again_and_applied_once(cluster: Cluster, browser: Any) -> None:
    """The proxy answers 502 to a move the server did apply (its process died before answering):
    the page sends it again with the same version (static/js/retry.js), and the server answers the
    repeat as done, not "the board changed"."""
    host = browser.new_context().new_page()
    host.goto(cluster.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    p1 = browser.new_context().new_page()
    p2 = browser.new_context().new_page()
    p1.goto(host.input_value("#seat-link-1"))
    p2.goto(host.input_value("#seat-link-2"))
    wait_connected(host, p1, p2)
    host.click("#host-start")
    p1.wait_for_selector(cell("A1"), timeout=TIMEOUT)
    posts: list[str] = []

    def lose_the_first_answer(route: Any) -> None:
        posts.append(route.request.post_data or "")
        answer = route.fetch()  # the server applies it
        if len(posts) == 1:
            route.fulfill(status=502, body="<html>502 Bad Gateway</html>")
        else:
            route.fulfill(response=answer)

    p1.route("**/move/", lose_the_first_answer)
    p1.click('#board .cell[data-coord="C3"]')
    with p1.expect_response(lambda r: r.url.endswith("/move/") and r.status == 200, timeout=TIMEOUT):
        p1.click("#move-submit")
    p2.wait_for_selector(cell("C3", "R"), timeout=TIMEOUT)
    assert len(posts) == 2 and posts[0] == posts[1], posts  # sent again as it was: the same version
    p1.wait_for_selector("#move-error[hidden]", state="attached", timeout=TIMEOUT)
    assert p1.inner_text("#move-error").strip() == ""
    token = host.url.rstrip("/").rsplit("/", 1)[1]
    moves = cluster.web[0].manage("from matches.models import TurnLog; "
                                  f"print(TurnLog.objects.filter(match__host_token={token!r}, kind='move').count())")
    assert moves.strip().splitlines()[-1] == "1"
