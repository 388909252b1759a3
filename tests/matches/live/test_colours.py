"""Seat colours stay distinguishable under the common colour blindnesses.

Red (seat 1) and blue (seat 2) from static/css/app.css are simulated for
protanopia, deuteranopia and tritanopia (Machado et al. 2009, full severity,
in linear RGB) and compared in CIELAB.  Their lightness is close, so in grey
they look alike: that is why tiles also carry a letter (R/B) and a shape
(round/square), which the template test below checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[3] / "static/css/app.css"
LANCE_CSS = Path(__file__).resolve().parents[3] / "games/lance_assembly/static/lance_assembly/lance.css"
MACHADO = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _linear(hex_colour: str) -> list[float]:
    out = []
    for i in (1, 3, 5):
        c = int(hex_colour[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x, y, z = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, \
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _seat(n: int) -> str:
    found = re.search(rf"--p{n}:\s*(#[0-9a-fA-F]{{6}})", CSS.read_text())
    assert found, f"--p{n} not found in app.css"
    return found.group(1)


@pytest.mark.parametrize("kind", [None, *MACHADO])
def test_red_and_blue_differ_under_colour_blindness(kind: str | None) -> None:
    labs = []
    for colour in (_seat(1), _seat(2)):
        rgb = _linear(colour)
        if kind:
            m = MACHADO[kind]
            rgb = [min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3)]
        labs.append(_lab(rgb))
    delta = sum((a - b) ** 2 for a, b in zip(*labs, strict=True)) ** 0.5
    assert delta > 40, f"{kind}: seat colours only {delta:.0f} apart (CIE76)"


def test_tiles_carry_a_letter_and_a_shape_not_only_a_colour() -> None:
    css, lance = CSS.read_text(), LANCE_CSS.read_text()  # Lance Assembly's look lives with the game
    assert ".lance .cell .piece-in { font-size: 0; }" not in css + lance  # the R / B letters are shown
    assert re.search(r"\.lance \.cell\.p2 \.piece-in \{ border-radius: 22%", lance)  # blue tiles are square
    assert re.search(r"\.seat-2 \.dot \{ border-radius: 2px", css)  # and so are blue seat marks
