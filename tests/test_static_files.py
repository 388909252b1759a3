"""Issue 56: in production (DJANGO_DEBUG=0) the static files carry hashed names and gzip/Brotli
copies that WhiteNoise serves, cached as immutable; the Dockerfile's collectstatic builds them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_production_collectstatic_writes_hashed_compressed_files(tmp_path: Path) -> None:
    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "test-only-" + "x" * 50,
           "DJANGO_STATIC_ROOT": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    app = manifest["css/app.css"]
    assert app != "css/app.css" and app.startswith("css/app.") and (tmp_path / app).exists()
    for name in ("css/app.css", "js/live.js"):
        hashed = tmp_path / manifest[name]
        assert (tmp_path / (manifest[name] + ".gz")).stat().st_size < hashed.stat().st_size
    # the pages name the hashed file
    rendered = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.templatetags.static import static; print(static('css/app.css'))"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.strip()
    assert rendered.endswith(app)
