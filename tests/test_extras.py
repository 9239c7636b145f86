"""abyss_rules._extras: a module whose optional library is missing says which extra to install.

Each case runs a fresh interpreter in which the library cannot be imported: the core still
works without it (and does not import it), and importing the module raises an `ImportError`
that names the library and the extra, caused by the library's own `ModuleNotFoundError`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

# (library, module needing it, the library's name in the message, its extra, core use first)
CASES = [
    ("numpy", "abyss_rules.batch", "NumPy", "batch",
     "from abyss_rules.action_space import ActionSpace\n"
     "ActionSpace(abyss_rules.Variant.standard()).mask(abyss_rules.new_game(2, seed=1), 0)"),
    ("hypothesis", "abyss_rules.testing", "Hypothesis", "testing", "abyss_rules.new_game(2, seed=1)"),
]


def _python(code: str) -> str:
    """What `code` prints when a fresh interpreter runs it (its imports start from nothing)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          timeout=60).stdout


@pytest.mark.parametrize(("library", "module", "name", "extra", "core_use"), CASES)
def test_without_its_library_the_import_error_says_what_to_install(
        library: str, module: str, name: str, extra: str, core_use: str) -> None:
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {library!r} or name.startswith({library + '.'!r}):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import abyss_rules\n"
        f"{core_use}\n"
        f"assert {library!r} not in sys.modules\n"
        "try:\n"
        f"    import {module}\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, '|', error, '|', type(error.__cause__).__name__)\n"
        "else:\n"
        "    print('imported')\n"
    )
    kind, message, cause = (part.strip() for part in _python(code).split("|"))
    assert kind == "ImportError" and cause == "ModuleNotFoundError"
    assert f"needs {name}" in message and f"pip install 'abyss-rules[{extra}]'" in message


def test_the_core_imports_attrs_only() -> None:
    """`import abyss_rules` and a game load no third-party module but attrs -- and on Python 3.11
    typing_extensions, where the documents' TypedDicts come from (see `abyss_rules.documents`)."""
    code = (
        "import sys\n"
        "import abyss_rules as ar\n"
        "state = ar.new_game(2, seed=1)\n"
        "ar.dumps_view(ar.view(ar.apply(state, ar.legal_actions(state)[0]), 0))\n"
        # (leading underscores: the interpreter's and site's own, such as `__main__`)
        "print(' '.join(sorted({m.partition('.')[0] for m in sys.modules if not m.startswith('_')}"
        " - set(sys.stdlib_module_names) - {'abyss_rules'})))\n"
    )
    expected = {"attr", "attrs"} | ({"typing_extensions"} if sys.version_info < (3, 12) else set())
    assert set(_python(code).split()) == expected
