"""Types of the C extension `_seat_encode.c` (built with the wheel; see hatch_build.py)."""

from typing import Any

def encode_into(out: Any, seat: int, fields: tuple[Any, ...], consts: tuple[Any, ...], up: bytes,
                gone: bytes, /) -> None: ...
