"""GNU Backgammon's Python module as an oracle for IDs (GPL, tests only). It keeps global state: one session."""

from __future__ import annotations

import contextlib
import io
import os
from functools import lru_cache


@lru_cache(maxsize=1)
def gnubg_module():
    with contextlib.redirect_stdout(io.StringIO()):
        import gnubg

        for command in ("set player 0 human", "set player 1 human", "set sound enable off"):
            gnubg.command(command)
    return gnubg


def quiet(fn, *args):
    """Call into gnubg with its board printing sent to /dev/null (it writes to the C stdout)."""
    gnubg = gnubg_module()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return fn(gnubg, *args)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
