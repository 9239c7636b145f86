"""The game server and the docs site on one machine: different default ports, and a clear word when
the game server's port is taken."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from abyss_rules.serve._settings import Settings

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("uvicorn", reason="the game server needs the `server` extra")


def test_the_docs_site_and_the_game_server_listen_on_different_ports() -> None:
    found = re.search(r"^dev_addr: *([\d.]+):(\d+)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert found is not None, "mkdocs.yml sets no dev_addr: `mkdocs serve` would take port 8000"
    assert int(found[2]) != Settings().port
    for page in ("README.md", "docs/index.md"):
        assert "`mkdocs serve`" in (text := (ROOT / page).read_text(encoding="utf-8"))
        assert f"http://127.0.0.1:{found[2]}/" in text, page


def test_a_taken_port_is_told_with_a_hint(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "abyss_rules", "serve", "--port", str(port),
                              "--db", f"sqlite:///{tmp_path / 'games.db'}"],
                             capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path)
    assert run.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}:" in run.stderr
    assert "another program listens there" in run.stderr
    assert "--port N, or --port 0 for any free one" in run.stderr
