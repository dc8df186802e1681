"""The named photoreal sets (`tools/photoreal_sets.py`): each is a distinct range of boards, a fresh draw shares no
board with what has been read, and what `render` runs is a command the generator takes."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import photoreal_sets  # noqa: E402

from companion.sim.photoreal.__main__ import main as render_main  # noqa: E402
from companion.sim.photoreal.spec import board_spec  # noqa: E402


def boards(s):
    return {(s.split, b) for b in range(s.first, s.first + s.boards)}


def test_no_two_sets_share_a_board_and_fresh_draws_are_unread():
    sets = list(photoreal_sets.SETS.values())
    for i, a in enumerate(sets):
        for b in sets[i + 1:]:
            assert not boards(a) & boards(b), (a.name, b.name)
    fresh = [s for s in sets if s.role == "fresh"]
    assert fresh and all(s.split == "heldout" for s in fresh)
    # every board of a fresh draw is a held-out design's board, mosaic sets mosaic alone
    for s in fresh:
        designs = {board_spec(s.split, b)["design"] for _, b in boards(s)}
        assert (designs == {"mosaic-glass"}) == ("mosaic" in s.name)


def test_render_runs_what_the_generator_takes(tmp_path, capsys):
    command = photoreal_sets.SETS["heldout17"].command(tmp_path, str(tmp_path / "no-blender"))
    assert command[1:3] == ["-m", "companion.sim.photoreal"]
    # the generator parses every option and stops only at the missing Blender
    assert render_main(command[3:]) == 1
    assert "cannot run Blender's Python" in capsys.readouterr().err
    assert photoreal_sets.SETS["heldout17"].frames_dir(tmp_path).is_dir()


def test_list_names_every_set(capsys):
    assert photoreal_sets.main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in photoreal_sets.SETS)
