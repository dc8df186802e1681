"""The `companion` command line: one subcommand per job, each with its own --help.

Errors a user can cause end with a one-line message on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Callable, Sequence

from companion import __version__
from companion.errors import CompanionError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit status 2: the full usage is one `--help` away."""

    def error(self, message: str):  # type: ignore[override]
        typo = re.match(r"argument COMMAND: invalid choice: '([^']*)'", message)
        commands = next((a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), None)
        if typo and commands:  # a mistyped command: the nearest one, as Python 3.14's suggest_on_error does (the
            # choices from the parser, not the message: 3.12.8 and 3.13.1 print them unquoted)
            near = difflib.get_close_matches(typo[1], list(commands), n=1)
            message = f"no command {typo[1]!r}" + (f": did you mean {near[0]!r}?" if near else "")
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (no upper bound when None)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low}..{high})" if high is not None
                                             else f"{value} is below {low}")
        return value
    return parse


def _seconds(text: str) -> float:
    """An argparse type: a duration, 0 or more seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):  # NaN fails this too
        raise argparse.ArgumentTypeError(f"{text} seconds: give 0 or more")
    return value


def _speed(text: str) -> float:
    """An argparse type: how many times a video's own pace it plays at, 0 for as fast as it is read."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a speed (1: as filmed, 2: twice as fast)") from None
    if not 0 <= value <= 1000:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"speed {text}: give 0 (as fast as it is read) or a factor up to 1000")
    return value


def _clock(text: str) -> tuple[float, float]:
    """An argparse type: DELAY,RESERVE_PER_POINT in seconds (12,120: 12 s a move, 2 minutes a point)."""
    try:
        delay, per_point = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give DELAY,RESERVE_PER_POINT in seconds, e.g. 12,120") from None
    if not (0 <= delay < 3600 and 0 < per_point <= 36000):
        raise argparse.ArgumentTypeError(f"{text}: a delay of 0..3600 s and a reserve of 1..36000 s a point")
    return delay, per_point


def _folder(text: str) -> str:
    """An argparse type: a folder to write into, new or existing, but not a file."""
    if Path(text).exists() and not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text} exists and is not a folder")
    return text


MAX_LENGTH = 64
"""The longest match GNU Backgammon plays: `rules.match.MAX_MATCH_LENGTH`, not imported so that `--help` starts
without the rules."""


