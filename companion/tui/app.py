"""The Textual app: the board, the referee's verdicts, the play list, hints, cube advice and source status.

One thread decides: observations from sources arrive as messages, and the app feeds them to the recorder
(which journals each before its events are shown). Engine work runs in thread workers and comes back as
messages; a result for a position that has moved on is dropped.
"""

from __future__ import annotations

import gc
import threading
import time
from functools import partial
from pathlib import Path

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Digits, Footer, Header, Input, Static

from companion.analysis import (
    DEEP,
    FAST,
    CubeAdvice,
    Engine,
    EngineProcess,
    Hint,
    MatchReview,
    MatchSummary,
    Reviewer,
    race_guides,
    review_match,
)
from companion.analysis.mwc import match_winning_chance
from companion.analysis.rating import CubeRating, PlayRating
from companion.errors import CompanionError
from companion.files import unique_path, write_atomically
from companion.record.recorder import Recorder, format_record
from companion.referee import (
    Command,
    Event,
    GameOver,
    GameStarted,
    IllegalPlay,
    NeedsAttention,
    Observation,
    PlayMade,
    PlayStood,
    Referee,
    RefereeState,
    ResignationOffered,
    Refused,
    UserCommand,
)
from companion.referee.typed import observations_typed, position_set
from companion.rules import GameState, Phase
from companion.rules.clock import MatchClock, clock_text
from companion.sources import hand_back, plays_the_game, reads_the_board
from companion.tui.board import render_board
from companion.tui.confirm import Confirm
from companion.tui.editor import EditedPosition, PositionEditor
from companion.tui.illegal import IllegalPlayView
from companion.tui.keys import ACTIONS, KeysScreen
from companion.tui.playlist import PlayList
from companion.tui.review import ReviewScreen

MODES = ("referee", "record", "train")


class ObservationArrived(Message):
    def __init__(self, observation: Observation) -> None:
        super().__init__()
        self.observation = observation


WORDS_FOR_KEYS = dict.fromkeys(("help", "keys", "commands", "menu"), "? lists the keys, ctrl+p every command; "
                                "a play is typed as 8/5 6/5, dice as 31") | dict.fromkeys(
    ("hint", "hints", "best", "analyse", "analyze"), "h shows or hides the hints (not in referee mode), x looks deeper; "
                                                   "v reviews the match's plays")
"""Words a newcomer types for help, answered with the keys that give it (they read as a failed play before)."""


