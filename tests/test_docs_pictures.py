"""The docs' pictures (docs/assets/pictures/) are the library's own drawings, and up to date."""

from __future__ import annotations

import importlib.util
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "docs_pictures.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("abyss_docs_pictures", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["abyss_docs_pictures"] = module
    spec.loader.exec_module(module)
    return module


tool = _load()


def test_no_picture_is_stale() -> None:
    assert tool.stale() == [], (
        "the docs' pictures differ from what the library draws now: regenerate them with "
        "`python tools/docs_pictures.py` and commit docs/assets/pictures/")


def test_every_picture_is_shown_on_a_page_and_every_shown_picture_exists() -> None:
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    shown = set(re.findall(r"assets/pictures/([\w.-]+\.svg)", pages))
    made = {f"{name}.svg" for name in tool.pictures()}
    assert shown == made


def test_every_picture_is_svg_with_a_title() -> None:
    for path in sorted(tool.FOLDER.glob("*.svg")):
        root = ET.fromstring(path.read_text(encoding="utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg", path.name
        assert root[0].tag.endswith("title") and root[0].text, path.name


def test_check_mode_reports_a_stale_picture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in tool.FOLDER.glob("*.svg"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(tool, "FOLDER", tmp_path)
    assert tool.main(["--check"]) == 0
    (tmp_path / "home.svg").write_text("<svg/>\n", encoding="utf-8")
    (tmp_path / "left-over.svg").write_text("<svg/>\n", encoding="utf-8")
    assert tool.stale() == ["home.svg", "left-over.svg"]
    assert tool.main(["--check"]) == 1
    assert tool.main([]) == 0 and tool.stale() == []
    assert not (tmp_path / "left-over.svg").exists()
