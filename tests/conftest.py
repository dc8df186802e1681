"""Shared fixtures and the --full switch (the full differential sets instead of the default samples)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
MATCHES = SHARED / "data" / "matches"


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
