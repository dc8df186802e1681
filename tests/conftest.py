"""Shared fixtures and the --full switch (the full differential sets instead of the default samples)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
MATCHES = SHARED / "data" / "matches"


def ctrl_c_as_at_a_terminal() -> None:
    """`preexec_fn` for a program a test stops with Ctrl-C: Ctrl-C given back its default, as a terminal starts a
    program. A test run started in the background (`nohup ... &`) has it ignored, which its children inherit: they
    then never stop, and the test fails for how it was started, not for what it tests."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", help="run the full differential sets (200,000+ pairs)")


@pytest.fixture(scope="session")
def full(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--full"))


def match_files() -> list[Path]:
    files = sorted(p for p in MATCHES.glob("*") if p.suffix in (".mat", ".txt"))
    if not files:
        raise RuntimeError(f"no match files under {MATCHES}: the tests need shared/ beside the checkout")
    return files
