"""The proxy template (config/nginx/deathmatch.conf.template) is a configuration nginx accepts
(`nginx -t`), rendered as the local cluster renders it, and as compose does when this nginx knows
`resolve` (1.27.3 and later: the official image; Debian 12's 1.22 does not).  The chaos tests run it
(tests/chaos/test_cluster.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.chaos.cluster import NGINX, Nginx, render, upstream_servers
from tests.reliability.test_proxy_failover import compose_server_options


def nginx_version() -> tuple[int, ...]:
    assert NGINX is not None
    out = subprocess.run([NGINX, "-v"], capture_output=True, text=True).stderr
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in found.groups()) if found else (0,)


pytestmark = pytest.mark.skipif(NGINX is None,
                                reason="nginx is not installed (.ci/install --test installs it)")


def test_the_cluster_rendering_passes_nginx_t(tmp_path: Path) -> None:
    proxy = Nginx(tmp_path, [8001, 8002, 8003])
    checked = proxy.check()
    assert checked.returncode == 0, checked.stderr
    site = (proxy.prefix / "deathmatch.conf").read_text()
    assert "${" not in site.replace("${dm_", "")  # every DEATHMATCH_ variable was given a value
    assert len(re.findall(r"^\s*server 127\.0\.0\.1:\d+ ", site, re.MULTILINE)) == 3


def test_the_compose_rendering_passes_nginx_t(tmp_path: Path) -> None:
    if nginx_version() < (1, 27, 3):
        pytest.skip("this nginx has no `resolve` for upstream servers (compose's official image has)")
    proxy = Nginx(tmp_path, [8001])
    (proxy.prefix / "deathmatch.conf").write_text(render({
        "DEATHMATCH_LISTEN": "80",
        "DEATHMATCH_UPSTREAM_SERVERS": f"server web:8000 resolve {compose_server_options()};",
        "DEATHMATCH_RESOLVER": "127.0.0.11", "DEATHMATCH_STATIC_ROOT": str(tmp_path)}))
    checked = proxy.check()
    assert checked.returncode == 0, checked.stderr


def test_a_variable_without_a_value_is_an_error() -> None:
    with pytest.raises(KeyError, match="DEATHMATCH_STATIC_ROOT"):
        render({"DEATHMATCH_LISTEN": "80", "DEATHMATCH_UPSTREAM_SERVERS": upstream_servers([1]),
                "DEATHMATCH_RESOLVER": "127.0.0.1"})