def _cmd_check(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from companion.record.audit import audit_match
    from companion.record.jellyfish import read_match_file
    from companion.record.recorder import load_any
    from companion.record.sgf import read_sgf

    reports = []
    unreadable = []
    for name in map(_match_file, args.files):
        try:
            suffix = Path(name).suffix.lower()
            if suffix in (".jsonl", ".journal"):  # a recorded match: what its referee let stand, checked again
                recorder = load_any(name, salvage=args.salvage)[0]
                _note_if_torn(name, recorder)
                reports.append(audit_match(replace(recorder.record(), source=str(name))))
                continue
            reader = read_sgf if suffix == ".sgf" else read_match_file
            reports.append(audit_match(reader(name)))
        except CompanionError as exc:
            unreadable.append(str(exc))
    if args.json:
        out = {"files": [r.to_json() for r in reports], "unreadable": unreadable}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        for r in reports:
            status = "legal" if r.ok else f"{len(r.findings)} problem(s)"
            stood = sum(n.kind == "illegal-play-stood" for n in r.notes)
            if stood:
                status += f", {stood} illegal play(s) let stand"
            by_hand = sum(n.kind == "position-set" for n in r.notes)
            if by_hand:
                status += f", the board set by hand {by_hand} time(s)"
            winner = f", won by {r.players[r.winner]}" if r.winner is not None else ""
            length = f"{r.length}-point match" if r.length else "money play"
            print(f"{r.source}: {length}, {len(r.games)} game(s), {r.plays} plays checked: {status}"
                  f" (final score {r.final_score[0]}-{r.final_score[1]}{winner})")
            for f in r.findings:
                print(f"  {f}")
            for n in r.notes:
                print(f"  note: {n}")
        for message in unreadable:
            print(f"error: {message}", file=sys.stderr)
    if unreadable:
        return EXIT_USAGE
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FINDINGS


def _cmd_dicecup(args: argparse.Namespace) -> int:
    import time

    from companion.devices import DiceCupDriver, SoftwareDiceCup
    from companion.referee.observations import DiceReading

    from companion.devices.driver import Link

    if args.simulate and args.port:
        raise CompanionError("--simulate runs a software cup of its own: leave out --port")
    if not args.simulate and (args.rolls or args.seed is not None):
        raise CompanionError("--rolls and --seed go with --simulate (a real cup rolls when it is shaken)")
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a kill still closes the port and the software cup
    cup = SoftwareDiceCup(seed=args.seed).start() if args.simulate else None
    port = cup.path if cup is not None else args.port
    driver = DiceCupDriver(port)
    rolls, next_roll = 0, time.monotonic() + 1.0
    deadline = time.monotonic() + args.seconds if args.seconds else None
    give_up = time.monotonic() + args.wait
    print(f"looking for the dice cup on {port or 'its USB ids'} (up to {args.wait:g} s)", file=sys.stderr, flush=True)
    last, answered = "", False
    try:
        while deadline is None or time.monotonic() < deadline:
            answered = answered or driver.link is Link.CONNECTED
            if not answered and time.monotonic() >= give_up:  # not found, or a port that is no dice cup
                why = driver.unanswered() if driver.link is Link.CONNECTING else last or "no dice cup found"
                raise CompanionError(f"{why}; gave up after {args.wait:g} s")
            for item in driver.poll(0.05):
                last = str(item) if not isinstance(item, DiceReading) else last
                if isinstance(item, DiceReading) and item.valid:
                    rolls += 1
                    print(f"roll {item.sequence}: {item.values[0]}-{item.values[1]}", flush=True)
                elif isinstance(item, DiceReading):
                    print(f"no roll: {item.reason}", flush=True)
                else:
                    print(item, flush=True)
            if cup is not None and time.monotonic() >= next_roll:
                if args.rolls and cup.acknowledged and rolls >= args.rolls:
                    break
                if cup.acknowledged:
                    cup.roll()
                next_roll = time.monotonic() + 1.0
    finally:
        driver.close()
        if cup is not None:
            cup.close()
    return EXIT_OK


# -- analysis --------------------------------------------------------------------------------------------


ANALYSE_TOP = 8
"""The plays `analyse` lists unless `--top` says otherwise."""


def _cmd_analyse(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from companion.analysis import DEEP, FAST, Engine
    from companion.rules import GameState, Phase, Roll

    # an option that does not apply is refused, not ignored: the user meant something by it
    if args.match and (args.dice or args.top is not None or args.match_id):
        raise CompanionError("--dice, --top and --match-id are for one position; --match rates every decision of "
                             "the match (--all lists them all)")
    top = ANALYSE_TOP if args.top is None else args.top
    if not args.match and (args.all or args.no_cube):
        raise CompanionError("--all and --no-cube go with --match FILE")
    if args.match:
        return _analyse_match(args)
    if args.xgid:
        game = GameState.from_xgid(args.xgid)
    elif args.position_id:
        position_id, match_id = args.position_id, args.match_id
        if ":" in position_id and match_id is None:  # the app's and gnubg's "IDs" line: Position ID:Match ID
            position_id, match_id = position_id.split(":", 1)
        game = GameState.from_gnubg_id(position_id, match_id)
    else:
        raise CompanionError("give a position: --xgid X, --position-id P [--match-id M], or --match FILE")
    if args.dice:
        if game.phase is Phase.DOUBLED:
            raise CompanionError("a double is waiting for an answer: no dice to play")
        game = replace(game, phase=Phase.PLAY, dice=Roll(*_dice_arg(args.dice)))
    engine = Engine()
    level = DEEP if args.deep else FAST
    if game.phase is Phase.PLAY:
        hint = engine.hint_for(game, level=level)
        if args.json:
            print(json.dumps({"xgid": game.xgid(), "gnubg_id": game.gnubg_id(), "roll": str(hint.roll),
                              "level": hint.level, "plays": [
                                  # a forced play is not evaluated: no equity, as no chances (not a real-looking 0)
                                  {"play": r.play.notation, "forced": len(hint.plays) == 1,
                                   "equity": None if len(hint.plays) == 1 else round(r.equity, 4),
                                   "loss": round(r.loss, 4),
                                   "win": _round(r.chances.win), "win_gammon": _round(r.chances.win_gammon),
                                   "lose_gammon": _round(r.chances.lose_gammon)} for r in hint.plays]}, indent=2))
        elif len(hint.plays) == 1 and not hint.plays[0].play.notation:
            print(f"{game.xgid()}\n{hint.roll} to play: no legal play (the roll cannot be played)")
        elif len(hint.plays) == 1:  # nothing was ranked: no equity to show
            print(f"{game.xgid()}\n{hint.roll} to play: {hint.plays[0].play.notation} is forced "
                  "(the only legal play)")
        else:
            print(f"{game.xgid()}\n{hint.roll} to play ({hint.level}):")
            for i, r in enumerate(hint.plays[:top], start=1):
                print(f"{i:>3}. {r.play.notation or 'no move':<28} {r.equity:+.3f}" + (f"  ({-r.loss:+.3f})" if i > 1 else ""))
        return EXIT_OK
    advice = engine.cube_for(game, level=level)
    if advice is None:
        why = game.match.why_no_double(game.turn) if game.phase is Phase.ROLL else game.phase.doing
        raise CompanionError(f"no cube decision here: {why}")
    if args.json:
        print(json.dumps({"xgid": game.xgid(), "gnubg_id": game.gnubg_id(), "level": advice.level,
                          "action": advice.action.value, "no_double": round(advice.no_double, 4),
                          "double_take": round(advice.double_take, 4), "double_pass": round(advice.double_pass, 4),
                          "win": round(advice.chances.win, 4), "win_gammon": round(advice.chances.win_gammon, 4),
                          "lose_gammon": round(advice.chances.lose_gammon, 4)}, indent=2))
    else:
        print(f"{game.xgid()}\nCube decision ({advice.level}): {advice.action.value}")
        print(f"  No double    {advice.no_double:+.3f}\n  Double/take  {advice.double_take:+.3f}\n"
              f"  Double/pass  {advice.double_pass:+.3f}")
        print(f"  Win {advice.chances.win:.1%}, gammon {advice.chances.win_gammon:.1%}; "
              f"lose gammon {advice.chances.lose_gammon:.1%}")
    return EXIT_OK


def _dice_arg(values: list[str]) -> tuple[int, int]:
    """`--dice 3 1` or `--dice 31`, as the app takes a roll: two faces 1..6."""
    text = "".join(values)
    if not (len(text) == 2 and all(c in "123456" for c in text)):
        raise CompanionError(f"--dice {' '.join(values)}: give the two dice, 3 1 or 31 (each 1 to 6)")
    return int(text[0]), int(text[1])


def _round(value: float) -> float | None:
    return None if value != value else round(value, 4)  # NaN: a forced play was not evaluated


def _analyse_match(args: argparse.Namespace) -> int:
    from companion.analysis import DEEP, FAST, Engine, review_match
    from companion.record.recorder import load_any
    from companion.referee import Referee

    args.match = _match_file(args.match)
    loaded, report = load_any(args.match)
    _note_if_torn(args.match, loaded)
    if report is not None and not report.ok:
        # rated as the referee replays it: an illegal play is left out and what follows it is rated from where it
        # left the board, so the user hears why the ratings may not be the ones the players earned
        first = "; ".join(str(finding) for finding in report.findings[:3])
        print(f"note: {args.match} breaks the rules in {len(report.findings)} place(s) ({first}); illegal plays are "
              f"not rated and the plays after them are rated from where they left the board "
              f"(`companion check {args.match}` lists them)", file=sys.stderr)
    replayed = Referee(loaded.header.match_state()).replay(loaded.observations)
    review = review_match(replayed, Engine(), loaded.names, cube=not args.no_cube, level=DEEP if args.deep else FAST)
    if args.json:
        print(json.dumps(review.to_json(), indent=2, ensure_ascii=False))
    else:
        print(review.text(every=args.all))
    return EXIT_OK


# -- recording -------------------------------------------------------------------------------------------


def _cmd_convert(args: argparse.Namespace) -> int:
    from companion.record.recorder import load_any, write_converted

    target = Path(args.target)
    suffix = target.suffix.lower()
    if suffix not in (".jsonl", ".journal", ".mat", ".txt", ".sgf"):
        raise CompanionError(f"cannot write {suffix or 'files without a suffix'}: use .jsonl (a journal), .mat, .txt "
                             f"or .sgf")
    if target.exists() and suffix in (".jsonl", ".journal"):
        raise CompanionError(f"{target} exists already: a journal is never replaced (name another file)")
    if target.exists() and not args.force:
        raise CompanionError(f"{target} exists already: --force replaces it (or name another file)")
    args.source = _match_file(args.source)
    recorder, report = load_any(args.source, salvage=args.salvage)
    _note_if_torn(args.source, recorder)
    write_converted(recorder, report, args.source, args.target)
    if report is not None and not report.ok:
        print(f"note: {args.source} breaks the rules in {len(report.findings)} place(s); written as the referee saw it",
              file=sys.stderr)
    print(f"wrote {args.target}")
    return EXIT_OK


SALVAGE_HELP = ("a journal with a damaged line: read the match up to it (what follows a lost entry cannot be "
                "replayed); the file is left as it is")
DEFAULT_PLAYERS = ("Player 0", "Player 1")
DEFAULT_LENGTH = 7


def _journal_to_resume(path: Path) -> Path:
    """`--resume`'s journal: as given, else a bare name (the app's status line shows the journal's name) in the
    user data folder, where journals go by default; with `.jsonl` added where it was left off."""
    if not path.name:  # "" or "/": no journal's name
        raise CompanionError(f"--resume {str(path)!r} names no journal")
    found = _found_journal(path)
    if found is None and path.parent == Path(".") and not path.exists():
        raise CompanionError(f"no journal {path} here or in {_data_dir()}, where journals go by default")
    return found or path


def _found_journal(path: Path) -> Path | None:
    """A journal as given or with `.jsonl` added, else under that bare name in the user data folder (where journals
    go by default, and the app's status line names them); None where there is none."""
    candidates = [path, path.with_name(path.name + ".jsonl")]
    if path.parent == Path("."):
        candidates += [_data_dir() / c.name for c in candidates]
    return next((c for c in candidates if c.is_file()), None)


def _match_file(name: str) -> str:
    """A match file to read: as given, else a journal's bare name found as `--resume` finds it."""
    path = Path(name)
    if path.exists() or path.suffix.lower() not in (".jsonl", ".journal"):
        return name
    return str(_found_journal(path) or name)


def _note_if_torn(path, recorder) -> None:
    """A journal whose last line a crash cut short is read without it (`run --resume` drops it from the file):
    said, so that a check or an export of it is not taken for the whole match."""
    if recorder.torn:
        print(f"note: the last line of {path} was cut short (the app stopped while writing it) and is left out",
              file=sys.stderr)
    if recorder.damaged_at is not None:
        print(f"note: {path} is read up to its line {recorder.damaged_at}, which is damaged: what follows is left out",
              file=sys.stderr)


def _data_dir() -> Path:
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "backgammon-companion" / "matches"


def _new_journal_path(folder: Path) -> Path:
    import time

    return folder / time.strftime("match-%Y%m%d-%H%M%S.jsonl")


def _recorder_for(args: argparse.Namespace, loaded=None):
    """`loaded`: the file a replay follows, whose match information (event, round, site, date...) the journal
    keeps, so that its export carries it as `convert` does."""
    from companion.record.journal import JournalHeader
    from companion.record.recorder import Recorder

    if args.resume:
        recorder = Recorder.resume(args.resume)
        if recorder.torn:
            print(f"note: the last entry of {args.resume} was cut short by the crash and was dropped", file=sys.stderr)
        given = [name for name, value, held in (("--players", args.players, list(recorder.names)),
                                                 ("--length", args.length, recorder.header.length))
                 if value is not None and value != held]
        if given:
            length = f"{recorder.header.length}-point match" if recorder.header.length else "money play"
            print(f"note: {' and '.join(given)} left as the journal has them ({recorder.names[0]} v "
                  f"{recorder.names[1]}, {length}): a resumed match is the match it was", file=sys.stderr)
        return recorder
    import time

    # a replayed file keeps its own information; a match played now (not a film) is dated, as .mat and .sgf carry it
    if loaded is not None:
        metadata = dict(loaded.header.metadata)
    else:
        metadata = {} if args.replay or args.video else {"EventDate": time.strftime("%Y.%m.%d")}
    length = DEFAULT_LENGTH if args.length is None else args.length
    header = JournalHeader(tuple(args.players or DEFAULT_PLAYERS), length, mode=args.mode or "record",
                           clock=args.clock, metadata=metadata)
    return Recorder.create(args.journal or _new_journal_path(_data_dir()), header)


def _source_for(args: argparse.Namespace, delay: float):
    from companion.sources import CameraSource, DiceCupSource, ReplaySource, Sources

    if args.speed is not None and (not args.video or "://" in args.video):
        raise CompanionError("--speed is how fast a --video file plays; a camera, a stream and a replay (--delay) "
                             "keep their own pace")
    if args.camera is not None or args.video:
        from companion.vision.capture import open_source
        from companion.vision.profile import Profile, default_profile_path

        if args.video:  # a missing or unreadable file is said now, before a journal is begun for it
            open_source(args.video).check()

        profile = Profile.load(Path(args.profile) if args.profile else default_profile_path())
        # in the app a film plays as it was filmed (the clock, the correction window); without it, at once
        speed = args.speed if args.speed is not None else (0.0 if args.no_ui else 1.0)
        camera = CameraSource(args.video or str(args.camera), profile, read_dice=not args.dicecup,
                              speed=speed or None)
        if args.dicecup:
            return Sources([camera, DiceCupSource(None if args.dicecup == "auto" else args.dicecup)]), None
        return camera, None
    if args.replay:
        from companion.record.recorder import load_any

        loaded, _ = load_any(args.replay)
        return ReplaySource(loaded.observations, delay, name=Path(args.replay).name), loaded
    if args.dicecup:
        return DiceCupSource(None if args.dicecup == "auto" else args.dicecup), None
    return None, None


def _club_settings(args: argparse.Namespace):
    """(URL, password) of the board's link to the club (`--club URL --board N`), or None; checked before the
    match starts, so a missing password is said at once."""
    if not args.club:
        if args.board or args.token_file or args.user or args.password:
            raise CompanionError("--board, --user, --password and --token-file go with --club mqtt://HOST/EVENT")
        return None
    from companion.club.serve import read_secret
    from companion.club.topics import ClubURL, check_name

    if not args.board:
        raise CompanionError("--club needs the board's number or name: --board 7")
    check_name("board", args.board)
    url = ClubURL.parse(args.club)
    password = args.password or (read_secret(args.token_file) if args.token_file else None) or url.password
    if password is None:
        raise CompanionError("the club's broker needs this board's password: --token-file FILE or --password")
    return url, password


def _cmd_run(args: argparse.Namespace) -> int:
    if args.resume:
        args.resume = _journal_to_resume(args.resume)
    delay = args.delay if args.delay is not None else (0.0 if args.no_ui else 0.5)
    club_settings = _club_settings(args)
    source, loaded = _source_for(args, delay)
    if loaded is not None and not args.resume:  # players and match length come with the file
        args.players, args.length = list(loaded.names), loaded.header.length
    recorder = _recorder_for(args, loaded)
    if loaded is not None and args.resume:
        try:
            _same_match(recorder, loaded, args)
        except CompanionError:
            recorder.close()
            raise
    if loaded is not None:  # resuming a replay: what the journal holds was seen already
        source.observations = source.observations[len(recorder.observations):]
    club = None
    try:
        if club_settings is not None:
            from companion.club.publisher import Publisher

            url, password = club_settings
            club = Publisher(recorder.journal, url, args.board, user=args.user, password=password,
                             ca=args.ca).start()
        if args.no_ui:
            try:
                status = _run_headless(recorder, source, args)
            except KeyboardInterrupt:  # Ctrl-C ends a headless run: say where the match is, as the app does
                if recorder.journal is not None:
                    print(f"The match is journalled in {recorder.journal.path}", file=sys.stderr, flush=True)
                raise
            if club is not None:  # the match is over here: give the link a moment to deliver the rest
                club.flush(args.club_wait)
                print(club.status().text(), flush=True)
            return status
        from companion.tui.app import CompanionApp

        mode = args.mode or recorder.header.mode or "record"
        clock = None
        args.clock = _clock_settings(args, recorder)
        if args.clock:
            from companion.rules.clock import MatchClock

            clock = MatchClock.for_match(recorder.header.length, *args.clock)
        CompanionApp(recorder, mode=mode, source=source, export_path=args.out,
                     clock=clock, club=club).run()
        return EXIT_OK
    finally:
        if club is not None:
            club.stop()
        if source is not None:
            source.stop()
        recorder.close()
        if recorder.journal is not None and not args.no_ui:
            print(f"The match is journalled in {recorder.journal.path}")
            if recorder.referee.state.match_over:
                print(f"  it is over: companion export {recorder.journal.path} match{_export_suffix(recorder)} "
                      "exports it")
            else:  # a clock the header does not hold (another than it began with, or an old journal's) is given
                clock = (f" --clock {args.clock[0]:g},{args.clock[1]:g}"
                         if args.clock and args.clock != recorder.header.clock else "")
                print(f"  go on with it: companion run --resume {recorder.journal.path}{clock}")


def _export_suffix(recorder) -> str:
    """.mat, or .sgf where the match holds what .mat cannot carry (an illegal play that stood, a position set)."""
    from companion.record.recorder import format_record

    try:
        format_record(recorder.record(), ".mat")
    except CompanionError:
        return ".sgf"
    return ".mat"


def _clock_settings(args: argparse.Namespace, recorder) -> tuple[float, float] | None:
    """The match clock's delay and reserve a point: as given, else a resumed match's own (its header's)."""
    if args.clock or not args.resume:
        return args.clock
    if recorder.header.clock is None and recorder.clock_used is not None:  # journalled before the header kept it
        print("note: this match was played with a match clock: resume it with --clock DELAY,RESERVE to keep it (the "
              "time used is in the journal)", file=sys.stderr)
    return recorder.header.clock


def _same_match(recorder, loaded, args: argparse.Namespace) -> None:
    """A journal is one match: `--resume J --replay F` goes on only if J holds the beginning of F."""
    held = recorder.observations
    if (recorder.names != loaded.names or recorder.header.length != loaded.header.length
            or list(held) != list(loaded.observations[:len(held)])):
        raise CompanionError(f"{args.resume} holds another match than {args.replay} "
                             f"({recorder.names[0]} v {recorder.names[1]}, {recorder.header.length or 'money'}"
                             f"{'-point match' if recorder.header.length else ''}): a journal is one match; "
                             "replay into a new journal (leave out --resume)")


def _cmd_serve(args: argparse.Namespace) -> int:
    import signal
    import threading
    import time

    from companion.club.serve import ClubNight, ServeOptions, read_secret

    folder = args.folder or (_data_dir().parent / "club" / args.event)
    password = args.password or (read_secret(args.token_file) if args.token_file else None)
    options = ServeOptions(folder, args.event, args.broker, args.boards, args.db, args.listen, args.port,
                           args.mqtt_port, args.user, password, args.ca)
    advisor, engine = None, None
    if not args.referee_only:
        from companion.analysis.engine import EngineProcess
        from companion.analysis.spectator import spectator_advice

        engine = EngineProcess()  # bgsage holds the GIL while it thinks: not in the server's process
        advisor = lambda game: spectator_advice(engine, game)  # noqa: E731
    try:
        night = ClubNight(options, advisor).start()
    except BaseException:
        if engine is not None:
            engine.close()
        raise
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    deadline = time.monotonic() + args.seconds if args.seconds else None
    try:  # from here on a Ctrl-C stops what was started and says what was stored
        where = "every interface" if args.listen else "this machine only (--listen to open it to the room)"
        print(f"club {night.url.event}: page {night.web_thread.url}/  (listening on {where})", flush=True)
        if args.listen:
            from companion.club.serve import lan_addresses

            for address in lan_addresses():
                print(f"  from the room: http://{address}:{night.web_thread.port}/", flush=True)
        print(f"director: {night.web_thread.url}/director?token={night.token}", flush=True)
        if night.broker is not None:
            print(f"broker {night.broker.url()}, board passwords in {night.folder / 'tokens'}", flush=True)
            print(f"a board joins with: {night.board_command('1')}", flush=True)
        while not stop.wait(1.0) and (deadline is None or time.monotonic() < deadline):
            try:
                said = night.keep_broker()
            except CompanionError as exc:  # it will not start: say so, and try again next second
                said = f"the broker stopped and does not start again: {exc}"
            if said:
                print(said, file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        night.stop()
        if engine is not None:
            engine.close()
    s = night.server.stats
    print(f"stored {s['stored']} lines, {s['duplicates']} sent twice, {s['refused']} refused, "
          f"{s['flagged']} disagreements", flush=True)
    return EXIT_OK


def _run_headless(recorder, source, args: argparse.Namespace) -> int:
    import threading

    from companion.sources import CameraSource, DiceCupSource, Sources, hand_back, run_source_until_done

    if source is None:
        return _run_typed(recorder, args)
    lock = threading.Lock()  # the source's thread and the typed lines' take turns with the referee
    typing = isinstance(source, DiceCupSource)  # no camera sees the plays: they are typed, the verdicts shown

    def emit(observation) -> None:
        with lock:
            events = recorder.observe(observation)
            for event in events:
                if args.print_events or typing:
                    print(event.text(recorder.names), flush=True)
        hand_back(source, observation, events)  # the camera learns what this board's empty points look like

    if typing:
        threading.Thread(target=_type_lines, args=(recorder, lock), name="typed-lines", daemon=True).start()

    # a device that cannot be opened is looked for again for a stated while, then the command gives up
    device = isinstance(source, (CameraSource, DiceCupSource, Sources))
    opened, gave_up, last = threading.Event(), threading.Event(), [""]

    def status(text: str) -> None:
        if text != last[0] and device:
            print(text, file=sys.stderr, flush=True)
        last[0] = text
        if "connected" in text or "fps" in text:  # a port that opens but gives no dice cup line is not the cup
            opened.set()

    def give_up() -> None:
        if not opened.is_set():
            gave_up.set()
            source.stop()

    if device:
        opening = " and the ".join(name for name, given in (("video", args.video), ("camera", args.camera is not None),
                                                             ("dice cup", args.dicecup)) if given) or "source"
        print(f"opening the {opening} (up to {args.wait:g} s)", file=sys.stderr, flush=True)
        timer = threading.Timer(args.wait, give_up)
        timer.daemon = True
        timer.start()
    run_source_until_done(source, emit, status, args.seconds or None)
    if gave_up.is_set():
        said = last[0].split(";")[0] or "the device cannot be opened"
        kept = ""
        if recorder.journal is not None and not recorder.observations and not args.resume:
            recorder.close()  # begun by this run, and nothing in it: not left behind as a match
            recorder.journal.path.unlink(missing_ok=True)
            kept = " (nothing was recorded: no journal kept)"
        raise CompanionError(f"{said}; gave up after {args.wait:g} s{kept}")
    if args.out:
        _export_at_end(recorder, args.out)
    return EXIT_OK


def _export_at_end(recorder, out: Path) -> None:
    """A headless run's `--out`, written beside an existing file of that name rather than over it (as the app's
    export does): the run cannot ask, and a record there may be the only copy of another match."""
    from companion.files import unique_path

    if not recorder.record().games:  # a .mat of no game keeps neither the players nor anything else
        print(f"nothing was played: {out} is not written (the journal {_journal_name(recorder)} keeps the match's "
              "players)", file=sys.stderr)
        return
    path = unique_path(Path(out))
    recorder.export(path)
    print(f"wrote {path}" + (f" ({out} exists already: it is never replaced)" if path != Path(out) else ""))


def _journal_name(recorder) -> str:
    return str(recorder.journal.path) if recorder.journal is not None else "(none)"


def _type_lines(recorder, lock) -> None:
    """Typed plays and commands from standard input beside a dice cup's rolls (`run --no-ui --dicecup`)."""
    import contextlib

    from companion.record.journal import JournalError

    for line in sys.stdin:
        with lock, contextlib.suppress(JournalError):  # a journal closed at the end: the run is over
            _observe_typed(recorder, line)


def _observe_typed(recorder, line: str) -> None:
    """One typed line observed, its events printed; a line that cannot be taken is said on standard error."""
    from companion.referee.typed import observations_typed

    try:
        observations = observations_typed(line, recorder.referee.state, sequence=len(recorder.observations) + 1)
    except CompanionError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return
    for observation in observations:
        for event in recorder.observe(observation):
            print(event.text(recorder.names), flush=True)


def _run_typed(recorder, args: argparse.Namespace) -> int:
    """The keyboard-only mode without the app: one line of dice, play or command at a time."""
    for line in sys.stdin:
        _observe_typed(recorder, line)
    if args.out:
        _export_at_end(recorder, args.out)
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    import tempfile
    from importlib.resources import files

    from companion.record.journal import JournalHeader
    from companion.record.recorder import Recorder, load_any
    from companion.sources import FilmSource, ReplaySource

    folder = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    if args.match:
        demo = files("companion") / "data" / "demo.mat"
        loaded, _ = load_any(str(demo))
        recorder = Recorder.create(folder / "demo.jsonl", JournalHeader(loaded.names, loaded.header.length,
                                                                        mode="train", metadata={"Event": "demo"}))
        source = ReplaySource(loaded.observations, args.delay, name="demo match")
    else:  # a game rendered as it is watched, read by vision
        recorder = Recorder.create(folder / "demo.jsonl", JournalHeader(("Light", "Dark"), 0, mode="train",
                                                                        metadata={"Event": "demo film"}))
        source = FilmSource(seed=args.seed, dice_from_labels=args.dice == "labels")
    try:
        if args.no_ui:
            args.print_events = True
            return _run_headless(recorder, source, args)
        from companion.tui.app import CompanionApp

        app = CompanionApp(recorder, mode="train", source=source, export_path=folder / "demo.mat")
        app.run(auto_pilot=_stop_after(args.seconds) if args.seconds else None)
    finally:
        source.stop()
        recorder.close()
        # said however the demo ended: its journal resumes it (`run --resume`), hints and ratings with it
        print(f"The demo's journal is in {folder} (go on with it: companion run --resume "
              f"{shlex.quote(str(folder / 'demo.jsonl'))})")
    return EXIT_OK


def _stop_after(seconds: float):
    """An auto-pilot for `App.run` that closes the app after `seconds`, as `--seconds` stops the headless demo."""
    async def stop(pilot) -> None:
        # a timer, not a sleep here: Textual waits for the auto-pilot before it shuts down, so a user quitting
        # early would wait out the seconds
        pilot.app.set_timer(seconds, pilot.app.exit)
    return stop


# -- vision ----------------------------------------------------------------------------------------------


def _load_image(path: str):
    import cv2

    from companion.vision.reader import NotABoard

    image = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
    if image is None:
        raise NotABoard(f"cannot read an image from {path} (missing, not an image, or damaged)")
    return image


CORNER_SLACK = 0.02
"""How far outside the picture a given corner may lie, as a share of its size: a corner just off the edge is a click's
error; one further out is another picture's pixels."""


def _corners_arg(args: argparse.Namespace, image):
    from companion.vision.plane import corner_order_warning, in_image_order, parse_corners

    if not args.corners:
        return None
    try:
        corners = parse_corners(args.corners)
    except ValueError as exc:
        raise CompanionError(f"--corners: {exc}") from None
    height, width = image.shape[:2]
    for x, y in corners:
        if not (-CORNER_SLACK * width <= x <= (1 + CORNER_SLACK) * width
                and -CORNER_SLACK * height <= y <= (1 + CORNER_SLACK) * height):
            raise CompanionError(f"--corners: {x:g},{y:g} lies outside the picture ({width}x{height} pixels): give the "
                                 "playing area's corners in this picture's pixels")
    warning = corner_order_warning(corners)
    if warning:  # read in the picture's order, and say so: whose side is whose is not the corners' to say
        corners = tuple((float(x), float(y)) for x, y in in_image_order(corners))  # type: ignore[assignment]
        shown = " ".join(f"{x:g},{y:g}" for x, y in corners)
        print(f"warning: --corners: {warning}; read as the picture shows them instead: {shown}", file=sys.stderr)
    return corners


FLAT_DICE = "the dice are painted on the picture (frames from companion render or film), not standing on the board"


def _cmd_read(args: argparse.Namespace) -> int:
    from companion.vision.camera import Camera
    from companion.vision.dice import DiceReader
    from companion.vision.locate import playing_area
    from companion.vision.roll import cube_json, dice_json
    from companion.vision.profile import Profile
    from companion.vision.reader import BoardReader, NotABoard, looks_like_a_board
    from companion.vision.strip_reader import BOARD_LEAST, GIVEN_LEAST

    if args.profile and (args.player0 or args.home):
        raise CompanionError("--player0 and --home are for reading without a profile: the profile knows whose side is "
                             "whose (calibrate again to change it)")
    if args.json and (args.player0 or args.home):
        raise CompanionError("--player0 and --home say whose side is whose for the text's Position ID and XGID; "
                             "--json gives them with a profile only (its points are in the picture's order)")
    image = _load_image(args.image)
    profile = Profile.load(Path(args.profile)) if args.profile else None
    corners = _corners_arg(args, image)
    given = corners is not None
    warning = None
    if corners is None and profile is not None:
        corners, warning = profile.locate(image)
        warning = "; ".join(w for w in (profile.size_warning(image), warning) if w) or None
        given = True  # calibrated on this board: it is there
    elif corners is None:
        corners = playing_area(image)
    geometry = None
    if profile is not None:
        reader = profile.board_reader(corners)
        geometry = getattr(reader, "geometry", None)
    elif args.reader == "classic":
        reader = BoardReader(corners)
    else:
        from companion.vision.geometry import fit_bar
        from companion.vision.strip_reader import StripReader

        geometry = fit_bar(image, corners)
        reader = StripReader(corners, geometry)
    reading = reader.read(image)
    if isinstance(reader, BoardReader):
        if not looks_like_a_board(reader, image, reading) and not given:
            raise NotABoard(f"{args.image} does not show a backgammon board where it was looked for")
    elif reading.board < BOARD_LEAST:
        if not given or reading.board < GIVEN_LEAST:
            where = ("the corners say" if args.corners or profile is None else "the profile's corners say"
                     ) if given else "it was looked for"
            why = f"; {warning}" if warning else ""  # a picture of another size than the profile's, first of all
            raise NotABoard(f"{args.image} does not show a backgammon board where {where} (board confidence "
                            f"{reading.board:.2f}){'' if given else ': give its corners with --corners'}{why}")
        # the user says the board is there: read it, and say how unsure
        whose = ("the corners" if args.corners or profile is None or profile.localisation != "corners" else
                 "the profile's corners (has the camera or the board moved? give --corners, or calibrate again)")
        warning = (warning + "; " if warning else "") + (
            f"{whose} do not look like a backgammon board's (board confidence {reading.board:.2f}): check them")
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    found = DiceReader().read_board(image, reader.plane, trays=reader.trays)
    if not (args.flat_dice or (profile is not None and profile.flat_dice)):
        found = Camera.from_plane(reader.plane, (image.shape[1], image.shape[0])).stand(found)
    orientation = profile.orientation if profile is not None else None
    if args.json:
        data = reading.to_json()
        data["dice"], data["cube"] = dice_json(found, reading), cube_json(found, orientation)
        data["corners"] = [[round(x, 1), round(y, 1)] for x, y in corners]
        data["geometry"] = None if geometry is None else {
            "play_width": geometry.play_width, "play_height": geometry.play_height,
            "bar_width": round(geometry.bar_width, 2), "point_length": geometry.point_length,
            "checker": round(geometry.checker, 2)}
        if profile is not None:  # the profile says whose side is whose: the IDs are known, or why not
            data["ids"], why_not = _ids(reading, found, profile.orientation)
            if data["ids"] is None:
                data["no_ids"] = why_not
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(_reading_text(reading))
    print(_found_text(found, reading, orientation))
    if profile is not None:
        return _print_ids(reading, found, profile.orientation, f"player 0: {profile.orientation.player0_colour} "
                          f"(the profile's)")
    # no profile says whose side is whose: the way round the user says, else the colours of the checkers on the bar
    # and in the trays, whose halves are each player's by where they lie; else light
    from companion.vision.orientation import Orientation

    ways = [Orientation(home_right=args.home != "left", player0_colour=colour)
            for colour in ([args.player0] if args.player0 else ["light", "dark"])]
    orientation = max(ways, key=lambda o: _halves_agreeing(reading, o))  # the first (light) where they do not say
    why = "" if args.player0 or orientation is ways[0] else " as the bar and trays show"
    return _print_ids(reading, found, orientation, f"player 0: {orientation.player0_colour}{why}, at the bottom of "
                      f"the picture, home board on his {args.home or 'right'} (--player0, --home to change)")


def _halves_agreeing(reading, orientation) -> int:
    """How many checkers on the bar and in the trays lie in their own colour's half under `orientation`, less those
    in the other colour's."""
    return sum(half.count * (1 if orientation.colour_of(player) == half.colour else -1)
               for _, player, half in reading.side_halves(orientation) if half.colour is not None)


def _ids(reading, found, orientation) -> tuple[dict | None, str]:
    """The Position ID and XGID of `reading` seen under `orientation`, with the roll and the cube the photo shows
    ({"on_roll", "colour", "dice", "position_id", "xgid"}, ""); or (None, why there are none). The roller is the
    player in whose right-hand half both dice lie (player 0 without dice)."""
    from companion.referee.observations import CubePlace
    from companion.rules import Position
    from companion.rules.dice import Roll
    from companion.rules.match import MatchState
    from companion.rules.xgid import BOTTOM, TOP, XgidState, format_xgid
    from companion.vision.roll import cube_reading, dice_reading
    from companion.vision.strip_reader import BOARD_LEAST

    if reading.board < BOARD_LEAST:  # an ID names a position exactly: never give one for a guess at a board
        return None, f"the reading is too unsure that this is the board (board confidence {reading.board:.2f})"
    zero, one = reading.to_board_reading(orientation).best_guess()
    try:
        position = Position(tuple(zero), tuple(one))
    except CompanionError:  # said by player, not as the rules' "player on roll" and "opponent"
        on_board = [sum(side[1:]) for side in (zero, one)]  # points and bar, not the trays
        return None, (f"the board as read is not a position (on the board, player 0 ({orientation.colour_of(0)}) has "
                      f"{on_board[0]} checkers and player 1 ({orientation.colour_of(1)}) {on_board[1]}, with "
                      f"{zero[0]} and {one[0]} borne off; each has 15)")
    roll, dice, on_roll = dice_reading(found, reading, orientation), None, 0
    if roll is not None and roll.valid and len(roll.values) == 2 and None not in roll.halves:
        first, second = roll.values
        if len(set(roll.halves)) == 1:  # thrown in the roller's right-hand half
            dice, on_roll = Roll(first, second), roll.halves[0]
        elif first != second:  # the opening roll, player 0's die first: the higher die plays both
            dice, on_roll = Roll(first, second), 0 if first > second else 1
    cube = cube_reading(found, orientation)
    match = MatchState()
    if cube is not None and cube.place is not CubePlace.OFFERED:
        owner = {CubePlace.PLAYER0: BOTTOM, CubePlace.PLAYER1: TOP}.get(cube.place)  # the XGID's numbering
        match = MatchState(cube=cube.cube, cube_owner=owner)
    seen = position if on_roll == 0 else position.swap()
    return {"on_roll": on_roll, "colour": orientation.colour_of(on_roll), "dice": str(dice) if dice else None,
            "position_id": seen.position_id(),
            "xgid": format_xgid(XgidState(seen, match, BOTTOM if on_roll == 0 else TOP, dice))}, ""


def _print_ids(reading, found, orientation, whose: str) -> int:
    """The IDs of `_ids` as text after `whose` (how the orientation was known), or why there are none (exit 1)."""
    ids, why_not = _ids(reading, found, orientation)
    if ids is None:
        print(f"no Position ID: {why_not}")
        return EXIT_FINDINGS
    print(whose)
    print(f"player {ids['on_roll']} ({ids['colour']}) on roll" + (f", {ids['dice']} to play:" if ids["dice"] else ":"))
    print(f"Position ID: {ids['position_id']}")
    print(ids["xgid"])
    return EXIT_OK


def _cmd_dice(args: argparse.Namespace) -> int:
    from companion.vision.dice import DiceReader
    from companion.vision.roll import dice_json

    image = _load_image(args.image)
    found = DiceReader().read_photo(image)
    if args.json:
        print(json.dumps(dice_json(found)))
        return EXIT_OK
    print(_found_text(found))
    return EXIT_OK


def _found_text(found, reading=None, orientation=None) -> str:
    from companion.vision.orientation import Orientation
    from companion.vision.roll import cube_json, dice_json, dice_reading

    lines = []
    for die in dice_json(found, reading):
        x, y, w, h = die["box"]
        state = "" if die["valid"] else f"  (void: {die['reason']})"
        lines.append(f"die {die['value']} at x={x} y={y} ({w}x{h} px), confidence {die['confidence']:.2f}{state}")
    if not lines:
        lines.append("no dice")
    elif dice_reading(found, reading, orientation or Orientation()) is None:  # as the referee would wait
        lines.append(f"the roll is unclear ({len(found.dice)} {'die' if len(found.dice) == 1 else 'dice'} found): "
                     "no roll can be taken from them")
    cube = cube_json(found, orientation)
    if cube is not None:
        place = f", {cube['place']}" if "place" in cube else ""
        lines.append(f"cube {cube['value']}{place}")
    return "\n".join(lines)


def _unsure(point) -> bool:
    return point.confidence < 0.8 or point.low != point.high  # an empty point can be unsure too


def _reading_text(reading) -> str:
    def cell(p) -> str:  # five wide: "10L?" beside "3L?" must not run together
        unsure = "?" if _unsure(p) else " "
        if not p.count:
            return f"   .{unsure}"
        mark = "L" if p.colour == "light" else "D"
        return f" {p.count:>2d}{mark}{unsure}"

    top = "".join(cell(p) for p in reading.points[:6]) + " |" + "".join(cell(p) for p in reading.points[6:12])
    bottom = "".join(cell(p) for p in reading.points[12:18]) + " |" + "".join(cell(p) for p in reading.points[18:24])
    bar, off = reading.bar_counts(), reading.off_counts()
    lines = ["the points as the picture shows them (L light, D dark, ? unsure):", f"top    {top}", f"bottom {bottom}",
             f"bar: {bar['light']} light, {bar['dark']} dark"]
    lines.append("off: not in the picture" if off is None else f"off: {off['light']} light, {off['dark']} dark")
    if reading.busy:
        lines.append(f"busy: {reading.busy}")
    doubts = []
    unsure = sum(_unsure(p) for p in reading.points)
    if unsure:
        doubts.append(f"{unsure} point{'s' if unsure > 1 else ''} unsure (?)")
    if getattr(reading, "mended", False):
        # towards fifteen a side, not always to it (a board read through another board's profile stayed at 8)
        doubts.append("some counts are the reader's guess towards 15 checkers a side, not what it saw")
    if doubts:  # the IDs below take the reading as it is: say what to check on the board before trusting them
        lines.append(f"check on the board: {'; '.join(doubts)}")
    return "\n".join(lines)


def _cmd_markers(args: argparse.Namespace) -> int:
    from companion.vision.markers import write_sheet

    for path in write_sheet(Path(args.out)):
        print(f"wrote {path}")
    return EXIT_OK


def _calibration_frame(args: argparse.Namespace):
    if args.image:
        return _load_image(args.image)
    from companion.vision.capture import CaptureError, Frame, open_source

    import time

    source = open_source(args.video or str(args.camera))
    give_up = time.monotonic() + args.wait
    for item in source.frames():
        if isinstance(item, Frame):
            source.stop()
            return item.image
        if item.state in ("finished", "failed"):
            break
        if item.state == "lost" and time.monotonic() >= give_up:  # a live source says so on every try
            source.stop()
            raise CaptureError(f"{item.detail.split(';')[0]}; gave up after {args.wait:g} s")
    raise CaptureError("no frame came from the camera or video to calibrate on")


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from companion.vision.calibrate import PositionNotRead, calibrate
    from companion.vision.profile import default_profile_path

    if args.adapt and args.reader != "strips":
        print("error: --adapt fits the strip network's last layer: it goes with --reader strips", file=sys.stderr)
        return EXIT_USAGE
    image = _calibration_frame(args)
    corners = _corners_arg(args, image)
    if args.click:
        from companion.vision.corner_picker import pick_corners

        corners = pick_corners(image)
    position = _known_position(args)
    try:
        result = calibrate(image, corners=corners, player0=args.player0,
                           markers=True if args.markers else (False if args.no_markers else None),
                           reader=args.reader, position=position, labels=_labels(args), adapt=args.adapt,
                           trust=args.trust_position)
    except PositionNotRead as exc:
        if args.trust_position or args.reader != "strips" or args.labels:  # the user's word would change nothing
            raise
        raise PositionNotRead(f"{exc} (if it is set up so, calibrate again with --trust-position)") from None
    out = Path(args.out) if args.out else default_profile_path()
    profile = replace(result.profile, flat_dice=True) if args.flat_dice else result.profile
    earlier = out.with_name(f"{out.stem}.earlier{out.suffix}")
    kept = out.is_file()
    if kept:  # another board's, perhaps: the calibration before this one is kept, not replaced without a word
        out.replace(earlier)
    profile.save(out)
    if kept:
        print(f"the profile that was at {out} is kept as {earlier}")
    o = profile.orientation
    print(f"playing area {result.how}; player 0 plays the {o.player0_colour} checkers and sits at the "
          f"{'bottom' if o.player0_at_bottom else 'top'} of the picture, home board on his "
          f"{'right' if o.home_right else 'left'}; trays on the {profile.trays}")
    if profile.geometry is not None:
        g = profile.geometry
        print(f"measured: bar {g.bar_width:.1f} mm of a {g.play_width:.0f} mm playing area "
              f"({100 * g.bar_width / g.play_width:.1f} %), points {g.point_width:.1f} mm wide and "
              f"{g.point_length:.0f} mm long, checkers {g.checker:.1f} mm across")
    what = "the starting position" if position is None and not args.labels else "the position given"
    if result.vouched:
        print(f"calibrated on your word that the board shows {what}: {result.warning}. Profile saved to {out}")
    elif result.warning:
        print(f"verified with a warning: {what} reads back, but {result.warning}. Profile saved to {out}")
    else:
        print(f"verified: {what} reads back. Profile saved to {out}")
    return EXIT_OK


def _labels(args: argparse.Namespace):
    """The points of --labels READING.json (the schema of `read --json`): (colour, count) in image order."""
    if not args.labels:
        return None
    try:
        data = json.loads(Path(args.labels).read_text(encoding="utf-8"))
        points = [(p.get("colour"), int(p["count"])) for p in data["points"]]
    except FileNotFoundError:
        raise CompanionError(f"--labels: no file {args.labels}") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CompanionError(f"--labels: {args.labels} is not a reading as `companion read --json` writes it "
                             f"({exc})") from None
    if len(points) != 24 or any(c < 0 or c > 15 or (c and colour not in ("light", "dark")) for colour, c in points):
        raise CompanionError(f"--labels: {args.labels} needs 24 points, each with a count 0..15 and a colour "
                             "(light or dark) where the count is not 0")
    return points


def _known_position(args: argparse.Namespace):
    """The position the calibration photo shows, from --position (an XGID or Position ID); None for the start."""
    if not args.position:
        return None
    from companion.referee.observations import BoardReading
    from companion.rules import Position

    text = args.position.strip()
    try:
        if text.upper().startswith("XGID=") or ":" in text:
            position = Position.from_xgid(text if text.upper().startswith("XGID=") else "XGID=" + text)
        else:
            position = Position.from_position_id(text)
    except (CompanionError, ValueError) as exc:
        raise CompanionError(f"--position: {exc}") from None
    return BoardReading.from_position(position, 0, trays=False)


# -- the renderer ----------------------------------------------------------------------------------------


def _cmd_render(args: argparse.Namespace) -> int:
    import json as _json

    import cv2
    import numpy as np

    from companion.sim import frame

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache: dict = {}
    tiles = []
    with open(out / "labels.jsonl", "w", encoding="utf-8") as labels:
        for index in range(args.start, args.start + args.count):
            image, label = frame(args.set, index, args.width, args.height, renderers=cache)
            name = f"{args.set}-{index:06d}.jpg"
            cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            labels.write(_json.dumps({"file": name, "set": args.set, "index": index, **label.to_json()}) + "\n")
            if args.contact_sheet and len(tiles) < 12:
                tiles.append(cv2.resize(image, (args.width // 4, args.height // 4), interpolation=cv2.INTER_AREA))
    if args.contact_sheet and tiles:
        while len(tiles) % 4:
            tiles.append(np.zeros_like(tiles[0]))
        sheet = np.vstack([np.hstack(tiles[i:i + 4]) for i in range(0, len(tiles), 4)])
        cv2.imwrite(str(args.contact_sheet), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"wrote {args.count} frames and labels.jsonl to {out}")
    return EXIT_OK


def _cmd_film(args: argparse.Namespace) -> int:
    import numpy as np

    from companion.sim import STYLES, Effects, Pose
    from companion.sim.video import GameFilm, film_labels_path, self_play, turns_from_events, write_film

    rng = np.random.default_rng(args.seed)
    if args.match:
        from companion.record.recorder import load_any

        loaded, _ = load_any(args.match)
        games = turns_from_events(loaded.referee.events)
        from companion.referee import PlayStood

        stood = sum(isinstance(e, PlayStood) for e in loaded.referee.events)
        if stood:  # a film's hand carries a legal play's checkers; an illegal one has no moves to carry
            print(f"note: {args.match} has {stood} illegal play(s) that stood, which a film does not show: the "
                  "checkers jump to where each left them as the next turn begins", file=sys.stderr)
        if not 1 <= args.game <= len(games):
            raise CompanionError(f"{args.match} has {len(games)} game(s); --game {args.game} is not one of them")
        turns = games[args.game - 1]
    else:
        choose = None
        if args.engine:
            from companion.analysis import Engine
            from companion.rules import MatchState

            engine = Engine()
            choose = lambda position, roll: engine.hint(position, roll, MatchState(), 0).best.play  # noqa: E731
        turns = self_play(rng, choose)
    if args.turns:
        turns = turns[: args.turns]
    style = STYLES[args.style % len(STYLES)]
    pose = Pose(tilt=float(rng.uniform(5, 35)), roll=float(rng.uniform(-10, 10)), scale=0.85)
    effects = Effects(light=0.25, temperature=float(rng.uniform(-0.5, 0.5)), noise=4, blur=0.6, jpeg=85)
    film = GameFilm(style, pose, effects, fps=args.fps, width=args.width, height=args.height, seed=args.seed)
    count = write_film(film.film(turns), Path(args.out), args.fps)
    print(f"wrote {count} frames ({count / args.fps:.1f} s) to {args.out}, their labels to "
          f"{film_labels_path(Path(args.out))}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="companion",
        description="Backgammon Companion: referee, recorder and training aid beside a real board.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser(
        "check",
        help="replay match files under the rules and report illegal plays, cube actions and scores",
        description="Replay match files (.mat/.txt, GNU Backgammon's .sgf, or the app's .jsonl journals) with the "
        "rules engine. Exit status: 0 all legal, 1 something is not, 2 a file could not be read.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="match files (.mat, .txt, .sgf or a .jsonl journal)")
    check.add_argument("--json", action="store_true", help="print a machine-readable report")
    check.add_argument("--salvage", action="store_true", help=SALVAGE_HELP)
    check.set_defaults(handler=_cmd_check)

    dicecup = sub.add_parser(
        "dicecup",
        help="show what an electronic dice cup sends (link status, cup state, rolls)",
        description="Connect to a dice cup (found by its USB ids, or --port) and print its link status, states "
        "and rolls. --simulate runs a software cup on a pseudo-terminal that rolls once a second.",
    )
    dicecup.add_argument("--port", help="serial device or pyserial URL (default: find the cup by USB id)")
    dicecup.add_argument("--simulate", action="store_true", help="use a software dice cup instead of hardware")
    dicecup.add_argument("--rolls", type=_int_in(0), default=0, help="with --simulate, stop after this many rolls")
    dicecup.add_argument("--seconds", type=_seconds, default=0, help="stop after this long (default: run until Ctrl-C)")
    dicecup.add_argument("--seed", type=_int_in(0), default=None, help="with --simulate, seed the software cup's dice")
    dicecup.add_argument("--wait", type=_seconds, default=5.0,
                         help="how long to wait for the dice cup to answer (not found, or a port that is no dice "
                         "cup) before giving up (default 5 s; the app keeps looking)")
    dicecup.set_defaults(handler=_cmd_dicecup)

    analyse = sub.add_parser(
        "analyse", aliases=["analyze"],
        help="the engine's hint or cube decision for a position (or a summary of a whole match)",
        description="Print the best plays (when the position has dice, or with --dice) or the cube decision of the "
        "player on roll. Positions come as an XGID or a GNU Backgammon Position ID (and Match ID).",
    )
    position = analyse.add_mutually_exclusive_group()
    position.add_argument("--xgid", help="XGID=... (an XGID given without its XGID= prefix starts with '-': write "
                                         "--xgid=-b----E-...)")
    position.add_argument("--position-id", help="GNU Backgammon Position ID (player on roll as the Match ID says), or "
                                                "the Position ID:Match ID pair as gnubg and the app show them")
    analyse.add_argument("--match-id", help="GNU Backgammon Match ID (default: money play, player 0 on roll)")
    analyse.add_argument("--dice", nargs="+", metavar="D", help="the roll to play: 3 1 or 31")
    analyse.add_argument("--deep", action="store_true", help="2-ply instead of 1-ply (slower, stronger)")
    analyse.add_argument("--top", type=_int_in(1), help=f"plays to list (text output; {ANALYSE_TOP} unless given)")
    analyse.add_argument("--json", action="store_true", help="print JSON")
    position.add_argument("--match", metavar="FILE", help="rate every play and cube action of a match file or journal")
    analyse.add_argument("--no-cube", action="store_true", help="with --match: rate checker plays only (faster)")
    analyse.add_argument("--all", action="store_true",
                         help="with --match: list every decision, not only the doubtful ones and worse")
    analyse.set_defaults(handler=_cmd_analyse)

    for name, text in (("convert", "convert between a journal (.jsonl), .mat/.txt and .sgf"),
                       ("export", "write a recorded match as .mat or .sgf (convert by another name: either reads "
                                  "and writes a journal, .mat/.txt and .sgf)")):
        convert = sub.add_parser(name, help=text, description=text.capitalize() + ". The match is replayed under "
                                 "the rules on the way; .mat refuses what it cannot carry (an illegal play that stood).")
        convert.add_argument("source", metavar="IN", help="journal, .mat/.txt or .sgf")
        convert.add_argument("target", metavar="OUT", help="journal (.jsonl), .mat/.txt or .sgf")
        convert.add_argument("--force", action="store_true",
                             help="replace OUT if it exists (a journal is never replaced)")
        convert.add_argument("--salvage", action="store_true", help=SALVAGE_HELP)
        convert.set_defaults(handler=_cmd_convert)

    run = sub.add_parser(
        "run", help="referee, record or train beside a board (the app)",
        description="Follow a match from a source (a replayed file, a dice cup, or typed dice and plays), journal "
        "every observation, and show the referee's verdicts, hints and cube advice.",
    )
    run.add_argument("--mode", choices=("referee", "record", "train"),
                     help="default: record, or the mode a resumed match was in")
    run.add_argument("--players", nargs=2, metavar="NAME",
                     help="the two players' names, player 0's first (the one at the bottom of the board)")
    run.add_argument("--length", type=_int_in(0, MAX_LENGTH),
                     help=f"match length in points (0: money play; default: {DEFAULT_LENGTH})")
    run.add_argument("--journal", type=Path, help="where to journal the match (default: the user data folder)")
    run.add_argument("--resume", type=Path, metavar="JOURNAL",
                     help="go on with a journalled match after a crash (a bare file name is looked for in the user "
                          "data folder too, where journals go by default)")
    run.add_argument("--replay", metavar="FILE", help="replay a journal, .mat or .sgf as if it were seen live")
    run.add_argument("--dicecup", metavar="PORT", help="take the dice from an electronic dice cup (or 'auto')")
    run.add_argument("--camera", type=_int_in(0), help="camera index: the board is read by vision")
    run.add_argument("--video", help="a video file, folder of images or URL to read the board from")
    run.add_argument("--profile", help="the board profile from companion calibrate (default: the user's config)")
    run.add_argument("--no-ui", action="store_true", help="no app: process the source (or typed lines) to a record")
    run.add_argument("--out", type=Path, help="export the match here at the end (.mat or .sgf; an existing file is "
                     "never replaced: NAME-2 is written beside it)")
    run.add_argument("--delay", type=_seconds, help="seconds between replayed observations")
    run.add_argument("--speed", type=_speed,
                     help="with --video: how fast a file or folder of frames plays against its own clock "
                          "(2: twice as fast; 0: as fast as it is read); default 1, as it was filmed, in the app, "
                          "and 0 with --no-ui")
    run.add_argument("--seconds", type=_seconds, default=0, help="stop after this long")
    run.add_argument("--print-events", action="store_true", help="with --no-ui: print each event once journalled")
    run.add_argument("--clock", nargs="?", const=(12.0, 120.0), type=_clock, metavar="DELAY,PER_POINT",
                     help="a match clock beside the board: a delay per move and a reserve per player per point "
                     "of the match (default 12,120: 12 s and 2 minutes a point); large in referee mode")
    run.add_argument("--wait", type=_seconds, default=5.0,
                         help="how long to look for a camera or dice cup that cannot be opened before giving up "
                         "(default 5 s; the app keeps looking)")
    club = run.add_argument_group("club", "send the match to the club's server as it is played")
    club.add_argument("--club", metavar="URL", help="the club's broker: mqtt://HOST[:PORT]/EVENT (mqtts:// for TLS)")
    club.add_argument("--board", help="this board's number or name in the club")
    club.add_argument("--user", help="the broker's user name (default board-N)")
    club.add_argument("--password", help="the broker's password for this board")
    club.add_argument("--token-file", help="a file holding the board's password (from companion serve)")
    club.add_argument("--ca", help="with mqtts://: the club's own CA certificate (default: the system's)")
    club.add_argument("--club-wait", type=float, default=30.0,
                      help="with --no-ui: seconds to wait at the end for the server to have every line")
    run.set_defaults(handler=_cmd_run)

    serve = sub.add_parser(
        "serve", help="the club's server: every board's match, refereed again, stored and shown on a web page",
        description="Start the club's server. With --broker local (the default) it also starts Mosquitto with a "
                    "password for each board (in FOLDER/tokens). Nothing listens beyond this machine unless "
                    "--listen is given.")
    serve.add_argument("--event", default="club", help="the event's short name (letters, digits, - and _)")
    serve.add_argument("--broker", default="local", help="'local' or the broker's URL mqtt(s)://HOST[:PORT]/EVENT")
    serve.add_argument("--boards", type=int, default=20, help="with --broker local: boards 1..N get a password")
    serve.add_argument("--db", help="SQLite file or postgresql://USER:PASSWORD@HOST/DB (default FOLDER/club.db)")
    serve.add_argument("--folder", type=Path, help="broker configuration, tokens, database (default: user data)")
    serve.add_argument("--listen", action="store_true", help="accept boards and browsers from the network")
    serve.add_argument("--port", type=int, default=8080, help="the web page's port")
    serve.add_argument("--mqtt-port", type=int, default=1883, help="with --broker local: the broker's port")
    serve.add_argument("--user", help="with a hosted broker: the server's user name (default 'server')")
    serve.add_argument("--password", help="with a hosted broker: the server's password")
    serve.add_argument("--token-file", help="with a hosted broker: a file holding the server's password")
    serve.add_argument("--ca", help="with mqtts://: the broker's CA certificate (default: the system's)")
    serve.add_argument("--referee-only", action="store_true", help="no engine advice on the page")
    serve.add_argument("--seconds", type=float, default=0, help="stop after this long (default: until Ctrl-C)")
    serve.set_defaults(handler=_cmd_serve)

    demo = sub.add_parser("demo", help="the app watching a rendered game through vision, with hints (no camera, "
                          "no hardware)",
                          description="Start here, with no camera and no hardware: a game is rendered as a camera would "
                          "film it and read by vision, refereed, recorded and analysed, with hints, cube advice and play "
                          "ratings. --match replays a recorded 7-point match instead.")
    demo.add_argument("--match", action="store_true", help="replay the bundled 7-point match instead of a film")
    demo.add_argument("--seed", type=_int_in(0), default=1, help="which rendered game")
    demo.add_argument("--dice", choices=("camera", "labels"), default="camera",
                      help="read the dice from the film's pixels (default), or take them from its labels as a dice "
                           "cup would tell them")
    demo.add_argument("--delay", type=_seconds, default=0.4, help="with --match: seconds between observations")
    demo.add_argument("--no-ui", action="store_true",
                      help="print the plays and verdicts instead of showing the app (hints and ratings are the app's)")
    demo.add_argument("--seconds", type=_seconds, default=0, help="stop after this long, the app or the printing")
    demo.add_argument("--out", type=Path, help="with --no-ui: export the match here at the end")
    demo.set_defaults(handler=_cmd_demo)

    render = sub.add_parser("render", help="labelled synthetic camera frames of boards (development or held-out set)",
                            description="Render frames of the synthetic board sets with their labels (labels.jsonl): "
                            "checkers per point, bar, trays, dice and validity, cube, corners, occluded points, pose.")
    render.add_argument("--set", choices=("dev", "dev-hard", "dev-vivid", "heldout"), default="dev",
                        help="dev-hard and dev-vivid: development seeds at the held-out ranges, and with coloured sets")
    render.add_argument("--count", type=_int_in(1), default=20)
    render.add_argument("--start", type=_int_in(0), default=0, help="index of the first frame (frames are deterministic)")
    render.add_argument("--out", required=True, type=_folder, help="folder for the JPEGs and labels.jsonl")
    render.add_argument("--width", type=_int_in(64, 7680), default=1280)
    render.add_argument("--height", type=_int_in(64, 4320), default=720)
    render.add_argument("--contact-sheet", type=Path, help="also write a sheet of the first 12 frames")
    render.set_defaults(handler=_cmd_render)

    read = sub.add_parser("read", help="read the checkers of one photo of a board",
                          description="Read one photo: every point, the bar and the trays, the dice and the cube. "
                          "Without --corners or a profile, a network finds the playing area. Then the Position ID and "
                          "XGID, with the roll and the cube it sees (the roller on roll; player 0 without dice): "
                          "whose side is whose comes from --profile, or --player0 and --home, or the checkers on "
                          "the bar and in the trays. Exit status 1 when the reading is no position (or too unsure "
                          "to name one), 2 for an unreadable file or an image without a board.")
    read.add_argument("image", help="the photo (any format OpenCV reads)")
    read.add_argument("--profile", help="a board profile from companion calibrate (read uses none unless given)")
    read.add_argument("--corners", nargs=4, metavar="X,Y",
                      help="the playing area's top-left, top-right, bottom-right, bottom-left, as the picture shows "
                      "them, in pixels")
    read.add_argument("--json", action="store_true", help="print the reading as JSON (see the README)")
    read.add_argument("--player0", choices=("light", "dark"),
                      help="without a profile: player 0's checkers, for the Position ID (player 0 sits at the "
                      "bottom of the picture; default: light)")
    read.add_argument("--home", choices=("right", "left"),
                      help="without a profile: player 0's home board on his right or left (default: right)")
    read.add_argument("--flat-dice", action="store_true", help=FLAT_DICE)
    read.add_argument("--reader", choices=("strips", "classic"), default="strips",
                      help="without a profile: measure the board and read it with the strip network (default), "
                      "or assume the simulator's board")
    read.set_defaults(handler=_cmd_read)

    dice = sub.add_parser("dice", help="read the dice in any photo",
                          description="Find and read the dice in a photo (of a board or not). With --json: a list "
                          "of {value, box [x, y, w, h], valid, reason}. Exit status 2 for an unreadable file.")
    dice.add_argument("image")
    dice.add_argument("--json", action="store_true")
    dice.set_defaults(handler=_cmd_dice)

    markers = sub.add_parser("markers", help="write the printable sheet of corner markers (PDF and PNG)")
    markers.add_argument("--out", required=True, help="file name; .pdf and .png are written")
    markers.set_defaults(handler=_cmd_markers)

    calibrate = sub.add_parser("calibrate", help="learn a board under a camera from its starting position",
                               description="Capture a frame of the board set up for a game, find the playing area "
                               "(markers, --corners or --click, or from the board), learn the checker colours and "
                               "whose side is whose, save a TOML profile and check it by reading the start back.")
    where = calibrate.add_mutually_exclusive_group()
    where.add_argument("--camera", type=_int_in(0), default=0, help="the camera to take a frame from (default: 0)")
    where.add_argument("--video", help="a video file or stream URL to take a frame from")
    where.add_argument("--image", help="a photo of the board")
    by_hand = calibrate.add_mutually_exclusive_group()
    by_hand.add_argument("--corners", nargs=4, metavar="X,Y",
                         help="the playing area's corners in the frame: top-left, top-right, bottom-right, bottom-left")
    by_hand.add_argument("--click", action="store_true",
                         help="click the four corners in a window (needs a display)")
    calibrate.add_argument("--player0", choices=("light", "dark"),
                           help="player 0's checkers (default: whoever sits at the bottom of the picture)")
    use = calibrate.add_mutually_exclusive_group()
    use.add_argument("--markers", action="store_true", help="require the four corner markers")
    use.add_argument("--no-markers", action="store_true", help="ignore markers (fixed camera)")
    calibrate.add_argument("--out", help="profile file (default: the user's config folder)")
    known = calibrate.add_mutually_exclusive_group()
    known.add_argument("--position", metavar="XGID",
                       help="the position the photo shows (an XGID or a Position ID), player 0 on roll "
                       "(default: the starting position)")
    known.add_argument("--labels", metavar="READING.json",
                       help="the photo's points as `companion read --json` lists them (a corrected reading)")
    calibrate.add_argument("--reader", choices=("strips", "classic"), default="strips",
                           help="measure this board and read it with the strip network (default), or assume the "
                           "simulator's board")
    calibrate.add_argument("--adapt", action="store_true",
                           help="also fit the strip network's last layer to this photo (saved beside the profile; "
                           "off by default: it read development boards a little worse)")
    calibrate.add_argument("--trust-position", action="store_true",
                           help="the board is set up as the position says, whatever the photo reads: calibrate "
                           "anyway where it reads a few points otherwise (said as a warning), instead of refusing "
                           "(strips reader)")
    calibrate.add_argument("--flat-dice", action="store_true", help=FLAT_DICE)
    calibrate.add_argument("--wait", type=_seconds, default=5.0,
                         help="how long to look for a camera or dice cup that cannot be opened before giving up "
                         "(default 5 s; the app keeps looking)")
    calibrate.set_defaults(handler=_cmd_calibrate)

    film = sub.add_parser("film", help="a synthetic video of a whole game, with per-frame labels",
                          description="Film a game from a match file (or self-play) on a synthetic board: dice "
                          "thrown, a hand moving checkers, pauses. OUT ending in .mp4 writes a video, else a folder "
                          "of JPEGs; labels go beside it.")
    film.add_argument("--match", help="a journal, .mat or .sgf (default: self-play)")
    film.add_argument("--game", type=_int_in(1), default=1, help="which game of the match")
    film.add_argument("--engine", action="store_true", help="self-play with the engine's best plays (default random)")
    film.add_argument("--turns", type=_int_in(0), default=0, help="only the first N turns")
    film.add_argument("--fps", type=_int_in(1, 240), default=20)
    film.add_argument("--style", type=_int_in(0, 4), default=0, help="board style number (0-4)")
    film.add_argument("--seed", type=_int_in(0), default=0)
    film.add_argument("--width", type=_int_in(64, 7680), default=1280)
    film.add_argument("--height", type=_int_in(64, 4320), default=720)
    film.add_argument("--out", required=True)
    film.set_defaults(handler=_cmd_film)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_OK
    try:
        return handler(args)
    except CompanionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the output was piped into `head` and closed
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

