"""Command-line argument types the benchmark scripts share (imported from beside them)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse `type` for an int of at least `minimum`: a smaller one is argparse's usage
    error (exit 2) before anything runs."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = "int"  # (argparse names the type in its message for a non-int)
    return parse
