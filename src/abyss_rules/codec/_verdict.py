"""`verdict` documents: a server's answer to an action message (see `abyss_rules.protocol`).

The document's layout is the table `VERDICT`, written from the fields of the verdict object
given to it (`abyss_rules.protocol.Verdict` pairs it with its class); a verdict is written
only, never read by the library.
"""

from __future__ import annotations

from typing import Any, Final

from ._action import ACTION
from ._layout import Field, Layout
from ._spelling import BOOL, OPT_INT, STR

VERDICT: Final = Layout("verdict", (
    Field("legal", BOOL),
    Field("code", STR, get="None if {o}.code is None else str({o}.code)"),  # a plain str, as parsed
    Field("rule", STR),
    Field("message", STR),
    Field("seq", OPT_INT),
    Field("path", STR),
    Field("request_id", STR, optional=True),
    Field("action", ACTION.spelled(), optional=True),
), document="verdict")
"""The layout of a `verdict` document; `request_id` and `action` appear only when the verdict has them."""


def verdict_data(verdict: Any) -> dict[str, Any]:
    """The `verdict` document of the verdict object `verdict` as JSON-ready data."""
    return VERDICT.function("data")(verdict)  # type: ignore[no-any-return]


def verdict_text(verdict: Any) -> str:
    """The canonical text of the `verdict` document of the verdict object `verdict`."""
    return VERDICT.function("text")(verdict)  # type: ignore[no-any-return]
