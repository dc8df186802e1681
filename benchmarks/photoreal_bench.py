"""How well the board readers read path-traced photos of boards (`companion.sim.photoreal`), made by another
process than the flat renderer the readers learnt from.

    python benchmarks/photoreal_bench.py --dir /work/data/photoreal/heldout [--reader strips|classic]
        [--calibrate [--mounted] [--confirm] | --locate] [--json OUT]

Each frame is read with the playing area's true corners (as a user gives them), moved by up to `--jitter` pixels.
Each run notes its read in `--dir` (`READS.jsonl`, `tools/photoreal_sets.record_read`), the committed sample
excepted: a fresh draw read once is development data from then on.
- Without calibration: the strip reader measures the bar from the photo (`geometry.fit_bar`); the classic reader
  assumes the simulator's board.
- With `--calibrate`: each board's frame 0 (its starting position) calibrates a profile as `companion calibrate`
  does (geometry and colours); the board's other frames are read through it, at their own corners (the camera
  moved). Frame 0 itself is then not counted.
  - `--mounted`: the later frames are read at the profile's own corners, as `companion read --profile` does
    without `--corners`: a camera mounted once (the steady sets, `tools/photoreal_sets.py`: one camera a board).
  - `--confirm`: a board's frames are read in order, and each frame whose play the referee identifies teaches the
    profile what it shows (`Profile.confirmed`, as `BoardWatcher.confirm` does during play) before the next.
- With `--locate`: no corners are given; the playing area is found from the picture (`locate.playing_area`: the
  keypoint network's guess and the outline's, weighed by the strip network), as `companion read` does without
  `--corners`. How far the found corners are from the true ones is printed; a frame where none is found is refused.

A point is *right* when the best guess is the true count and colour; a frame is *fully right* when its 24 points
and both bar halves are. *Refused*: frames whose board confidence is under `GIVEN_LEAST`, which `companion read`
refuses even with the corners given; also counted, frames under `BOARD_LEAST` (refused where no corners were given).
Points a hand hides (the label's `occluded`) are not judged; frames with a hand are also reported apart, and how
often the reading says `busy` (something over the board) on frames with a hand and without one. The trays, where
read: each player's borne-off count as the referee gets it (the home side, by the true orientation), how many are
right (of those holding checkers too), and how many of those read surely are wrong.

The referee's view: a frame whose position people reached in a real match (about half of them: the generator
draws positions from `../shared/data/matches`) comes with the position before that play and its dice. Where the
reading is handed on (not busy), the referee's play inference (`referee.inference.infer_play`) is asked which legal
play it shows, and what the referee would do with it when the turn ends:
- *identified*: the true play alone;
- *asks*: several plays, the true one among them (the referee asks which);
- *asks, true play missing*: several plays, none of them the true one (it asks, but offers only wrong ones);
- *waits*: nothing moved as far as the sure points tell, a reading too unsure to judge ("cannot be read surely
  enough"), one that is no whole position (not 15 checkers a side), or one the reader mended to fifteen a side:
  the referee asks;
- *accuses*: no legal play fits and the reading is a whole position as seen: the referee would call the play
  illegal;
- **wrong**: a wrong play alone, taken as made: what a referee must never do.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

REPOSITORY = Path(__file__).resolve().parents[1]
SAMPLE = REPOSITORY / "docs" / "photoreal-sample"
"""The committed sample: no draw, so its reads are not noted (the tree stays clean)."""
sys.path.insert(0, str(REPOSITORY))

from companion.referee import Command, DiceReading, IllegalPlay, Referee, UserCommand  # noqa: E402
from companion.referee.inference import Fit, infer_play  # noqa: E402
from companion.referee.observations import CONFIDENT, BoardReading  # noqa: E402
from companion.rules import MatchState, Position, Roll  # noqa: E402
from companion.sim.photoreal.spec import match_plays  # noqa: E402
from companion.sim.render import Scene  # noqa: E402
from companion.vision.calibrate import CalibrationError, calibrate  # noqa: E402
from companion.vision.geometry import fit_bar  # noqa: E402
from companion.vision.locate import BoardNotFound, playing_area  # noqa: E402
from companion.vision.orientation import Orientation  # noqa: E402
from companion.vision.profile import Profile  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402
from companion.vision.strip_reader import BOARD_LEAST, GIVEN_LEAST, StripReader  # noqa: E402
from tools.photoreal_sets import record_read  # noqa: E402
from tools.strip_data import photoreal_label  # noqa: E402


REFEREE_CALLS = ("identified", "asks", "asks, true play missing", "waits", "accuses", "wrong")
"""What `referee_judgement` can say of a frame, in the order the report lists them."""


def place_truths(orient, label) -> list[tuple[str | None, int] | None]:
    """(colour, count) of the 26 places in the reader's order (24 slots, then the bar's top and bottom halves), None
    where nobody can read it: points a hand hides (the label's `occluded`) and a bar half under it."""
    hidden = set(label.get("occluded", ()))
    out: list[tuple[str | None, int] | None] = []
    for slot in range(24):
        point = orient.point_of_slot(slot)
        owner, count = label["points"][point - 1]
        out.append(None if point in hidden else (orient.colour_of(owner) if count else None, count))
    for top in (True, False):
        player = orient.bar_owner(top)
        count = label["bar"][player]
        hidden_half = label.get("bar_hidden", [False, False])[player]
        out.append(None if hidden_half else (orient.colour_of(player) if count else None, count))
    return out


def read_right(truth: tuple[str | None, int], colour: str | None, count: int) -> bool:
    """A place read right: its count, and its colour where it holds checkers."""
    return count == truth[1] and (truth[1] == 0 or colour == truth[0])


def judge(reading, orient, label) -> dict:
    """Places nobody can read (`place_truths`) are not judged; the live path waits for the hand to go."""
    points_right, seen, wrong = 0, 0, []
    truths = place_truths(orient, label)
    for slot, (read, truth) in enumerate(zip(reading.points, truths[:24])):
        if truth is None:
            continue
        seen += 1
        ok = read_right(truth, read.colour, read.count)
        points_right += ok
        if not ok:
            wrong.append((slot, truth, (read.colour, read.count, round(read.confidence, 2))))
    bar_right = True
    for top, half, truth in zip((True, False), reading.bar, truths[24:]):
        if truth is None:
            continue
        ok = read_right(truth, half.colour, half.count)
        bar_right &= ok
        if not ok:
            wrong.append(("bar top" if top else "bar bottom", truth[1], (half.colour, half.count)))
    # the trays, where read: each player's borne-off count as the referee gets it (the home side, by the orientation)
    off = reading.to_board_reading(orient).off
    trays = None if off is None else [
        {"true": int(label["off"][player]), "read": slot.count, "confidence": round(slot.confidence, 3)}
        for player, slot in enumerate(off)]
    return {"points_right": points_right, "points_seen": seen, "bar_right": bar_right,
            "full": points_right == seen and bar_right,
            "wrong": wrong, "board": round(reading.board, 3), "trays": trays}


def plays_reaching() -> dict[tuple[str, int], tuple[str, tuple[int, int]]]:
    """(Position ID after, mover) -> (Position ID before, dice), for the real matches' plays; where a position was
    reached both by a play and by a dance (no move), the play."""
    out: dict[tuple[str, int], tuple[str, tuple[int, int]]] = {}
    for t in match_plays():
        key = (t.after, t.player)
        if key not in out or out[key][0] == t.after:  # none yet, or a dance: a play takes its place
            out[key] = (t.before, tuple(t.dice))
    return out


def label_position(label: dict) -> tuple[str, int]:
    """The frame's position as a Position ID from the side of the player who just moved (`roller`), and that player."""
    mover = int(label["roller"])
    scene = Scene(tuple(map(tuple, label["points"])), tuple(label["bar"]), tuple(label["off"]))
    return scene.position(mover).position_id(), mover


def true_board(label: dict) -> BoardReading:
    """The frame's position, read exactly: what the referee accepts when it identifies the play."""
    after, mover = label_position(label)
    return BoardReading.from_position(Position.from_position_id(after), mover)


def referee_judgement(reading, orient, label, plays) -> str | None:
    """What the referee makes of the reading, for a frame showing a real match's play (None: no such play known, or
    a busy reading, which the live path does not hand on)."""
    try:
        after, mover = label_position(label)
    except Exception:  # not a legal position (a tall-stacks frame): no play reached it
        return None
    if (after, mover) not in plays or reading.busy:
        return None
    before, dice = plays[(after, mover)]
    if before == after:  # the mover could not move: nothing to identify
        return None
    board = reading.to_board_reading(orient)
    inference = infer_play(Position.from_position_id(before), Roll(*dice), board, mover)
    truth = Position.from_position_id(after).swap()
    if inference.fit is Fit.PLAY:
        return "identified" if inference.play.position == truth else "wrong"
    if inference.fit is Fit.AMBIGUOUS:
        return "asks" if any(p.position == truth for p in inference.plays) else "asks, true play missing"
    return "accuses" if _accused_at_turn_end(Position.from_position_id(before), dice, board, mover) else "waits"


def _accused_at_turn_end(before: Position, dice: tuple[int, int], board, mover: int) -> bool:
    """Whether the referee itself, shown `board` after `mover` rolled `dice` from `before`, calls the play illegal
    when the turn ends (the dice picked up): no legal play fits, and the reading is a whole position read surely
    where it leaves the nearest ones; else it waits or asks to have the board cleared."""
    referee = Referee(MatchState.money())
    referee.observe(UserCommand(Command.SET_POSITION, player=mover, position=before))
    referee.observe(DiceReading(dice, roller=mover))
    events = referee.observe(board) + referee.observe(DiceReading(()))
    return any(isinstance(event, IllegalPlay) for event in events)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--reader", choices=("strips", "classic"), default="strips")
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--locate", action="store_true", help="find the corners instead of giving them")
    parser.add_argument("--adapt", action="store_true", help="calibrate adapting the strip network's last layer")
    parser.add_argument("--no-empty-looks", action="store_true",
                        help="calibrate without learning the empty points' looks (as before session 23)")
    parser.add_argument("--mounted", action="store_true",
                        help="read the later frames at the profile's corners (one camera a board: steady sets)")
    parser.add_argument("--confirm", action="store_true",
                        help="learn from each frame whose play the referee identifies, before the next")
    parser.add_argument("--trust", action="store_true",
                        help="calibrate as a user vouching for the start would (`calibrate --trust-position`)")
    parser.add_argument("--jitter", type=float, default=2.0)
    parser.add_argument("--json", type=Path, help="write every frame's result here")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    if (args.adapt or args.no_empty_looks or args.mounted or args.confirm or args.trust) and not args.calibrate:
        parser.error("--adapt, --no-empty-looks, --mounted, --confirm and --trust go with --calibrate")
    if args.mounted and args.locate:
        parser.error("--mounted reads at the profile's corners: it does not go with --locate")
    rng = np.random.default_rng(FRAMES_SEED)
    files = sorted(p for p in args.dir.rglob("*.jpg") if p.with_suffix(".json").exists())
    if args.limit:
        files = files[:args.limit]
    labels = {p: json.loads(p.with_suffix(".json").read_text()) for p in files}
    profiles = (start_profiles(files, labels, np.random.default_rng(STARTS_SEED), args.jitter, reader=args.reader,
                               adapt=args.adapt, learn_empty=not args.no_empty_looks, trust=args.trust)
                if args.calibrate else {})
    plays = plays_reaching()
    results, times, corner_errors, not_found = [], [], [], 0
    for path, label, truth, orient, corners in jittered_frames(files, labels, rng, args.jitter, args.calibrate):
        image = cv2.imread(str(path))
        if args.locate:
            try:
                found = playing_area(image)
            except BoardNotFound:
                not_found += 1
                continue
            corner_errors.append(float(np.median(np.linalg.norm(np.subtract(found, truth), axis=1))))
            corners = found
        start = time.perf_counter()
        calibrated = False
        if args.calibrate and profiles.get(label["board_id"]) is not None:
            profile = profiles[label["board_id"]]
            reader = profile.board_reader(profile.corners if args.mounted else corners)
            calibrated = True
        elif args.reader == "classic":
            reader = BoardReader(corners)
        else:
            reader = StripReader(corners, fit_bar(image, corners))
        ready = time.perf_counter()
        reading = reader.read(image)
        times.append((ready - start, time.perf_counter() - ready, dict(reading.timings)))
        out = judge(reading, orient, label)
        tilt = float(label["pose"].get("tilt", 0))
        referee = referee_judgement(reading, orient, label, plays)
        out.update(name=path.name, style=label.get("style"), tilt=tilt, hand=bool(label.get("hand")),
                   calibrated=calibrated, busy=reading.busy is not None, referee=referee)
        if args.confirm and calibrated and referee == "identified":
            learnt = profile.confirmed(image, reader, reading, true_board(label))
            out["taught"] = learnt is not None
            if learnt is not None:
                profiles[label["board_id"]] = learnt
        results.append(out)
    report(results, args, times)
    if args.locate:
        errors = np.array(corner_errors)
        print(f"corners found in {len(errors)} of {len(errors) + not_found} frames; median distance to the true "
              f"corners (px, per frame the median of four): median {np.median(errors):.1f}, within 10 px "
              f"{np.mean(errors <= 10):.0%}, within 30 px {np.mean(errors <= 30):.0%}" if len(errors) else
              f"corners found in none of {not_found} frames")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    mode = " ".join(how_read(args) + [f"jitter {args.jitter:g}"] + ([f"limit {args.limit}"] if args.limit else []))
    if not args.dir.resolve().is_relative_to(SAMPLE):
        try:  # a fresh set read once is development data from now on
            record_read(args.dir, mode, len(results))
        except OSError as exc:
            print(f"the read was not noted in {args.dir}: {exc}", file=sys.stderr)
    return 0


def start_profiles(files: list[Path], labels: dict, rng: np.random.Generator, jitter: float,
                   **how) -> dict[str, Profile | None]:
    """Each board calibrated on its frame 0 (its starting position) at the true corners moved by up to `jitter` px,
    by board id; None where calibration refuses. `how`: `calibrate`'s options. Says what each board measured, or
    why it refused. Draws from `rng` in file order (a generator of its own, `STARTS_SEED`: the frames' corners are
    then the same whether calibrated or not)."""
    profiles: dict[str, Profile | None] = {}
    for path in files:
        label = labels[path]
        if label.get("frame_index") != 0:
            continue
        corners, geometry, orient, _, _ = photoreal_label(label)
        try:
            calibration = calibrate(cv2.imread(str(path)), corners=_jitter(corners, rng, jitter), markers=False,
                                    player0=orient.player0_colour, **how)
            profile = calibration.profile
        except CalibrationError as exc:
            profiles[label["board_id"]] = None
            print(f"board {label['board_id']} ({label['style']}): calibration failed: {exc}", flush=True)
            continue
        profiles[label["board_id"]] = profile
        if calibration.vouched:
            print(f"board {label['board_id']} ({label['style']}): calibrated on the user's word: "
                  f"{calibration.warning}", flush=True)
        if profile.orientation != orient:  # player 0's set is given: a right way round matches the label's exactly
            print(f"board {label['board_id']} ({label['style']}): the profile has the board the wrong way round "
                  f"({profile.orientation})", flush=True)
        g = profile.geometry
        if g is not None:
            print(f"board {label['board_id']} ({label['style']}): bar {g.bar_width:.1f} mm of "
                  f"{g.play_width:.0f} ({100 * g.bar_width / g.play_width:.2f} %), true "
                  f"{100 * geometry.bar_width / geometry.play_width:.2f} %; checkers "
                  f"{g.checker / g.point_width:.3f} of a point's width, true "
                  f"{geometry.checker / geometry.point_width:.3f}; points {g.point_length / g.play_height:.3f}"
                  f" of the height, true {geometry.point_length / geometry.play_height:.3f}", flush=True)
    return profiles


def jittered_frames(files: list[Path], labels: dict, rng: np.random.Generator, jitter: float,
                    after_starts: bool) -> Iterator[tuple[Path, dict, tuple, Orientation, tuple]]:
    """The frames to read (with `after_starts`, those after each board's start), each with its label, true corners,
    orientation and the corners moved by up to `jitter` px: one draw a frame in file order, a start's drawn too when
    it is left out, so that every reader of a set, calibrated or not (`calibration_parts.py` too), meets a frame at
    the same corners."""
    for path in files:
        label = labels[path]
        truth, _, orient, _, _ = photoreal_label(label)
        corners = _jitter(truth, rng, jitter)
        if not (after_starts and label.get("frame_index") == 0):
            yield path, label, truth, orient, corners


FRAMES_SEED, STARTS_SEED = 7, 8
"""The frames' corner draws, and the starts' (calibration's) on a generator of their own: since session 38, so that
a set read calibrated and uncalibrated meets each frame at the same corners (before, the calibrated read drew the
starts' corners first and every later frame's moved; that alone moved one set's figure by 1.7 points)."""


def how_read(args) -> list[str]:
    """How this run read its frames, word by word: the report's heading and the read log's mode."""
    return (["calibrated" if args.calibrate else "uncalibrated",
             "corners found" if args.locate else "profile's corners" if args.mounted else "corners given", args.reader]
            + (["confirmed"] if args.confirm else []) + (["trusted"] if args.trust else [])
            + (["adapted"] if args.adapt else [])
            + (["without empty looks"] if args.no_empty_looks else []))


def _jitter(corners, rng, amount):
    return tuple((x + rng.uniform(-amount, amount), y + rng.uniform(-amount, amount)) for x, y in corners)


def report(results: list[dict], args, times) -> None:
    def line(name, rows):
        if not rows:
            return
        points = sum(r["points_right"] for r in rows)
        seen = sum(r.get("points_seen", 24) for r in rows)
        full = sum(r["full"] for r in rows)
        refused = sum(r["board"] < GIVEN_LEAST for r in rows)
        unsure = sum(r["board"] < BOARD_LEAST for r in rows)
        print(f"{name:<28} frames {len(rows):>4}  points right {100 * points / max(seen, 1):6.2f} % of {seen:>4}  "
              f"fully right {100 * full / len(rows):6.1f} % ({full})  bar right "
              f"{100 * sum(r['bar_right'] for r in rows) / len(rows):5.1f} %  refused {refused} "
              f"(under {BOARD_LEAST} board confidence: {unsure})")

    print(f"\n{args.reader} reader, {', '.join(w for w in how_read(args) if w != args.reader)}, {args.dir}")
    if args.confirm:
        print(f"frames that taught their profile: {sum(bool(r.get('taught')) for r in results)} of "
              f"{sum(r.get('referee') == 'identified' and r['calibrated'] for r in results)} identified")
    line("all", results)
    line("without a hand", [r for r in results if not r["hand"]])
    line("with a hand", [r for r in results if r["hand"]])
    by_style = defaultdict(list)
    for r in results:
        by_style[r["style"]].append(r)
    for style, rows in sorted(by_style.items()):
        line(f"design {style}", rows)
    for low, high in ((0, 15), (15, 30), (30, 46)):
        line(f"tilt {low}-{high} degrees", [r for r in results if low <= r["tilt"] < high])
    hands = [r for r in results if r["hand"]]
    clear = [r for r in results if not r["hand"]]
    print(f"busy (something over the board): said on {sum(r['busy'] for r in hands)} of {len(hands)} frames with "
          f"a hand, and on {sum(r['busy'] for r in clear)} of {len(clear)} without one")
    halves = [t for r in results if r.get("trays") for t in r["trays"]]
    if halves:
        holding = [t for t in halves if t["true"]]
        sure = [t for t in halves if t["confidence"] >= CONFIDENT]
        print(f"trays (each player's borne-off checkers): right {sum(t['read'] == t['true'] for t in halves)} of "
              f"{len(halves)}; of those holding checkers {sum(t['read'] == t['true'] for t in holding)} of "
              f"{len(holding)}; read surely ({CONFIDENT}) {len(sure)}, of them wrong "
              f"{sum(t['read'] != t['true'] for t in sure)}")
    judged = [r["referee"] for r in results if r.get("referee")]
    if judged:
        print(f"the referee, on {len(judged)} frames of real matches' plays handed on (not busy): "
              + ", ".join(f"{kind} {judged.count(kind)}" for kind in REFEREE_CALLS))
    if times:
        # setting up: the strips' cutting maps for these corners (made once while the camera and board stay put)
        # and, without a profile, the bar measured on this frame; then the read itself
        total, setup, read = (statistics.median(f(t) for t in times)
                              for f in (lambda t: t[0] + t[1], lambda t: t[0], lambda t: t[1]))
        print(f"time per frame, medians: {1000 * total:.1f} ms in all; setting up {1000 * setup:.1f} ms (cutting "
              f"maps; the bar measured when uncalibrated), reading {1000 * read:.1f} ms")
        print("  reading's stages (median ms): " + ", ".join(  # the reader's laps, the same every frame
            f"{name} {statistics.median(t[2].get(name, 0.0) for t in times):.2f}" for name in times[0][2]))


if __name__ == "__main__":
    raise SystemExit(main())
