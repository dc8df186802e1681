"""The named photoreal sets (`tools/photoreal_sets.py`): each is a distinct range of boards, a fresh draw shares no
board with what has been read, and what `render` runs is a command the generator takes."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import photoreal_sets  # noqa: E402

from companion.sim.photoreal.__main__ import main as render_main  # noqa: E402
from companion.sim.photoreal.spec import (FIRST_HELDOUT_DESIGNS, FIRST_THREE_AGAIN_HELDOUT_BOARD,  # noqa: E402
                                          board_spec)


def boards(s):
    return {(s.split, b) for b in range(s.first, s.first + s.boards)}


def rendered(s):
    """What a set renders: its boards, and whether as steady (the same boards seen otherwise are other frames)."""
    return {(split, b, s.steady) for split, b in boards(s)}


def test_no_two_sets_share_a_board_and_fresh_draws_are_unread():
    sets = list(photoreal_sets.SETS.values())
    for i, a in enumerate(sets):
        for b in sets[i + 1:]:
            assert not rendered(a) & rendered(b), (a.name, b.name)
    fresh = [s for s in sets if s.role == "fresh"]
    assert fresh and all(s.split == "heldout" for s in fresh)
    # past every board drawn before, listed here or not: the first three designs from 1000, the mosaic past the last
    # mosaic board read
    read = [s for s in sets if s.role == "development"]
    read_mosaic = max(b for s in read if "mosaic" in s.name for _, b in boards(s))
    read_again = max([b for s in read if "mosaic" not in s.name for _, b in boards(s)
                      if b >= FIRST_THREE_AGAIN_HELDOUT_BOARD], default=FIRST_THREE_AGAIN_HELDOUT_BOARD - 1)
    for s in fresh:
        assert s.first > (read_mosaic if "mosaic" in s.name else read_again), s.name
    # every board of a fresh draw is a held-out design's board: mosaic sets mosaic alone, the others the first three
    for s in fresh:
        designs = {board_spec(s.split, b)["design"] for _, b in boards(s)}
        assert designs == ({"mosaic-glass"} if "mosaic" in s.name else set(FIRST_HELDOUT_DESIGNS)), s.name


def test_render_runs_what_the_generator_takes(tmp_path, capsys):
    command = photoreal_sets.SETS["heldout17"].command(tmp_path, str(tmp_path / "no-blender"))
    assert command[1:3] == ["-m", "companion.sim.photoreal"]
    # the generator parses every option and stops only at the missing Blender
    assert render_main(command[3:]) == 1
    assert "cannot run Blender's Python" in capsys.readouterr().err
    assert photoreal_sets.SETS["heldout17"].frames_dir(tmp_path).is_dir()
    steady = photoreal_sets.SETS["heldout13-steady"].command(tmp_path, str(tmp_path / "no-blender"))
    assert steady[-1] == "--steady" and "--steady" not in command
    assert render_main(steady[3:]) == 1  # the generator takes it


def test_list_names_every_set(capsys):
    assert photoreal_sets.main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in photoreal_sets.SETS)


def test_render_resolves_the_paths_typed_where_they_were_typed(tmp_path, monkeypatch):
    """The generator runs from the repository's root: a relative --root or Blender path is made absolute first."""
    ran = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(photoreal_sets.subprocess, "run", lambda command, cwd: ran.append(command) or
                        type("Done", (), {"returncode": 0})())
    assert photoreal_sets.main(["render", "heldout17", "--root", "data", "--blender-python", "venv/bin/python"]) == 0
    (command,) = ran
    assert command[command.index("--out") + 1] == str(tmp_path / "data" / "heldout17")
    assert command[command.index("--blender-python") + 1] == str(tmp_path / "venv" / "bin" / "python")


def test_render_keeps_a_virtual_environments_python_as_typed(tmp_path, monkeypatch):
    """A venv's python is a symlink to the base interpreter, which has no bpy: made absolute, never resolved."""
    ran = []
    (tmp_path / "base").write_text("")
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "python").symlink_to(tmp_path / "base")
    monkeypatch.setattr(photoreal_sets.subprocess, "run", lambda command, cwd: ran.append(command) or
                        type("Done", (), {"returncode": 0})())
    assert photoreal_sets.main(["render", "heldout17", "--root", str(tmp_path),
                                "--blender-python", str(tmp_path / "venv" / "python")]) == 0
    (command,) = ran
    assert command[command.index("--blender-python") + 1] == str(tmp_path / "venv" / "python")


def test_list_says_which_sets_were_read_and_a_read_fresh_set_is_no_longer_fresh(tmp_path, capsys):
    fresh = next(s for s in photoreal_sets.SETS.values() if s.role == "fresh")
    developed = next(s for s in photoreal_sets.SETS.values() if s.role == "development")
    for s in (fresh, developed):
        (tmp_path / s.name).mkdir()
        photoreal_sets.record_read(tmp_path / s.name, "uncalibrated corners given strips", 30)
    with open(tmp_path / fresh.name / photoreal_sets.READS, "a") as out:
        out.write("half a line, the machine stopped\n5\n")  # a torn line, or JSON but no read, is skipped
    photoreal_sets.record_read(tmp_path / fresh.name, "calibrated corners given strips", 25)
    assert [r["frames"] for r in photoreal_sets.reads(tmp_path / fresh.name)] == [30, 25]
    assert photoreal_sets.main(["list", "--root", str(tmp_path)]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "read 2 times" in lines[fresh.name] and "no longer fresh" in lines[fresh.name]
    assert "read once" in lines[developed.name] and "no longer fresh" not in lines[developed.name]
    assert not any(" read " in lines[name] for name, s in photoreal_sets.SETS.items() if s not in (fresh, developed))
    # a read that named the split's folder (where the frames lie) counts for its set
    (tmp_path / fresh.name / fresh.split).mkdir()
    photoreal_sets.record_read(tmp_path / fresh.name / fresh.split, "calibrated corners found strips", 30)
    assert len(photoreal_sets.reads(tmp_path / fresh.name)) == 3
