"""The photoreal sets the board reader is measured on now, by name, and rendering them again on a new machine.

    python tools/photoreal_sets.py list [--root DIR]
    python tools/photoreal_sets.py render [NAME...] [--role development|fresh] --root DIR
                                          [--blender-python PATH]

Rendered frames are data, not code: they live outside the repository (`--root`, e.g. /work/data/photoreal), and
a new machine starts without them. A set is its generator's arguments (split, first board, boards), so this list
is all it takes to make them again: `render` runs `python -m companion.sim.photoreal` for each set into
`ROOT/NAME`, resuming where a stopped run left off, at the size and samples every set has had (960x540, 8
samples, 6 frames a board, frame 0 the starting position). Since session 32 a board renders to the same pixels
every time; frames rendered before then have the same labels but slightly different pixels. Earlier sessions'
sets (held-out boards 8-31 and 38-67, mosaic 100-147, the training designs' development boards) are not listed:
add them here when they are measured again.

Roles: *development* sets are held-out draws already read once (and boards of the training designs never trained
on): tuned on from then on. A *fresh* set is rendered and read once, with a session's final reader, by the
protocol in docs/VISION.md; after that read it is development data. `benchmarks/photoreal_bench.py` notes each read
of a set's folder in `READS.jsonl` beside its frames (`record_read`), and `list --root` says which sets were read,
so a fresh set read already is seen for what it is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

SIZE, SAMPLES, FRAMES = "960x540", 8, 6


@dataclass(frozen=True)
class PhotorealSet:
    name: str
    split: str
    first: int
    boards: int
    role: str
    note: str
    steady: bool = False
    """Every frame by frame 0's camera and lamps (`frame_spec`'s `steady`): boards of another set seen as at a club."""

    def command(self, root: Path, blender_python: str) -> list[str]:
        return [sys.executable, "-m", "companion.sim.photoreal", "--split", self.split, "--first", str(self.first),
                "--boards", str(self.boards), "--frames", str(FRAMES), "--out", str(root / self.name),
                "--size", SIZE, "--samples", str(SAMPLES), "--blender-python", blender_python] + (
                    ["--steady"] if self.steady else [])

    def frames_dir(self, root: Path) -> Path:
        """Where the frames land (the generator adds the split's folder)."""
        return root / self.name / self.split


AS_DRAWN = (
    PhotorealSet("heldout6", "heldout", 32, 6, "development", "session 32's timing set (photoreal_bench.py)"),
    PhotorealSet("heldout13", "heldout", 68, 6, "development", "session 29's fresh draw"),
    PhotorealSet("heldout-mosaic10", "heldout", 148, 6, "development", "session 29's fresh draw"),
    PhotorealSet("heldout14", "heldout", 74, 6, "development", "session 30's fresh draw"),
    PhotorealSet("heldout-mosaic11", "heldout", 154, 6, "development", "session 30's fresh draw"),
    PhotorealSet("heldout15", "heldout", 80, 6, "development", "session 31's fresh draw"),
    PhotorealSet("heldout-mosaic12", "heldout", 160, 6, "development", "session 31's fresh draw"),
    PhotorealSet("heldout16", "heldout", 86, 6, "development", "session 32's fresh draw"),
    PhotorealSet("heldout-mosaic13", "heldout", 166, 6, "development", "session 32's fresh draw"),
    PhotorealSet("heldout17", "heldout", 92, 6, "development", "session 33's fresh draw"),
    PhotorealSet("heldout-mosaic14", "heldout", 172, 6, "development", "session 33's fresh draw"),
    PhotorealSet("heldout18", "heldout", 1000, 6, "development", "session 34's fresh draw (first three designs again)"),
    PhotorealSet("heldout-mosaic15", "heldout", 178, 6, "development", "session 34's fresh draw"),
    PhotorealSet("heldout19", "heldout", 1006, 6, "development", "session 35's fresh draw"),
    PhotorealSet("heldout-mosaic16", "heldout", 184, 6, "development", "session 35's fresh draw"),
    PhotorealSet("heldout20", "heldout", 1012, 6, "development", "session 36's fresh draw"),
    PhotorealSet("heldout-mosaic17", "heldout", 190, 6, "development", "session 36's fresh draw"),
    PhotorealSet("heldout21", "heldout", 1018, 6, "development", "session 37's fresh draw (named in session 36)"),
    PhotorealSet("heldout-mosaic18", "heldout", 196, 6, "development", "session 37's fresh draw (named in session 36)"),
    PhotorealSet("heldout22", "heldout", 1024, 6, "development", "session 38's fresh draw (named in session 37)"),
    PhotorealSet("heldout-mosaic19", "heldout", 202, 6, "development", "session 38's fresh draw (named in session 37)"),
    PhotorealSet("heldout23", "heldout", 1030, 6, "development",
                 "session 38's second fresh draw (named in session 38)"),
    PhotorealSet("heldout-mosaic20", "heldout", 208, 6, "development",
                 "session 38's second fresh draw (named in session 38)"),
    PhotorealSet("heldout24", "heldout", 1036, 6, "development", "session 39's fresh draw (named in session 38)"),
    PhotorealSet("heldout-mosaic21", "heldout", 214, 6, "development",
                 "session 39's fresh draw (named in session 38)"),
    PhotorealSet("heldout25", "heldout", 1042, 6, "development", "session 40's fresh draw (named in session 38)"),
    PhotorealSet("heldout-mosaic22", "heldout", 220, 6, "development",
                 "session 40's fresh draw (named in session 38)"),
    PhotorealSet("heldout26", "heldout", 1048, 6, "development", "session 41's fresh draw (named in session 39)"),
    PhotorealSet("heldout-mosaic23", "heldout", 226, 6, "development",
                 "session 41's fresh draw (named in session 39)"),
    PhotorealSet("heldout27", "heldout", 1054, 6, "development", "session 42's fresh draw (named in session 40)"),
    PhotorealSet("heldout-mosaic24", "heldout", 232, 6, "development",
                 "session 42's fresh draw (named in session 40)"),
    PhotorealSet("heldout28", "heldout", 1060, 6, "development", "session 43's fresh draw (named in session 41)"),
    PhotorealSet("heldout-mosaic25", "heldout", 238, 6, "development",
                 "session 43's fresh draw (named in session 41)"),
    PhotorealSet("heldout29", "heldout", 1066, 6, "development", "session 44's fresh draw (named in session 42)"),
    PhotorealSet("heldout-mosaic26", "heldout", 244, 6, "development",
                 "session 44's fresh draw (named in session 42)"),
    PhotorealSet("heldout30", "heldout", 1072, 6, "development", "session 45's fresh draw (named in session 43)"),
    PhotorealSet("heldout-mosaic27", "heldout", 250, 6, "development",
                 "session 45's fresh draw (named in session 43)"),
    PhotorealSet("heldout31", "heldout", 1078, 6, "development", "session 46's fresh draw (named in session 44)"),
    PhotorealSet("heldout-mosaic28", "heldout", 256, 6, "development",
                 "session 46's fresh draw (named in session 44)"),
    PhotorealSet("heldout32", "heldout", 1084, 6, "development", "session 47's fresh draw (named in session 45)"),
    PhotorealSet("heldout-mosaic29", "heldout", 262, 6, "development",
                 "session 47's fresh draw (named in session 45)"),
    PhotorealSet("heldout33", "heldout", 1090, 6, "fresh", "the next fresh draw (named in session 46)"),
    PhotorealSet("heldout-mosaic30", "heldout", 268, 6, "fresh", "the next fresh draw (named in session 46)"),
    PhotorealSet("heldout34", "heldout", 1096, 6, "fresh", "the draw after the next (named in session 47)"),
    PhotorealSet("heldout-mosaic31", "heldout", 274, 6, "fresh", "the draw after the next (named in session 47)"),
)
"""Sets as the generator draws them: each frame by its own camera and lamps."""


def steady_twin(of: PhotorealSet) -> PhotorealSet:
    """The same boards and positions rendered steady (every frame by its start's camera and lamps), with the
    role of the set it twins: a draw and its twin are read, and become development data, together."""
    return replace(of, name=f"{of.name}-steady", note=f"{of.note}, steady", steady=True)


STEADY_TWINS = ("heldout13", "heldout-mosaic10", "heldout19", "heldout20", "heldout-mosaic16", "heldout-mosaic17",
                "heldout14", "heldout15", "heldout16", "heldout-mosaic11", "heldout-mosaic12", "heldout-mosaic13",
                "heldout21", "heldout-mosaic18", "heldout22", "heldout-mosaic19", "heldout23", "heldout-mosaic20",
                "heldout24", "heldout-mosaic21", "heldout25", "heldout-mosaic22", "heldout26", "heldout-mosaic23",
                "heldout27", "heldout-mosaic24", "heldout28", "heldout-mosaic25", "heldout29",
                "heldout-mosaic26", "heldout30", "heldout-mosaic27", "heldout31", "heldout-mosaic28", "heldout32",
                "heldout-mosaic29", "heldout33", "heldout-mosaic30", "heldout34", "heldout-mosaic31")
"""The sets also rendered steady, in the order they were named."""

SETS = {s.name: s for s in AS_DRAWN + tuple(steady_twin(next(a for a in AS_DRAWN if a.name == name))
                                             for name in STEADY_TWINS)}


READS = "READS.jsonl"
"""Where each read of a set's folder is noted, one JSON line a read, beside the frames."""


def record_read(folder: Path, mode: str, frames: int) -> None:
    """Notes that the frames under `folder` were read: when, by which commit of the code, how, how many frames."""
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=Path(__file__).resolve().parents[1],
                                capture_output=True, text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    line = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "commit": commit, "mode": mode,
            "frames": frames}
    with open(folder / READS, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def reads(folder: Path) -> list[dict]:
    """The reads noted in `folder` and below it (`record_read`; a set's frames lie in its split's folder, which a
    read may have named), oldest first; a line that is not a JSON object is skipped, not fatal."""
    out = []
    for path in sorted(folder.rglob(READS)) if folder.is_dir() else []:
        for text in path.read_text(encoding="utf-8").splitlines():
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(line, dict):
                out.append(line)
    return sorted(out, key=lambda line: str(line.get("when", "")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list")
    listing.add_argument("--root", type=Path, help="where the sets were rendered: say which were read")
    render = sub.add_parser("render")
    render.add_argument("names", nargs="*")
    render.add_argument("--role", choices=("development", "fresh"))
    render.add_argument("--root", type=Path, required=True)
    render.add_argument("--blender-python", default=os.environ.get("COMPANION_BLENDER_PYTHON", "python3"))
    args = parser.parse_args(argv)
    if args.command == "list":
        for s in SETS.values():
            last = s.first + s.boards - 1
            said = ""
            if args.root is not None:
                done = reads(args.root / s.name)
                times = "once" if len(done) == 1 else f"{len(done)} times"
                said = f"  read {times}, first {done[0]['when']} ({done[0]['commit']})" if done else ""
                if done and s.role == "fresh":
                    said += ": read already, no longer fresh"
            print(f"{s.name:24} {s.split:8} boards {s.first}-{last}  {s.role:12} {s.note}{said}")
        return 0
    unknown = [name for name in args.names if name not in SETS]
    if unknown:
        parser.error(f"no set named {', '.join(unknown)} (see `list`)")
    chosen = [SETS[n] for n in args.names] + [s for s in SETS.values() if args.role and s.role == args.role]
    if not chosen:
        parser.error("name the sets to render, or give --role")
    # the generator runs from the repository's root: paths typed here are resolved here first
    # (absolute, not resolved: a virtual environment's python is a symlink to the base interpreter, which has no bpy)
    root = args.root.resolve()
    blender = os.path.abspath(args.blender_python) if os.sep in args.blender_python else args.blender_python
    for s in dict.fromkeys(chosen):
        print(f"{s.name}: boards {s.first}-{s.first + s.boards - 1} ({s.split})", flush=True)
        done = subprocess.run(s.command(root, blender), cwd=Path(__file__).resolve().parents[1])
        if done.returncode:
            return done.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
