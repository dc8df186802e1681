"""Render photoreal boards: specs drawn here, path-traced by Blender in its own Python, developed here.

    python -m companion.sim.photoreal --split heldout --boards 12 --frames 8 --out DIR
        [--first 0] [--size 1280x720] [--samples 16] [--blender-python PATH] [--keep-raw] [--steady]

Blender's Python is `--blender-python`, else `$COMPANION_BLENDER_PYTHON`, else `python3`: an environment with
`pip install bpy==4.5.15` (it pins its own NumPy, so keep it apart from the companion's). Rendering resumes where a
stopped run left off. Each board's frame 0 is its starting position (what calibration takes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from companion.sim.photoreal.post import develop
from companion.sim.photoreal.spec import SPLITS, board_spec, frame_spec

WORKER = Path(__file__).with_name("blender_scene.py")


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, not {text!r}") from None
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise argparse.ArgumentTypeError("width and height are 64..4096 pixels")
    return w, h


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.sim.photoreal", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=sorted(SPLITS), required=True)
    parser.add_argument("--boards", type=_positive, default=4)
    parser.add_argument("--first", type=int, default=0, help="the first board's number")
    parser.add_argument("--frames", type=_positive, default=6, help="frames per board, frame 0 its starting position")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--size", type=_size, default=(1280, 720))
    parser.add_argument("--samples", type=_positive, default=16)
    parser.add_argument("--blender-python", default=os.environ.get("COMPANION_BLENDER_PYTHON", "python3"))
    parser.add_argument("--keep-raw", action="store_true", help="keep the 16-bit renders before camera effects")
    parser.add_argument("--steady", action="store_true",
                        help="every frame by frame 0's camera and lamps (a camera mounted once, as at a club)")
    args = parser.parse_args(argv)
    out = args.out / args.split
    out.mkdir(parents=True, exist_ok=True)
    for number in range(args.first, args.first + args.boards):
        board = board_spec(args.split, number)
        frames = [frame_spec(board, k, steady=args.steady) for k in range(args.frames)]
        todo = [f for f in frames if not (out / f"{board['board_id']}-{f['frame_index']:02d}.json").exists()]
        if todo:
            job = {"out": str(out), "width": args.size[0], "height": args.size[1], "samples": args.samples,
                   "boards": [{"board": board, "frames": todo}]}
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(job, f)
            started = time.perf_counter()
            try:
                done = subprocess.run([args.blender_python, str(WORKER), f.name], capture_output=True, text=True)
            except OSError as error:
                print(f"cannot run Blender's Python {args.blender_python!r}: {error}", file=sys.stderr)
                return 1
            finally:
                os.unlink(f.name)
            if done.returncode:
                tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
                print(f"Blender failed on {board['board_id']} (is bpy installed in {args.blender_python}?):\n{tail}",
                      file=sys.stderr)
                return 1
            print(f"{board['board_id']} ({board['design']}): {len(todo)} frames in "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
        for frame in todo:
            stem = out / f"{board['board_id']}-{frame['frame_index']:02d}"
            develop(board, frame, stem.with_suffix(".png"), stem.with_suffix(".jpg"))
            if not args.keep_raw:
                stem.with_suffix(".png").unlink()
                stem.with_suffix(".raw.json").unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
