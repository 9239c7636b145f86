"""The optional extras: a module that needs one says which to install when its library is missing.

The core imports `attrs` only. A module that needs an optional library (NumPy for
`abyss_rules.batch`, Hypothesis for `abyss_rules.testing`, ...) calls `require` before
importing it, so that importing the module without its extra raises an `ImportError`
that names the extra, with the library's own `ImportError` as its cause.

Examples:
    >>> require("json", name="the standard library's json", extra="none", module="an example")
    >>> try:
    ...     require("no_such_library", name="NoSuch", extra="nosuch", module="abyss_rules.example")
    ... except ImportError as error:
    ...     print(str(error).replace(": ", ":\\n"))
    abyss_rules.example needs NoSuch, an optional dependency of abyss-rules:
    install it with  pip install 'abyss-rules[nosuch]'
"""

from __future__ import annotations

import importlib

__all__ = ["require"]


def require(library: str, *, name: str, extra: str, module: str) -> None:
    """Import `library` (for `module`), or raise an `ImportError` saying which extra to install.

    Args:
        library: The library's import name, e.g. `"numpy"`.
        name: Its name in words, e.g. `"NumPy"`.
        extra: The extra of abyss-rules that installs it, e.g. `"batch"`.
        module: The module that needs it, e.g. `"abyss_rules.batch"`.

    Raises:
        ImportError: The library cannot be imported; its own error is the cause.
    """
    try:
        importlib.import_module(library)
    except ImportError as error:
        raise ImportError(
            f"{module} needs {name}, an optional dependency of abyss-rules: "
            f"install it with  pip install 'abyss-rules[{extra}]'"
        ) from error
