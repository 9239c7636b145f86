"""Colour arithmetic for the picture tests: CIE L*a*b* of sRGB colours, colour-vision-deficiency
simulation (Machado, Oliveira and Fernandes 2009, severity 1, on linear RGB), greyscale, contrast.

The same matrices turn a screenshot into what a deuteranope or a protanope sees (each pixel
times the matrix); on the palette itself they give the colours those pixels would have.
"""

from __future__ import annotations

import math

MACHADO = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}


def _linear(colour: str) -> tuple[float, float, float]:
    out = []
    for i in (1, 3, 5):
        c = int(colour[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out[0], out[1], out[2]


def _encode(rgb: tuple[float, float, float]) -> str:
    parts = []
    for x in rgb:
        x = min(1.0, max(0.0, x))
        parts.append(round(255 * (12.92 * x if x <= 0.0031308 else 1.055 * x ** (1 / 2.4) - 0.055)))
    return "#{:02x}{:02x}{:02x}".format(*parts)


def simulate(colour: str, kind: str) -> str:
    """`colour` as a reader with `kind` of colour blindness sees it."""
    r, g, b = _linear(colour)
    m = MACHADO[kind]
    return _encode((m[0][0] * r + m[0][1] * g + m[0][2] * b, m[1][0] * r + m[1][1] * g + m[1][2] * b,
                    m[2][0] * r + m[2][1] * g + m[2][2] * b))


def luminance(colour: str) -> float:
    r, g, b = _linear(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def lab(colour: str) -> tuple[float, float, float]:
    r, g, b = _linear(colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def lightness(colour: str) -> float:
    """CIE L*: what is left of a colour in greyscale print."""
    return lab(colour)[0]


def delta_e(a: str, b: str) -> float:
    """CIE76 colour difference (about 2.3 is just noticeable; 10 reads apart at a glance)."""
    return math.dist(lab(a), lab(b))


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two colours (4.5 is the minimum for normal text)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