class SourceStatus(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class AnalysisReady(Message):
    def __init__(self, key: str, hint: Hint | None, cube: CubeAdvice | None, seconds: float) -> None:
        super().__init__()
        self.key = key
        """The game's state when the analysis was asked for: a stale answer is dropped."""
        self.hint, self.cube, self.seconds = hint, cube, seconds


class RatingsReady(Message):
    def __init__(self, ratings: list, game: int | None = None) -> None:
        super().__init__()
        self.ratings = ratings
        self.game = game
        """The game the rated decisions ended, when they ended one (a pass): its next has begun in the play list."""


class HistoryRated(Message):
    """A resumed match, rated again: each observation's events with their ratings, to rebuild the play list."""

    def __init__(self, batches: list[tuple[list[Event], list]]) -> None:
        super().__init__()
        self.batches = batches


class ReviewReady(Message):
    def __init__(self, review: MatchReview) -> None:
        super().__init__()
        self.review = review


class FittedText(Static):
    """Side-panel text the app fits to its width (the IDs, the hint rows): it asks to be written again when its
    width changes."""

    class WidthChanged(Message):
        def __init__(self, fitted: FittedText) -> None:
            super().__init__()
            self.fitted = fitted

    _width = 0

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:  # not when only its height changed (as its text did)
            self._width = event.size.width
            self.post_message(self.WidthChanged(self))


class CommandLine(Input):
    """The input line. While it is empty, the keys named in the footer act at once instead of being typed, so `c`
    works from the first second; but a key that begins a word the line takes now is typed (`bar/22`, `none` and
    `cannot move` while a play is due: `key_is_typed`). Typed alone and entered, such a key runs its action. A
    command's word typed on the empty line (`take`) acts once, by its first letter: the rest is spent
    (`COMMAND_WORDS`)."""

    _word = ""
    """The command word being typed after its first letter acted (`take` after `t`), while it is typed on."""
    _typed_at = 0.0

    def _acts(self, character: str | None) -> bool:
        return (not self.value and character is not None and character in self.app.single_keys
                and not key_is_typed(character, self.app.recorder.referee.state))

    def _rest_of_a_word(self, character: str | None) -> bool:
        """Whether `character` goes on the command word whose first letter just acted: spent, not typed and not
        acting (`take` typed on the empty line took once, then `a` said no play waits, `k` no clock, `e` exported)."""
        now = time.monotonic()
        word, self._word = self._word, ""
        if self.value or not word or character is None or now - self._typed_at > WORD_GAP:
            return False
        if not any(w.startswith(word + character) for w in COMMAND_WORDS):
            return False
        self._word, self._typed_at = word + character, now
        return True

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if self._acts(character):
            return False  # the footer shows the app's binding for it
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        if self._rest_of_a_word(event.character):
            event.stop()
            event.prevent_default()
            return
        if self._acts(event.character):
            event.stop()
            event.prevent_default()  # not typed
            self._word, self._typed_at = event.character or "", time.monotonic()
            await self.app.act_on_key(self.app.single_keys[event.character])
            return
        await super()._on_key(event)


COMMAND_WORDS = ("accept", "beaver", "correct", "double", "export", "help", "hint", "hints", "new", "pass", "quit",
                 "take", "undo")
"""Words a user may type for what the key of their first letter does (`help` and `hint`: `h`, the hints, where the
keys are listed): on the empty line the first letter acts, and the rest of the word, typed on at once (`WORD_GAP`),
is spent, so that `take` takes once."""
WORD_GAP = 0.5
"""Seconds between a word's letters, at most: a key pressed later acts as a key. A word's letters come 0.1-0.3 s
apart at a keyboard, two keys pressed one after the other for their own sake rarely under half a second (`h` then
`e` within it is taken for `help`, and does not export)."""


SHOWN_WHILE_THEY_APPLY = frozenset({"accept", "correct", "double", "take", "pass_double", "undo", "clock",
                                   "toggle_hints", "deep", "illegal_view", "edit_position"})
"""Keys the footer shows only while they apply: Accept and Correction while an illegal play waits, Double while the
next player to roll may double, Take and Pass while a double waits, Undo while there is something to undo, Clock with
a match clock, Hints and Deeper outside referee mode, Look while an illegal play waits, Set up unless a double or an
illegal play waits (at 80 columns Quit fell off the footer then). Pressed at another time they still act, and say
why they do not apply;
the command palette offers them only while they apply."""

INTO_THE_GAME = frozenset({"accept", "correct", "double", "take", "pass_double", "beaver", "undo", "new_game",
                           "edit_position"})
"""Keys that act on the game: none applies while a replay or the demo's film plays it (they say so)."""

def game_waits_for_a_typed_play(game: GameState, source) -> bool:
    """Whether a roll waits for a play that will be typed (no camera watches the board)."""
    return game.phase is Phase.PLAY and not reads_the_board(source)


TYPED_WHILE_A_PLAY_IS_DUE = frozenset("bcn")
"""Keys that begin `bar/..`, `cannot move` and `none` (`no move`): typed while the roll on the board awaits its play,
when beaver, correction and a new game are rare and the play is what is being typed (they then act on Enter)."""


def key_is_typed(character: str, state: RefereeState) -> bool:
    """Whether a key pressed on the empty input line begins a word the line takes now, rather than acting at once.
    (A resignation is answered in its own dialog, y or n.)"""
    return (state.game.phase is Phase.PLAY and state.pending is None
            and character in TYPED_WHILE_A_PLAY_IS_DUE)


TYPING_HELP = "dice (31), a play (8/5 6/5), resign 2; ? lists the keys"
"""The input line's placeholder while the match goes on."""

MATCH_OVER_HELP = "e exports it, v reviews it, q quits"
"""What is left to do once the match is over (the input line's placeholder then)."""

WIDE_FROM = 110
"""Columns from which the screen is wide (`-wide`): the side panel has room for equities with their chances."""


def level_name(level: str) -> str:
    """The engine's "1ply" as players write it: "1-ply"."""
    return level.replace("ply", "-ply") if "-" not in level else level


class CompanionApp(App):
    """`companion run` and `companion demo`."""

    CSS_PATH = Path(__file__).with_name("companion.tcss")  # absolute: subclasses elsewhere keep the styles
    TITLE = "Backgammon Companion"
    BINDINGS = [
        Binding("question_mark,f1", "keys", "Keys", key_display="?"),
        Binding("a", "accept", "Accept"),
        Binding("c", "correct", "Correction"),
        Binding("d", "double", "Double"),
        Binding("t", "take", "Take"),
        Binding("p", "pass_double", "Pass"),
        Binding("b", "beaver", "Beaver", show=False),
        Binding("u", "undo", "Undo"),
        Binding("n", "new_game", "New game", show=False),
        Binding("s", "edit_position", "Set up"),
        Binding("e", "export", "Export"),
        Binding("h", "toggle_hints", "Hints"),
        Binding("x", "deep", "Deeper", show=False),
        Binding("i", "copy_ids", "IDs", show=False),
        Binding("v", "review", "Review"),
        Binding("l", "illegal_view", "Look", show=False),
        Binding("k", "clock", "Clock"),
        Binding("colon", "focus_input", "Type", show=False),
        Binding("q", "quit", "Quit"),
    ]
    # the screen gets -short / -tall and -narrow / -wide: 80x24 keeps the board, verdict and input whole
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]

    def __init__(self, recorder: Recorder, *, mode: str | None = None, source=None, engine: Engine | None = None,
                 viewer: int = 0, export_path: Path | None = None,
                 clock: MatchClock | None = None, now=time.monotonic, club=None) -> None:
        super().__init__()
        mode = mode or recorder.header.mode or "train"  # a resumed match comes back in its own mode
        if mode not in MODES:
            raise CompanionError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
        self.recorder = recorder
        self.mode = mode
        self.source = source
        self._engine = engine
        self._own_engine = engine is None
        self.viewer = viewer
        self.export_path = export_path
        """Where `e` writes (a free name beside it if it exists); default: beside the journal."""
        self.last_export: Path | None = None
        if clock is not None and recorder.clock_used is not None:  # a resumed match keeps its time
            clock = MatchClock(clock.delay, clock.reserve, recorder.clock_used)
        self.clock = clock
        # a resumed game's clock waits for k: it would run from while the app was starting, the players not back
        # (between games it stands anyway, and a pause then would outlast the next opening roll)
        self.clock_paused = clock is not None and recorder.clock_used is not None and not self._clock_stands()
        self._now = now
        """The clock's time source (a steady clock; tests pass their own)."""
        self._flagged: set[int] = set()
        self.single_keys = {b.key: b.action for b in self.BINDINGS if len(b.key) == 1}  # type: ignore[union-attr]
        self.single_keys["?"] = "keys"
        self.club = club
        """The board's link to the club server (a `club.publisher.Publisher`), or None."""
        self._deep_key: str | None = recorder.deep_looks[-1][1] if recorder.deep_looks else None
        """The position the player asked the deeper analysis of (x): its play is rated at that depth (journalled, so
        a resumed match still rates it so)."""
        self.hints_shown = recorder.hints_shown if recorder.hints_shown is not None else mode == "train"
        """Shown in train mode, in record mode after `h`; a resumed match as it was (`_show_hints`)."""
        self._reviewer: Reviewer | None = None
        self.source_status = "keyboard"
        self.verdict = ""
        self.last_analysis: AnalysisReady | None = None
        self._asked: str | None = None
        """The decision the engine was last asked about."""
        self._unseen_by_gc = 0
        self.stalls: list[float] = []
        """How long each observation held the UI thread (the app benchmark reads it)."""
        self._engine_lock = threading.RLock()
        self._review_lock = threading.Lock()

    def get_system_commands(self, screen):
        """The command palette (ctrl+p) offers every action by name, with its key, besides Textual's own; and the
        resignations, which have no key (typed `resign 2`)."""
        # Textual's own, but its "Keys": "List the keys" is this app's, with what each key does here
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        keys = {b.action: b.key_display or b.key.split(",")[0] for b in self.BINDINGS}  # type: ignore[union-attr]
        for name, (title, help_text) in ACTIONS.items():
            if name in SHOWN_WHILE_THEY_APPLY | INTO_THE_GAME and not self.check_action(name, ()):
                continue  # a palette lists what can be done now (a key pressed still says why not)
            if name == "beaver" and not (self.recorder.referee.game.match.beaver
                                         and self.recorder.referee.game.phase is Phase.DOUBLED):
                continue  # money play with beavers only, while a double waits
            if name not in ("quit", "focus_input"):  # Textual's palette has its own quit; typing needs no command
                yield SystemCommand(title, f"{help_text} (key {keys[name]})" if name in keys else help_text,
                                    getattr(self, f"action_{name}"))
        for value, what in ((1, "a single game"), (2, "a gammon"), (3, "a backgammon")):
            yield SystemCommand(f"Resign {what}", f"The player on roll offers to resign {what} (typed: resign "
                                f"{value}); the opponent accepts or declines", partial(self.offer_resignation, value))

    def offer_resignation(self, value: int) -> None:
        """The player on roll offers to resign `value` points' worth (1 a single game, 2 a gammon, 3 a backgammon),
        as typed `resign 2` does; the referee says when it cannot be offered."""
        if self._mixes_into_the_source():
            return
        self.apply(UserCommand(Command.OFFER_RESIGN, self.recorder.referee.game.on_roll, value=value))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hides from the footer the keys that do not apply now (`SHOWN_WHILE_THEY_APPLY`, `INTO_THE_GAME`)."""
        if action in INTO_THE_GAME and plays_the_game(self.source):
            return False
        if action == "clock":  # shown while there is a running clock to pause, or a paused one to restart
            return self.clock is not None and (self.clock_paused or not self._clock_stands())
        if action == "undo":
            return self.recorder.referee.can_undo
        if action in ("toggle_hints", "deep"):
            return self.mode != "referee"
        if action not in SHOWN_WHILE_THEY_APPLY:
            return True
        state = self.recorder.referee.state
        if state.match_over:
            return False
        game = state.game
        if action in ("accept", "correct", "illegal_view"):
            return state.pending is not None
        if action == "double":
            return self._double_now_refused() is None
        if action == "edit_position":
            return state.pending is None and game.phase is not Phase.DOUBLED
        return game.phase is Phase.DOUBLED

    async def act_on_key(self, action: str) -> None:
        """A key's action. One hidden because it does not apply (`check_action`) still runs: the referee then says
        why not, where a key that did nothing would leave the user guessing."""
        if not await self.run_action(action):
            getattr(self, f"action_{action}")()

    def on_key(self, event: events.Key) -> None:
        # the input line acts on its own keys (`CommandLine`); this is a hidden key pressed elsewhere on the match's
        # screen (the play list). Keys bubble up from the other screens too: those are not the match's
        if self.screen is not self.default_screen:
            return
        action = self.single_keys.get(event.character or "")
        if action in SHOWN_WHILE_THEY_APPLY | INTO_THE_GAME and not self.check_action(action, ()):
            # the key is spent here: a screen the action opens (Set up) must not take it too (its own `s`)
            event.prevent_default()
            event.stop()
            getattr(self, f"action_{action}")()

    def on_resize(self, event: events.Resize) -> None:
        # at 80 columns the footer is compact: it showed seven keys, the last cut ("h Hin")
        self._while_shown(lambda: setattr(self.query_one(Footer), "compact", event.size.width < WIDE_FROM))()

    def on_fitted_text_width_changed(self, message: FittedText.WidthChanged) -> None:
        # it can come as the app starts or stops, while the panel's widgets are not all there (`_while_shown`)
        self._while_shown(self.refresh_status if message.fitted.id == "ids" else self.refresh_analysis)()

    @property
    def narrow(self) -> bool:
        """Whether the screen is narrower than `WIDE_FROM` (the `-narrow` styles): 28 side columns at 80."""
        return self.size.width < WIDE_FROM

    @property
    def engine(self) -> Engine:
        """Started on first use, in a process of its own (see `EngineProcess`): training mode asks at once, the other
        modes only when hints, a deeper look or a review are asked for."""
        with self._engine_lock:
            if self._engine is None:
                self._engine = EngineProcess()
            return self._engine

    @property
    def reviewer(self) -> Reviewer:
        with self._engine_lock:
            if self._reviewer is None:
                self._reviewer = Reviewer(self.engine, MatchSummary(self.recorder.names), cube=self.mode == "train")
            return self._reviewer

    def on_unmount(self) -> None:
        if self.source is not None:
            self.source.stop()
        if self.clock is not None and self.recorder.journal is not None:  # the time thought since the last entry
            now = self._now()
            try:
                self.recorder.journal.append_clock((self.clock.used_now(0, now), self.clock.used_now(1, now)))
            except CompanionError:  # the journal cannot be written: its last entry's clock stands
                pass
        if self._own_engine and isinstance(self._engine, EngineProcess):
            self._engine.close()

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static(id="board")
                yield Static(id="verdict")
                yield PlayList(id="plays")
            with VerticalScroll(id="side"):
                if self.clock is not None:
                    yield Static(id="clock")
                    yield Digits(id="clock-large")
                yield Static(id="status")
                yield FittedText(id="ids")
                yield FittedText(id="hints")
                yield Static(id="cube")
        yield CommandLine(placeholder=TYPING_HELP,
                          id="command")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.mode} mode · {self.recorder.names[0]} v {self.recorder.names[1]}"
        for event in self.recorder.referee.events:  # a resumed match: show what was on screen
            self._log_event(event)
        gc.freeze()  # what was loaded lives as long as the app
        self.refresh_view()
        pending = self.recorder.referee.state.pending
        if pending is not None:  # the correction prompt was on screen when the app stopped
            self._verdict_from([pending.event])
        elif said := ([e for e in self.recorder.last_events if not isinstance(e, Refused)]
                      or [e for e in self.recorder.referee.events if not isinstance(e, Refused)][-1:]):
            # a resumed match: its last verdict, not a refusal of a key pressed before it stopped
            self._verdict_from(said)
        else:
            self.show_verdict(self._opening_help())
        if self.mode == "train" and self.recorder.observations:
            self.rate_history()
        if self.recorder.referee.state.resign_offer is not None:  # asked when the app stopped: ask again
            self.ask_about_resignation()
        if self.source is not None:
            self.run_source()
        if self.clock is not None:
            self.set_class(self.mode == "referee", "-referee")
            self.query_one("#clock-large").display = self.mode == "referee"  # large for the players to see
            self.run_clock()
            self.set_interval(0.2, self._while_shown(self.refresh_clock))
            if self.clock_paused:
                self.notify("The match clock is paused as the match resumes: k starts it")
        if self.club is not None:  # the link changes on its own (Wi-Fi, the server): look at it every second
            self.set_interval(1.0, self._while_shown(self.refresh_status))
        if self.recorder.torn:  # said on the terminal too, but the app covers it at once
            self.notify("The journal's last entry was cut short by the crash and was dropped: the match resumes one "
                        "step before it: enter that step again", severity="warning",
                        timeout=15)
        self.query_one("#command", Input).focus()

    def _while_shown(self, refresh):
        """`refresh` for a timer. A last tick can come while the app shuts down, once its widgets are going: that
        one does nothing (it used to raise NoMatches out of the timer and fail the exit; a shutdown stops the app
        running before it removes the screen's widgets, so a screen still attached does not say the app is up). A
        widget missing while the app runs and its screen is there is a bug, and raises."""
        def tick() -> None:
            try:
                refresh()
            except NoMatches:
                if self.is_running and self.default_screen.is_attached:
                    raise
        return tick

    # -- observations ---------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="source")
    def run_source(self) -> None:
        self.source.run(lambda obs: self.post_message(ObservationArrived(obs)),
                        lambda text: self.post_message(SourceStatus(text)))

    def on_observation_arrived(self, message: ObservationArrived) -> None:
        self.apply(message.observation)

    def on_source_status(self, message: SourceStatus) -> None:
        self.source_status = message.text
        self.refresh_status()

    def apply(self, observation: Observation) -> list[Event]:
        started = time.perf_counter()
        before = self.recorder.referee.game
        clock = None
        if self.clock is not None:
            now = self._now()
            clock = (self.clock.used_now(0, now), self.clock.used_now(1, now))
        try:
            events = self.recorder.observe(observation, clock)  # journalled before anything is shown
        except CompanionError as exc:
            self.show_verdict(f"[b red]{exc}[/]")
            return []
        for event in events:
            self._log_event(event)
        hand_back(self.source, observation, events)  # the camera learns what this board's empty points look like
        if events:
            self._verdict_from(events)
            if any(isinstance(e, ResignationOffered) for e in events):
                self.ask_about_resignation()
            if self.mode == "train":  # rated as deep as the hint the player asked for (x) on this position
                self.rate(before, events, DEEP if self._deep_key == self._analysis_key(before) else None)
        self.refresh_view()
        self._unseen_by_gc += 1
        if self._unseen_by_gc >= 100:
            # the match so far is long-lived: keep it out of full collections, which otherwise grow with the
            # match and took ~50 ms of the UI thread (benchmarks/app_bench.py)
            gc.freeze()
            self._unseen_by_gc = 0
        self.stalls.append(time.perf_counter() - started)
        return events

    def _mixes_into_the_source(self) -> bool:
        """Whether the source is playing the game by itself (a replay, the demo's film): then what is typed or
        commanded is refused, not mixed into its game, and the user is told why."""
        if not plays_the_game(self.source):
            return False
        self.notify("A recorded game is playing: what is typed would mix into it. Wait for its end, or quit (q).",
                    severity="warning")
        return True

    async def on_input_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        message.input.value = ""
        if not text:
            return
        if text.lower() in WORDS_FOR_KEYS:  # a newcomer asking, not a play (in the demo too): say where it is;
            # the line is left empty, so the key named acts at once
            self.show_verdict(f"[b yellow]{text!r} is not a play or a command[/]: {WORDS_FOR_KEYS[text.lower()]}")
            return
        if text.lower() not in self.single_keys and self._mixes_into_the_source():
            return  # not kept: a line left on it would take the keys (q typed a q instead of quitting)
        referee = self.recorder.referee
        if text.lower() in self.single_keys and referee.state.resign_offer is None:
            # a key typed because it began a word (`key_is_typed`), entered alone: its action, as the key's
            # (`n` asks first, as it does pressed; typed as a word, `n` would not)
            await self.act_on_key(self.single_keys[text.lower()])
            return
        if referee.state.match_over:  # it was journalled and came to nothing, with nothing said
            self.show_verdict(f"[b yellow]The match is over[/]: nothing more is recorded. {MATCH_OVER_HELP}")
            return
        try:
            observations = observations_typed(text, referee.state, sequence=len(self.recorder.observations) + 1)
        except CompanionError as exc:
            self.show_verdict(f"[b red]{exc}[/]")
            # the refused line stays, selected: mend a typo, or type over it (a key entered alone still acts)
            message.input.value = text
            message.input.select_all()
            return
        if any(isinstance(o, UserCommand) and self._double_while_a_play_is_typed(o.command) for o in observations):
            message.input.value = text  # kept, selected, as any refused line is
            message.input.select_all()
            return
        for observation in observations:
            self.apply(observation)

    # -- commands -------------------------------------------------------------------------------------

    def _command(self, command: Command) -> None:
        if not self._mixes_into_the_source() and not self._double_while_a_play_is_typed(command):
            self.apply(UserCommand(command))

    def _double_while_a_play_is_typed(self, command: Command) -> bool:
        """`d` or a typed `double` while a roll waits for its typed play: refused with the reason (with a camera, the
        table may double as the mover finishes, and the referee ends his turn; a replay's doubles are its own)."""
        if command is not Command.DOUBLE or not game_waits_for_a_typed_play(self.recorder.referee.game, self.source):
            return False
        self.show_verdict(f"[b yellow]Not now[/]: {self._double_now_refused()}")
        return True

    def action_accept(self) -> None:
        self._command(Command.ACCEPT_PLAY)

    def action_correct(self) -> None:
        self._command(Command.REQUEST_CORRECTION)

    def action_double(self) -> None:
        self._command(Command.DOUBLE)

    def _double_now_refused(self) -> str | None:
        """Why no one may double now, or None. Before a roll the player to roll may; with a camera watching, also the
        mover's opponent as the mover finishes (the double ends his turn). Typed, a play ends its turn as it is
        entered: a double while a roll waits would end the mover's turn unplayed."""
        game = self.recorder.referee.game
        if game_waits_for_a_typed_play(game, self.source):
            names = self.recorder.names
            return (f"{names[game.turn]}'s {game.dice} waits for its play (type it, or - if it cannot be played); "
                    "a double comes before a roll")
        doubler = {Phase.ROLL: game.turn, Phase.PLAY: 1 - game.turn}.get(game.phase)
        if doubler is None:
            return game.phase.doing
        return game.match.why_no_double(doubler)

    def action_take(self) -> None:
        self._command(Command.TAKE)

    def action_pass_double(self) -> None:
        self._command(Command.PASS)

    def action_beaver(self) -> None:
        self._command(Command.BEAVER)

    def action_undo(self) -> None:
        self._command(Command.UNDO)

    def action_new_game(self) -> None:
        if self._mixes_into_the_source():
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._command(Command.NEW_GAME)

        self.push_screen(Confirm("Start this game again from the opening roll? (u takes it back)"), answered)

    def ask_about_resignation(self) -> None:
        """The opponent accepts or declines an offered resignation (y / n), as in gnubg."""
        offer = self.recorder.referee.state.resign_offer
        if offer is None:
            return
        player, value = offer
        names = self.recorder.names
        what = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[value]
        points = self.recorder.referee.game.match.points_for(value)

        def answered(yes: bool | None) -> None:
            self._command(Command.ACCEPT_RESIGN if yes else Command.DECLINE_RESIGN)

        self.push_screen(Confirm(f"{names[player]} offers to resign {what} ({points} point{'s' * (points != 1)}).\n"
                                 f"{names[1 - player]}: accept?"), answered)

    async def action_quit(self) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        journal = self.recorder.journal
        where = f"\nThe match stays journalled in {journal.path}" if journal is not None else ""
        self.push_screen(Confirm(f"Quit?{where}"), answered)

    def action_edit_position(self) -> None:
        """A modal screen: the app's keys (`d` doubles) do not reach past it."""
        if self._mixes_into_the_source():
            return
        editor = PositionEditor(self.recorder.referee.game, self.viewer, self.recorder.names)
        self.push_screen(editor, self._position_edited)

    def _position_edited(self, edited: EditedPosition | None) -> None:
        if edited is None:
            return
        command = UserCommand(Command.SET_POSITION, edited.player, position=edited.position)
        observations = position_set(command, edited.dice, self.recorder.referee.game,
                                    len(self.recorder.observations) + 1)
        if edited.dice is not None and len(observations) == 1:  # said, not dropped without a word
            self.notify(f"The XGID's {edited.dice[0]}{edited.dice[1]} is not thrown: its player is not the one to "
                        "roll now (the position is taken)", severity="warning")
        for observation in observations:
            self.apply(observation)

    def action_focus_input(self) -> None:
        self.query_one("#command", Input).focus()

    def action_toggle_hints(self) -> None:
        if self.mode == "referee":
            self.notify("Hints are hidden in referee mode", severity="warning")
            return
        self._show_hints(not self.hints_shown)

    def _show_hints(self, shown: bool) -> None:
        """Hints shown or hidden, and journalled: a resumed match shows them as they were (a display setting, not an
        event of the match, kept as the mode is, beside it)."""
        self.hints_shown = shown
        if self.recorder.journal is not None:
            try:
                self.recorder.journal.append_hints(shown)
            except CompanionError as exc:  # the screen follows the key all the same
                self.notify(str(exc), severity="error")
        self.refresh_view()

    def action_deep(self) -> None:
        if self.mode == "referee":
            self.notify("Referee mode gives no analysis", severity="warning")
            return
        if not self.hints_shown:  # the deeper look shows where the hints do: with hints hidden it said nothing
            self._show_hints(True)
        game = self.recorder.referee.game
        key = self._analysis_key(game)
        asked_before, self._deep_key = key == self._deep_key, key  # the play made here is rated at this depth (a
        # player saw the 2-ply hint rank a play below the best, then the 1-ply rating call it the best)
        if self.mode == "train" and not asked_before and self.recorder.journal is not None:
            try:
                self.recorder.journal.append_deep(self._deep_key)
            except CompanionError as exc:  # the look is shown all the same
                self.notify(str(exc), severity="error")
        self.analyse(game, DEEP)

    def action_copy_ids(self) -> None:
        game = self.recorder.referee.game
        text = f"{game.gnubg_id()}  {game.xgid()}"
        self.copy_to_clipboard(text)
        self.notify(text, title="Copied")

    def action_export(self) -> None:
        wanted = self.export_path or self._default_export_path()
        path = unique_path(wanted)
        record = self.recorder.record()
        why_sgf = None
        try:
            try:
                text = format_record(record, path.suffix)
            except CompanionError as exc:
                if path.suffix != ".mat":
                    raise
                # what .mat cannot hold (an illegal play that stood) SGF can: only that falls back, never a write
                why_sgf, path = str(exc), unique_path(wanted.with_suffix(".sgf"))
                text = format_record(record, ".sgf")
            write_atomically(path, text)
        except CompanionError as exc:
            self.notify(str(exc), severity="error")
            return
        self.last_export = path
        if why_sgf is not None:  # said as what was done, then why (the .mat error's advice is what happened)
            why = why_sgf.removesuffix("; export to .sgf instead")
            self.notify(f"Wrote {path}: as SGF, since {why}", title="Exported as SGF", severity="warning")
        else:
            self.notify(f"Wrote {path}", title="Exported")

    def _default_export_path(self) -> Path:
        """Beside the journal (in the user's data folder unless `--journal` put it elsewhere), named after it."""
        journal = self.recorder.journal
        folder = journal.path.parent if journal is not None else Path.cwd()
        return folder / f"{journal.path.stem if journal is not None else 'match'}.mat"

    def action_illegal_view(self) -> None:
        pending = self.recorder.referee.state.pending
        if pending is None:
            self.notify("No illegal play is waiting for an answer", severity="warning")
            return

        def answered(answer: str | None) -> None:
            if answer == "correct":
                self.action_correct()
            elif answer == "accept":
                self.action_accept()

        self.push_screen(IllegalPlayView(pending.before, pending.event, self.recorder.names, self.viewer), answered)

    # -- the match clock ------------------------------------------------------------------------------

    def run_clock(self) -> None:
        """The clock runs for the player to act (to roll, to play, to answer a double, an illegal play or a
        resignation, `_to_act`); picking up the dice finishes the move and starts the opponent's; it stops between
        games and while paused (k)."""
        if self.clock is None:
            return
        now = self._now()
        if self.clock_paused or self._clock_stands():
            self.clock = self.clock.stop(now)
        else:
            self.clock = self.clock.start(self._to_act(), now)
        self.refresh_clock()

    def _to_act(self) -> int:
        """Whose time it is: the player on turn, but the opponent while he decides on an illegal play (correct,
        accept or roll) or on a resignation offered to him."""
        state = self.recorder.referee.state
        if state.pending is not None:
            return 1 - state.game.turn
        if state.resign_offer is not None:
            return 1 - state.resign_offer[0]
        return state.game.turn

    def action_clock(self) -> None:
        if self.clock is None:
            self.notify("No match clock: start with companion run --clock", severity="warning")
            return
        if self._clock_stands() and not self.clock_paused:
            # nothing runs to be paused: a k pressed before the first roll (to start the clock, or to try the key)
            # used to leave it paused once the game began, which no one had asked for
            self.notify("The clock stands between games: from the opening roll it runs for the player to act, and k "
                        "pauses it")
            return
        self.clock_paused = not self.clock_paused
        self.run_clock()
        self.refresh_bindings()  # the footer's Clock follows (`check_action`)

    def _clock_stands(self) -> bool:
        """Whether the clock stands, as between games: before the opening roll and once a game is over."""
        return self.recorder.referee.game.phase in (Phase.OPENING, Phase.OVER)

    def refresh_clock(self) -> None:
        if self.clock is None:
            return
        now, names, clock = self._now(), self.recorder.names, self.clock
        parts = []
        for player in (0, 1):
            mark = "▶ " if clock.running == player else "  "
            parts.append(f"{mark}[b]{names[player]}[/] {clock_text(clock.left(player, now))}")
        state = "paused (k)" if self.clock_paused else (
            f"delay {clock.delay_left(now):.0f} s" if clock.running is not None else "stopped")
        lines = ["  ".join(parts), f"Clock {state}"]
        for player in clock.flagged(now):
            lines.append(f"[b red]FLAG: {names[player]}'s reserve has run out[/]")
            if player not in self._flagged:
                self._flagged.add(player)
                self.notify(f"{names[player]}'s reserve has run out", title="Flag", severity="error")
        self.query_one("#clock", Static).update("\n".join(lines))
        if self.mode == "referee":
            shown = clock.running if clock.running is not None else 0
            self.query_one("#clock-large", Digits).update(clock_text(clock.left(shown, now)))

    def action_keys(self) -> None:
        """Every key, those the footer has no room for too, and what the input line takes."""
        if not isinstance(self.screen, KeysScreen):
            self.push_screen(KeysScreen(self.listed_keys()))

    def listed_keys(self) -> list[tuple[str, str]]:
        """Every key binding, as the keys show (`?`/F1, `:`), with its action: the footer shows only some."""
        shown = {"question_mark,f1": "? F1", "colon": ":"}
        return [(shown.get(b.key, b.key), b.action) for b in self.BINDINGS]  # type: ignore[union-attr]

    def action_review(self) -> None:
        """The match so far, reviewed in a worker: seconds for a whole 7-point match (benchmarks/app_bench.py)."""
        self.push_screen(ReviewScreen(self.recorder.names, self.viewer))
        self.review_match(list(self.recorder.observations))

    @work(thread=True, exclusive=True, group="review")
    def review_match(self, observations: list[Observation]) -> None:
        replayed = Referee(self.recorder.header.match_state()).replay(observations)
        try:
            review = review_match(replayed, self.engine, self.recorder.names)
        except CompanionError as exc:
            self.post_message(SourceStatus(f"engine: {exc}"))
            return
        self.post_message(ReviewReady(review))

    def on_review_ready(self, message: ReviewReady) -> None:
        if isinstance(self.screen, ReviewScreen):
            self.screen.show(message.review)

    # -- analysis -------------------------------------------------------------------------------------

    def _analysis_key(self, game: GameState) -> str:
        return f"{game.phase.value}:{game.gnubg_id() if game.phase is not Phase.OVER else ''}"

    @work(thread=True, exclusive=True, group="analysis")
    def analyse(self, game: GameState, level: str = FAST) -> None:
        started = time.perf_counter()
        hint = cube = None
        try:
            if game.phase is Phase.PLAY:
                hint = self.engine.hint_for(game, level=level)
            elif game.phase in (Phase.ROLL, Phase.DOUBLED):
                cube = self.engine.cube_for(game, level=level)
        except CompanionError as exc:
            self.post_message(SourceStatus(f"engine: {exc}"))
            return
        self.post_message(AnalysisReady(self._analysis_key(game), hint, cube, time.perf_counter() - started))

    def on_analysis_ready(self, message: AnalysisReady) -> None:
        if message.key != self._analysis_key(self.recorder.referee.game):
            return  # the game moved on while the engine thought
        self.last_analysis = message
        self.refresh_analysis()

    @work(thread=True, group="rating")
    def rate(self, before: GameState, events: list[Event], level: str | None = None) -> None:
        reviewer = self.reviewer
        try:
            with self._review_lock:  # ratings are added to the summary in the order of the events
                ratings = reviewer.review(before, events, level)
        except CompanionError:
            return
        if ratings:
            self.post_message(RatingsReady(ratings, _game_ended_by(events)))

    @work(thread=True, group="rating")
    def rate_history(self) -> None:
        """A resumed match in training mode: the ratings that were on screen, computed again, each as deep as it
        was (a play where the player had asked for the deeper look at that depth)."""
        referee = Referee(self.recorder.header.match_state())
        batches: list[tuple[list[Event], list]] = []
        reviewer = self.reviewer
        looks = list(self.recorder.deep_looks)
        deep_key = None
        try:
            with self._review_lock:
                for done, observation in enumerate(list(self.recorder.observations)):
                    while looks and looks[0][0] <= done:  # the look asked for before this observation
                        deep_key = looks.pop(0)[1]
                    before = referee.game
                    events = referee.observe(observation)
                    if events:
                        level = DEEP if deep_key == self._analysis_key(before) else None
                        batches.append((events, reviewer.review(before, events, level)))
        except CompanionError:
            return
        self.post_message(HistoryRated(batches))

    def on_history_rated(self, message: HistoryRated) -> None:
        log = self.query_one("#plays", PlayList)
        log.clear()
        shown = 0
        for events, ratings in message.batches:
            for event in events:
                self._log_event(event)
            shown += len(events)
            self._write_ratings(ratings, _game_ended_by(events))
        for event in self.recorder.referee.events[shown:]:  # what arrived while the history was rated
            self._log_event(event)

    def on_ratings_ready(self, message: RatingsReady) -> None:
        self._write_ratings(message.ratings, message.game)

    def _write_ratings(self, ratings: list, game: int | None = None) -> None:
        """Each rating under what it rates; one that comes after the next game's line (a pass ends a game and the
        next begins at once, before its rating is worked out) names its game."""
        log = self.query_one("#plays", PlayList)
        names = self.recorder.names
        which = "" if game is None else f"game {game}, "
        for rating in ratings:
            if isinstance(rating, PlayRating) and not rating.forced:
                log.write(f"    {which}{names[rating.player]}: {rating.play.notation or 'no move'}: {rating.text()}")
            elif isinstance(rating, CubeRating) and rating.loss >= 0.0005:
                log.write(f"    {which}{names[rating.player]}: {rating.decision} costs {rating.loss:.3f}"
                          + (f" ({rating.skill.value})" if rating.skill.value else ""))

    # -- the view -------------------------------------------------------------------------------------

    def _log_event(self, event: Event) -> None:
        if isinstance(event, Refused):  # said in the verdict (and journalled); the play list is the match's story
            return
        self.query_one("#plays", PlayList).write(event.text(self.recorder.names))

    def _verdict_from(self, events: list[Event]) -> None:
        names = self.recorder.names
        for event in reversed(events):
            if isinstance(event, PlayStood):  # it stands (accepted, or the opponent threw): no correction to ask
                judged = next((e for e in events if isinstance(e, IllegalPlay)), None)  # judged at the same time
                self.show_verdict(f"[b red]{event.text(names)}[/]" + (f": {'; '.join(judged.reasons)}" if judged
                                                                       else ""))
                return
            if isinstance(event, IllegalPlay):
                near = ", ".join(p.notation or "no move" for p in event.nearest)
                self.show_verdict(f"[b red]Illegal[/] ({names[event.player]}, {event.roll}): "
                                  f"{'; '.join(event.reasons)}\nNearest legal: {near}\n"
                                  f"[b]{names[1 - event.player]}[/]: [b]c[/] asks for a correction, "
                                  f"[b]a[/] accepts (rolling accepts it too); [b]l[/] shows the board as it "
                                  f"stands")
                return
            if isinstance(event, GameStarted) and event is events[-1]:
                # the game just ended says how first (a pass ends one and starts the next in one observation)
                over = [f"{e.text(names)}. " for e in events if isinstance(e, GameOver)]
                self.show_verdict("".join(over) + f"{event.text(names)}\n{self._opening_help()}")
                return
            if isinstance(event, NeedsAttention):
                self.show_verdict(f"[b yellow]Attention:[/] {event.what}")
                return
            if isinstance(event, Refused):
                self.show_verdict(f"[b yellow]Not allowed[/] ({event.what}): {event.reason}")
                return
            if isinstance(event, PlayMade):
                self.show_verdict(f"[b green]Legal[/]: {event.text(names)}")
                return
        self.show_verdict(events[-1].text(names))

    def _opening_help(self) -> str:
        game = self.recorder.referee.game
        if game.phase is not Phase.OPENING:
            return ""
        a, b = self.recorder.names
        return (f"Opening roll: each player throws one die. Type {a}'s die, then {b}'s "
                f"(31: {a} 3, {b} 1); the higher die plays first, with both.")

    def show_verdict(self, markup: str) -> None:
        self.verdict = markup
        self.query_one("#verdict", Static).update(markup)

    def refresh_view(self) -> None:
        self.refresh_bindings()  # the footer's answers follow the state (`check_action`)
        over = self.recorder.referee.state.match_over
        self.query_one("#command", Input).placeholder = f"the match is over: {MATCH_OVER_HELP}" if over else TYPING_HELP
        self.run_clock()
        game = self.recorder.referee.game
        # numbered for the player on roll: his plays and hints are in his numbering
        numbered_for = game.turn if game.phase in (Phase.ROLL, Phase.PLAY) else None
        self.query_one("#board", Static).update(render_board(game, self.viewer, names=self.recorder.names,
                                                             numbered_for=numbered_for))
        self.refresh_status()
        # hints are off in record mode until `h`, then asked for as in training (only referee mode has none)
        wanted = (self.mode != "referee" and self.hints_shown
                  and game.phase in (Phase.PLAY, Phase.ROLL, Phase.DOUBLED))
        key = self._analysis_key(game) if wanted else None
        if key != self._asked:  # most observations (a checker lifted, dice knocked) leave the decision as it was
            self._asked = key
            self.last_analysis = None
            if wanted:
                self.analyse(game)
        self.refresh_analysis()

    def refresh_status(self) -> None:
        game = self.recorder.referee.game
        match = game.match
        names = self.recorder.names
        pips = game.position_of(0).pip_counts()
        if match.length:
            score = f"{match.score[0]}-{match.score[1]} to {match.length}"
        elif self.narrow:  # money play at 80 columns: the names are on the lines above
            score = f"money {match.score[0]}-{match.score[1]}"
        else:  # money play: the running total of the session
            score = f"money, {names[0]} {match.score[0]}, {names[1]} {match.score[1]}"
        if match.crawford:
            score += " (Crawford)"
        answer = "answer" if self.narrow else "answer the double"  # the cube line says who offers what
        doing = answer if game.phase is Phase.DOUBLED else "play" if game.phase is Phase.PLAY else "roll"
        turn = {Phase.OPENING: "opening roll", Phase.OVER: "game over"}.get(game.phase,
                                                                            f"{names[game.turn]} to {doing}")
        cube = f"Cube   {match.cube}" + ("" if match.cube_owner is None else f", {names[match.cube_owner]}'s")
        if game.phase is Phase.DOUBLED:
            cube += f"; {names[1 - game.turn]} offers {match.cube * 2}"
        lines = [
            f"[b]{names[0]}[/] ●  pips {pips[0]}",
            f"[b]{names[1]}[/] ○  pips {pips[1]}",
            f"Score  {score}",
            f"Turn   {turn}",
            cube,
            f"Source {self.source_status}",
        ]
        journal = self.recorder.journal
        if journal is not None:
            lines.append(f"Journal {journal.path.name} ({journal.entries})")
        if self.club is not None:
            lines.append(f"Club   board {self.club.board}: {self.club.status().text().removeprefix('club: ')}")
        self.query_one("#status", Static).update("\n".join(lines))
        ids = self.query_one("#ids", Static)
        ids.update(ids_text(game.gnubg_id(), game.xgid(), ids.content_region.width or 80))

    def refresh_analysis(self) -> None:
        hints, cube = self.query_one("#hints", Static), self.query_one("#cube", Static)
        if self.mode == "referee" or not self.hints_shown:
            hints.update("[dim]hints hidden (h)[/]" if self.mode != "referee" else "")
            cube.update("")
            return
        result = self.last_analysis
        game = self.recorder.referee.game
        if result is None:
            hints.update("[dim]thinking…[/]" if game.phase in (Phase.PLAY, Phase.ROLL, Phase.DOUBLED) else "")
            cube.update(_race_text(game))
            return
        if result.hint is not None and len(result.hint.plays) == 1:
            only = result.hint.plays[0].play.notation or "no move"
            hints.update(f"[b]Hint[/]: {only} is forced (the only legal play)")
        elif result.hint is not None:
            rows = [f"[b]Hint[/] ({level_name(result.hint.level)}, {result.seconds * 1000:.0f} ms)"]
            shown = [(r.play.notation or "no move", r.equity, match_winning_chance(game.match, game.turn, r.equity),
                      r.loss) for r in result.hint.plays[:5]]
            width = hints.content_region.width or 40
            header = hint_header(shown, width, self.recorder.names[game.turn])
            hints.update("\n".join(rows + [f"[dim]{header}[/]"] + hint_rows(shown, width)))
        else:
            hints.update("")
        if result.cube is not None:
            cube.update(self.cube_text(game, result.cube, result.seconds))
        else:
            cube.update(_race_text(game))

    def cube_text(self, game: GameState, c: CubeAdvice, seconds: float) -> str:
        """The doubler's view (match winning chances beside equities in match play); when a double waits, the
        view of the player who answers it: take or pass, and what each is worth to him. The match review's cube
        decisions show the same panel."""
        names = self.recorder.names
        doubler = game.on_roll if game.phase is Phase.DOUBLED else game.turn
        match = game.match

        def line(label: str, equity: float, player: int) -> str:
            mwc = match_winning_chance(match, player, equity)
            if mwc is None:
                return f"{label:<12}{equity:+.3f}"
            # at 80 columns a line must fit the side panel: the chances without "MWC"
            return f"{label:<12}{equity:+.3f}" + (f" {mwc:6.1%}" if self.narrow else f"  MWC {mwc:.1%}")

        # at 80 columns each line fits the side panel whole: no level or time, the answer and chances shorter
        heading = "" if self.narrow else f" ({level_name(c.level)}, {seconds * 1000:.0f} ms)"
        rows = [f"[b]Cube[/]{heading}: [b]{c.action.value}[/]"]
        if self.narrow and match.length:
            rows.append("[dim]equity, MWC[/]")
        if game.phase is Phase.DOUBLED:
            taker = 1 - doubler
            take, drop = -c.double_take, -c.double_pass
            answer = "Take" if take >= drop else "Pass"
            whose = names[taker] if self.narrow else f"{names[taker]}'s answer"
            rows += [f"[b]{whose}: {answer}[/] (by {abs(take - drop):.3f})",
                     line("Take", take, taker), line("Pass", drop, taker)]
        rows += [f"[dim]{names[doubler]}'s view:[/]"]  # whose equities and chances follow
        rows += [line("No double", c.no_double, doubler), line("Double/take", c.double_take, doubler),
                 line("Double/pass", c.double_pass, doubler)]
        win = f"Win {c.chances.win:.1%}  gammon {c.chances.win_gammon:.1%}"
        lose = f"lose gammon {c.chances.lose_gammon:.1%}"
        rows += [win, lose.capitalize()] if self.narrow else [f"{win}  {lose}"]
        race = _race_text(game)
        return "\n".join(rows + ([race] if race else []))


def _game_ended_by(events: list[Event]) -> int | None:
    """The number of the game `events` ended by starting the next (a pass, a resignation taken), else None."""
    started = next((e for e in events if isinstance(e, GameStarted)), None)
    return None if started is None else started.number - 1


def ids_text(gnubg_id: str, xgid: str, width: int) -> str:
    """The side panel's IDs in `width` columns. An ID is never broken inside a field: an XGID too long for the panel
    is broken at the colon after its position (the panel wrapped it mid-ID, where it read as two IDs; `i` copies
    both whole)."""
    lines = [f"IDs {gnubg_id}"]
    if len(xgid) + 4 <= width:
        return "\n".join(lines + [f"    {xgid}"])
    board, colon, rest = xgid.partition(":")
    return "\n".join(lines + [f"    {board}", f"    {colon}{rest}"])


def hint_rows(plays: list[tuple[str, float, float | None, float]], width: int) -> list[str]:
    """The best plays (notation, equity, match winning chance or None, equity lost), one whole row each in `width`
    columns: the loss is left out first where a row would not fit, then the chances (a row broken in two read as
    two plays)."""
    column, with_mwc, with_loss = _hint_layout(plays, width)
    if _figures_first(column, width):  # a play too long for its row: the equity before it, the play's tail wraps
        return [f"{i}. {equity:+.3f} {notation}" for i, (notation, equity, _, _) in enumerate(plays, start=1)]
    rows = []
    for i, (notation, equity, mwc, loss) in enumerate(plays, start=1):
        row = f"{i}. {notation:<{column}} {equity:+.3f}"
        if with_mwc and mwc is not None:
            row += f" {mwc:6.1%}"
        if with_loss and i > 1:
            row += f"  -{loss:.3f}"
        rows.append(row)
    return rows


def hint_header(plays: list[tuple[str, float, float | None, float]], width: int, player: str) -> str:
    """What `hint_rows`' columns are, over them: whose plays, equity, and the chances and loss where they show."""
    column, with_mwc, with_loss = _hint_layout(plays, width)
    label = f"{player}'s play" if len(player) + 7 <= column else "play"
    if _figures_first(column, width):  # the name only where the line still fits (a long one wrapped the header)
        whose = f"{player}'s play" if len(f"{'':3}{'equity':>6} {player}'s play") <= width else "play"
        return f"{'':3}{'equity':>6} {whose}"
    return (f"{'':3}{label:<{column}} {'equity':>6}" + (f" {'MWC':>6}" if with_mwc else "")
            + (f"  {'cost':>6}" if with_loss and len(plays) > 1 else ""))


FIGURES_FIRST_BELOW = 36
"""Panels narrower than this give each hint's equity before its play: the longest plays (four moves, hits, the bar)
with their equity need it (at 80x24 each equity wrapped to a line of its own). By width alone, so the columns do not
swap from one position to the next."""


def _figures_first(column: int, width: int) -> bool:
    """Whether each hint row gives its equity first: in a narrow panel, or where even so the plays do not fit."""
    return width < FIGURES_FIRST_BELOW or len("1. ") + column + len(" +0.000") > width


def _hint_layout(plays: list[tuple[str, float, float | None, float]], width: int) -> tuple[int, bool, bool]:
    """The notation column's width, and whether the chances and the loss fit beside it in `width` columns."""
    column = max((len(notation) for notation, *_ in plays), default=0)
    base = len("1. ") + column + len(" +0.000")
    with_mwc = any(mwc is not None for _, _, mwc, _ in plays) and base + len(" 100.0%") <= width
    with_loss = base + (len(" 100.0%") if with_mwc else 0) + len("  -0.000") <= width
    return column, with_mwc, with_loss


def _race_text(game: GameState) -> str:
    if game.phase not in (Phase.ROLL, Phase.DOUBLED):
        return ""
    if game.match.crawford:
        return "Crawford game: no doubling"
    guides = [g.text() for g in race_guides(game.position_of(game.on_roll))]
    why_not = game.match.why_no_double(game.turn) if game.phase is Phase.ROLL else None
    # the panel said nothing when the cube was the opponent's: say why there is no cube advice
    return "\n".join(([f"No cube decision: {why_not}"] if why_not else []) + guides)


__all__ = ["AnalysisReady", "CommandLine", "CompanionApp", "ObservationArrived", "SourceStatus", "hint_header",
           "hint_rows", "ids_text", "key_is_typed", "level_name"]
