"""Capture from files, folders and (simulated) vanishing cameras; stillness gating on rendered game films."""

import json
import threading

import cv2
import numpy as np
import pytest

from companion.sim import STYLES, Effects, Pose
from companion.sim.video import GameFilm, self_play, write_film
from companion.vision import CaptureError, Frame, Status, StillnessGate, open_source
from companion.vision.capture import StreamSource, at_speed


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    folder = tmp_path_factory.mktemp("film")
    turns = self_play(np.random.default_rng(8))[:3]
    game = GameFilm(STYLES[0], Pose(tilt=20, roll=3), Effects(light=0.2, noise=6, blur=0.6, jpeg=75), fps=20,
                    width=640, height=360, seed=8)
    count = write_film(game.film(turns), folder / "frames", 20)
    game = GameFilm(STYLES[0], Pose(tilt=20, roll=3), Effects(noise=4), fps=20, width=640, height=360, seed=8)
    write_film(game.film(turns), folder / "game.mp4", 20)
    labels = [json.loads(line) for line in (folder / "frames" / "labels.jsonl").read_text().splitlines()]
    return folder, count, labels


def test_a_folder_of_images_is_a_video_with_timestamps(film):
    folder, count, _ = film
    items = list(open_source(str(folder / "frames")).frames())
    frames = [i for i in items if isinstance(i, Frame)]
    assert len(frames) == count and frames[1].time == pytest.approx(1 / 20)
    assert isinstance(items[0], Status) and items[-1].state == "finished"


def test_an_mp4_file_plays_to_its_end(film):
    folder, count, _ = film
    frames = [i for i in open_source(str(folder / "game.mp4")).frames() if isinstance(i, Frame)]
    assert len(frames) == count and frames[0].image.shape == (360, 640, 3)


def test_bad_sources_are_clear_errors(tmp_path):
    with pytest.raises(CaptureError, match="no such"):
        open_source(str(tmp_path / "missing.mp4"))
    with pytest.raises(CaptureError, match="no images"):
        open_source(str(tmp_path))
    (tmp_path / "broken.jpg").write_bytes(b"not a jpeg")
    cv2.imwrite(str(tmp_path / "ok.jpg"), np.zeros((10, 10, 3), np.uint8))
    items = list(open_source(str(tmp_path)).frames())
    assert any(isinstance(i, Status) and i.state == "unreadable" for i in items)
    assert sum(isinstance(i, Frame) for i in items) == 1


def test_a_camera_that_vanishes_is_reported_and_reopened(film):
    """A live source that stops sending (here: a file read as a live stream runs out), then comes back:
    statuses, no exception, and frames again after the reopening."""
    folder, _, _ = film
    source = StreamSource(str(folder / "game.mp4"), live=True, retry_seconds=0.01, max_failures=2)
    items, reopened, after = [], False, 0
    for item in source.frames():
        items.append(item)
        if isinstance(item, Status) and "reopened" in item.detail:
            reopened = True
        elif reopened and isinstance(item, Frame):
            after += 1
            if after == 3:
                source.stop()
    states = [i.state for i in items if isinstance(i, Status)]
    assert states[0] == "connected" and "lost" in states and states.count("connected") == 2 and after == 3


def test_a_camera_that_cannot_be_opened_keeps_retrying_without_raising():
    source = StreamSource("/dev/video-does-not-exist", live=True, retry_seconds=0.01)
    items = []
    for item in source.frames():
        items.append(item)
        if len(items) >= 1:
            source.stop()
    assert items[0].state == "lost"


def test_stillness_opens_only_when_the_board_has_stopped(film):
    folder, _, labels = film
    gate = StillnessGate(hold=0.3)
    settled_at = []
    for item in open_source(str(folder / "frames")).frames():
        if isinstance(item, Frame):
            motion = gate.update(item.image, item.time)
            label = labels[item.index]
            if motion.settled:
                settled_at.append(item.index)
                # no hand in the last 0.3 s, and the board then is the board of the pause that follows
                recent = labels[max(0, item.index - 6):item.index + 1]
                assert not any(l["hand"] for l in recent), f"settled with a hand about (frame {item.index})"
                pause = next(l for l in labels[item.index:] if l["phase"] == "pause")
                assert label["points"] == pause["points"] and label["dice"] == pause["dice"]
    pauses = _still_runs(labels, min_frames=8)  # 0.4 s of stillness at 20 fps
    assert len(settled_at) >= len(pauses) - 1 > 0  # nearly every pause long enough is caught
    for start, end in pauses:
        hits = [i for i in settled_at if start <= i <= end]
        assert len(hits) <= 1


