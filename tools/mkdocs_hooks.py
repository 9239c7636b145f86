"""MkDocs hooks of the docs site (``hooks:`` in ``mkdocs.yml``).

``docs/rule-coverage.md`` holds the marker line ``<!-- rule-coverage-table -->``;
at build time it is replaced by the coverage table that
``tools/traceability.py`` computes from ``spec/rules.md``, the tests and the
conformance cases, so the page is never stale. Each rule id links to its
anchor on the rules page (``rules.md#rule-3.4``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = "<!-- rule-coverage-table -->"
"""The line of ``docs/rule-coverage.md`` the table replaces."""
PAGE = "rule-coverage.md"
_TOOL = Path(__file__).resolve().parent / "traceability.py"


def _traceability() -> ModuleType:
    spec = importlib.util.spec_from_file_location("abyss_traceability", _TOOL)
    if spec is None or spec.loader is None:  # pragma: no cover - the file is in the repository
        raise PluginError(f"cannot load {_TOOL}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["abyss_traceability"] = module
    spec.loader.exec_module(module)
    return module


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Render the coverage table into the rule-coverage page."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"docs/{PAGE} lost its marker line {MARKER}")
    tool = _traceability()
    coverage = tool.collect(Path(config["docs_dir"]).resolve().parent)
    table: str = tool.markdown_table(coverage, rules_page="rules.md")
    return markdown.replace(MARKER, table)