def _still_runs(labels, min_frames):
    runs, start = [], None
    for i, l in enumerate(labels + [{"still": False}]):
        if l["still"] and start is None:
            start = i
        elif not l["still"] and start is not None:
            if i - start >= min_frames:
                runs.append((start, i - 1))
            start = None
    return runs


# -- a video file is watched at the pace it was filmed --------------------------------------------------------


def test_a_folder_plays_at_its_own_pace_at_the_speed_asked(film):
    folder, count, _ = film
    now, waited = [0.0], []

    def wait(seconds):
        waited.append(seconds)
        now[0] += seconds

    items = list(at_speed(open_source(str(folder / "frames")).frames(), 2.0, clock=lambda: now[0], wait=wait))
    frames = [item for item in items if isinstance(item, Frame)]
    assert len(frames) == count and isinstance(items[0], Status) and isinstance(items[-1], Status)
    assert waited == pytest.approx([0.05 / 2] * (count - 1))  # 20 fps, twice as fast
    assert now[0] == pytest.approx(frames[-1].time / 2)


def test_frames_read_late_are_not_held_back_nor_dropped():
    image = np.zeros((2, 2, 3), np.uint8)
    frames = [Frame(image, t, i) for i, t in enumerate((0.0, 0.1, 0.2, 0.3))]
    ticks, waited = iter([0.0, 0.0, 1.0, 1.0, 1.0]), []
    out = list(at_speed(iter(frames), 1.0, clock=lambda: next(ticks), wait=waited.append))
    assert out == frames and waited == []
    with pytest.raises(ValueError):
        list(at_speed(iter(frames), 0.0))


class _RecordedWaits(threading.Event):
    """A stop event whose waits are noted, not slept."""

    def __init__(self):
        super().__init__()
        self.waits = []

    def wait(self, timeout=None):
        self.waits.append(timeout)
        return self.is_set()


class _Blind:
    """A board watcher that sees nothing: what is timed here is the source."""

    status = type("WatchStatus", (), {"warning": "", "confidence": 1.0})()

    def __init__(self, *args, **kwargs):
        pass

    def feed(self, image, time):
        return []


@pytest.mark.parametrize("speed", [1.0, None])
def test_the_camera_source_plays_a_file_at_its_speed_or_as_fast_as_it_reads(film, monkeypatch, speed):
    import companion.vision.watch as watch
    from companion.sources import CameraSource

    folder, count, _ = film
    monkeypatch.setattr(watch, "BoardWatcher", _Blind)
    stop = _RecordedWaits()
    CameraSource(str(folder / "frames"), profile=None, speed=speed, stop_event=stop).run(lambda o: None,
                                                                                        lambda s: None)
    if speed is None:
        assert stop.waits == []
    else:
        # the waits are noted, not slept: each frame is held back until the film's own time of it
        assert len(stop.waits) == count - 1 and stop.waits[-1] == pytest.approx((count - 1) / 20, abs=0.5)


def test_a_video_that_cannot_be_read_is_said_in_the_status_not_raised_into_the_app(tmp_path):
    from companion.sources import CameraSource

    said = []
    (tmp_path / "broken.mp4").write_bytes(b"\x00" * 64)
    for spec in (tmp_path / "missing.mp4", tmp_path / "broken.mp4"):
        CameraSource(str(spec), profile=None).run(lambda o: None, said.append)
    assert len(said) == 2 and all(s.startswith("video stopped: ") for s in said), said


def test_a_file_is_a_video_in_the_status_line_and_a_device_a_camera(film):
    folder, _, _ = film
    assert str(next(iter(open_source(str(folder / "frames")).frames()))).startswith("video connected")
    assert str(next(iter(open_source(str(folder / "game.mp4")).frames()))).startswith("video connected")
    assert str(next(iter(StreamSource(99, live=True, retry_seconds=0.01).frames()))).startswith("camera lost")


def test_a_video_of_another_size_than_the_profiles_is_said_in_the_status(film, monkeypatch):
    """A video read through another board's profile only said the set-up was wrong, at confidence 0.00."""
    import companion.vision.watch as watch
    from companion.sources import CameraSource
    from companion.vision.profile import Profile

    folder, _, _ = film
    monkeypatch.setattr(watch, "BoardWatcher", _Blind)
    said = []
    profile = Profile(((0, 0), (10, 0), (10, 10), (0, 10)), None, frame_size=(960, 540))
    CameraSource(str(folder / "frames"), profile=profile, speed=None).run(lambda o: None, said.append)
    assert "video: this picture is 640x360 pixels but the profile was calibrated on 960x540" in said[1], said
