"""The Textual app: the board, the referee's verdicts, the play list, hints, cube advice and source status.

One thread decides: observations from sources arrive as messages, and the app feeds them to the recorder
(which journals each before its events are shown). Engine work runs in thread workers and comes back as
messages; a result for a position that has moved on is dropped.
"""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, Input, RichLog, Static

from companion.analysis import (
    DEEP,
    FAST,
    CubeAdvice,
    Engine,
    EngineProcess,
    Hint,
    MatchSummary,
    Reviewer,
    race_guides,
)
from companion.analysis.rating import CubeRating, PlayRating
from companion.errors import CompanionError
from companion.record.recorder import Recorder
from companion.referee import (
    Command,
    Event,
    IllegalPlay,
    NeedsAttention,
    Observation,
    PlayMade,
    Refused,
    UserCommand,
)
from companion.referee.typed import observations_from_text
from companion.rules import GameState, Phase, parse_position_text
from companion.tui.board import render_board
from companion.tui.editor import EditedPosition, PositionEditor

MODES = ("referee", "record", "train")


class ObservationArrived(Message):
    def __init__(self, observation: Observation) -> None:
        super().__init__()
        self.observation = observation


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
    def __init__(self, ratings: list) -> None:
        super().__init__()
        self.ratings = ratings


class CompanionApp(App):
    """`companion run` and `companion demo`."""

    CSS_PATH = Path(__file__).with_name("companion.tcss")  # absolute: subclasses elsewhere keep the styles
    TITLE = "Backgammon Companion"
    BINDINGS = [
        Binding("a", "accept", "Accept play"),
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
        Binding("colon", "focus_input", "Type", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, recorder: Recorder, *, mode: str = "train", source=None, engine: Engine | None = None,
                 viewer: int = 0, export_path: Path | None = None, club=None) -> None:
        super().__init__()
        if mode not in MODES:
            raise CompanionError(f"unknown mode {mode!r}: choose one of {', '.join(MODES)}")
        self.recorder = recorder
        self.mode = mode
        self.source = source
        self._engine = engine
        self._own_engine = engine is None
        self.viewer = viewer
        self.export_path = export_path
        self.club = club
        """The board's link to the club server (a `club.publisher.Publisher`), or None."""
        self.hints_shown = mode == "train"
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
        """The command palette (ctrl+p) offers every action by name, besides Textual's own."""
        yield from super().get_system_commands(screen)
        for title, help_text, action in (
            ("Accept the illegal play", "The opponent lets it stand", self.action_accept),
            ("Request a correction", "The illegal play is played again", self.action_correct),
            ("Double", "Offer the cube", self.action_double),
            ("Take", "Accept the double", self.action_take),
            ("Pass", "Refuse the double and lose the game", self.action_pass_double),
            ("Beaver", "Take and redouble at once, keeping the cube (money play)", self.action_beaver),
            ("Undo", "Take back the last thing the referee decided", self.action_undo),
            ("New game", "Start this game again from the opening roll", self.action_new_game),
            ("Edit the position", "Set the checkers by hand when the camera read them wrong",
             self.action_edit_position),
            ("Export", "Write the match as .mat (or .sgf when it must)", self.action_export),
            ("Toggle hints", "Show or hide hints and cube advice", self.action_toggle_hints),
            ("Deeper analysis", "Analyse the position at 2-ply", self.action_deep),
            ("Copy IDs", "Copy the Position ID, Match ID and XGID", self.action_copy_ids),
        ):
            yield SystemCommand(title, help_text, action)

    @property
    def engine(self) -> Engine:
        """Started on first use, in a process of its own (see `EngineProcess`): record mode never needs it."""
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
        if self._own_engine and isinstance(self._engine, EngineProcess):
            self._engine.close()

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static(id="board")
                yield Static(id="verdict")
            with VerticalScroll(id="side"):
                yield Static(id="status")
                yield Static(id="hints")
                yield Static(id="cube")
        yield RichLog(id="plays", markup=False, wrap=True)
        yield Input(placeholder="type dice (31), a play (8/5 6/5), or double/take/pass/accept/correct/undo/"
                                "set <Position ID or XGID>; s edits the board", id="command")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.mode} mode · {self.recorder.names[0]} v {self.recorder.names[1]}"
        for event in self.recorder.referee.events:  # a resumed match: show what was on screen
            self._log_event(event)
        gc.freeze()  # what was loaded lives as long as the app
        self.refresh_view()
        if self.source is not None:
            self.run_source()
        if self.club is not None:  # the link changes on its own (Wi-Fi, the server): look at it every second
            self.set_interval(1.0, self.refresh_status)
        self.query_one("#command", Input).focus()

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
        try:
            events = self.recorder.observe(observation)  # journalled before anything is shown
        except CompanionError as exc:
            self.show_verdict(f"[b red]{exc}[/]")
            return []
        for event in events:
            self._log_event(event)
        if events:
            self._verdict_from(events)
            if self.mode == "train":
                self.rate(before, events)
        self.refresh_view()
        self._unseen_by_gc += 1
        if self._unseen_by_gc >= 100:
            # the match so far is long-lived: keep it out of full collections, which otherwise grow with the
            # match and took ~50 ms of the UI thread (benchmarks/app_bench.py)
            gc.freeze()
            self._unseen_by_gc = 0
        self.stalls.append(time.perf_counter() - started)
        return events

    def on_input_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        message.input.value = ""
        if not text:
            return
        try:
            if text.lower().startswith("set "):
                observations: list[Observation] = [_set_command(text[4:].strip())]
            else:
                observations = observations_from_text(text, self.recorder.referee.game)
        except CompanionError as exc:
            self.show_verdict(f"[b red]{exc}[/]")
            return
        for observation in observations:
            self.apply(observation)

    # -- commands -------------------------------------------------------------------------------------

    def _command(self, command: Command) -> None:
        self.apply(UserCommand(command))

    def action_accept(self) -> None:
        self._command(Command.ACCEPT_PLAY)

    def action_correct(self) -> None:
        self._command(Command.REQUEST_CORRECTION)

    def action_double(self) -> None:
        self._command(Command.DOUBLE)

    def action_take(self) -> None:
        self._command(Command.TAKE)

    def action_pass_double(self) -> None:
        self._command(Command.PASS)

    def action_beaver(self) -> None:
        self._command(Command.BEAVER)

    def action_undo(self) -> None:
        self._command(Command.UNDO)

    def action_new_game(self) -> None:
        self._command(Command.NEW_GAME)

    def action_edit_position(self) -> None:
        """A modal screen: the app's keys (`d` doubles) do not reach past it."""
        editor = PositionEditor(self.recorder.referee.game, self.viewer, self.recorder.names)
        self.push_screen(editor, self._position_edited)

    def _position_edited(self, edited: EditedPosition | None) -> None:
        if edited is not None:
            self.apply(UserCommand(Command.SET_POSITION, edited.player, position=edited.position))

    def action_focus_input(self) -> None:
        self.query_one("#command", Input).focus()

    def action_toggle_hints(self) -> None:
        if self.mode == "referee":
            self.notify("Hints are hidden in referee mode", severity="warning")
            return
        self.hints_shown = not self.hints_shown
        self.refresh_view()

    def action_deep(self) -> None:
        if self.mode != "referee":
            self.analyse(self.recorder.referee.game, DEEP)

    def action_copy_ids(self) -> None:
        game = self.recorder.referee.game
        text = f"{game.gnubg_id()}  {game.xgid()}"
        self.copy_to_clipboard(text)
        self.notify(text, title="Copied")

    def action_export(self) -> None:
        path = self.export_path or Path("match.mat")
        try:
            written = self.recorder.export(path)
        except CompanionError as exc:
            if path.suffix == ".mat":
                written = self.recorder.export(path.with_suffix(".sgf"))
                self.notify(f"{exc}\nWrote {written}", title="Exported as SGF", severity="warning")
                return
            self.notify(str(exc), severity="error")
            return
        self.notify(f"Wrote {written}", title="Exported")

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
    def rate(self, before: GameState, events: list[Event]) -> None:
        reviewer = self.reviewer
        try:
            with self._review_lock:  # ratings are added to the summary in the order of the events
                ratings = reviewer.review(before, events)
        except CompanionError:
            return
        if ratings:
            self.post_message(RatingsReady(ratings))

    def on_ratings_ready(self, message: RatingsReady) -> None:
        log = self.query_one("#plays", RichLog)
        names = self.recorder.names
        for rating in message.ratings:
            if isinstance(rating, PlayRating) and not rating.forced:
                log.write(f"    {names[rating.player]}: {rating.play.notation or 'no move'}: {rating.text()}")
            elif isinstance(rating, CubeRating) and rating.loss >= 0.0005:
                log.write(f"    {names[rating.player]}: {rating.decision} costs {rating.loss:.3f}"
                          + (f" ({rating.skill.value})" if rating.skill.value else ""))

    # -- the view -------------------------------------------------------------------------------------

    def _log_event(self, event: Event) -> None:
        self.query_one("#plays", RichLog).write(event.text(self.recorder.names))

    def _verdict_from(self, events: list[Event]) -> None:
        names = self.recorder.names
        for event in reversed(events):
            if isinstance(event, IllegalPlay):
                near = ", ".join(p.notation or "no move" for p in event.nearest)
                self.show_verdict(f"[b red]Illegal[/] ({names[event.player]}, {event.roll}): "
                                  f"{'; '.join(event.reasons)}\nNearest legal: {near}\n"
                                  f"[b]{names[1 - event.player]}[/]: press [b]c[/] to ask for a correction, "
                                  f"[b]a[/] to accept (rolling accepts it too)")
                return
            if isinstance(event, NeedsAttention):
                self.show_verdict(f"[b yellow]Attention:[/] {event.what}")
                return
            if isinstance(event, Refused):
                self.show_verdict(f"[b yellow]Not allowed[/] ({event.command}): {event.reason}")
                return
            if isinstance(event, PlayMade):
                self.show_verdict(f"[b green]Legal[/]: {event.text(names)}")
                return
        self.show_verdict(events[-1].text(names))

    def show_verdict(self, markup: str) -> None:
        self.verdict = markup
        self.query_one("#verdict", Static).update(markup)

    def refresh_view(self) -> None:
        game = self.recorder.referee.game
        self.query_one("#board", Static).update(render_board(game, self.viewer))
        self.refresh_status()
        wanted = (self.mode == "train" and self.hints_shown
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
        score = (f"{match.score[0]}-{match.score[1]} to {match.length}" if match.length else "money game")
        if match.crawford:
            score += " (Crawford)"
        turn = {Phase.OPENING: "opening roll", Phase.OVER: "game over"}.get(
            game.phase, f"{names[game.turn]} to {'answer the double' if game.phase is Phase.DOUBLED else 'play' if game.phase is Phase.PLAY else 'roll'}")
        lines = [
            f"[b]{names[0]}[/] ●  pips {pips[0]}",
            f"[b]{names[1]}[/] ○  pips {pips[1]}",
            f"Score  {score}",
            f"Turn   {turn}",
            f"Cube   {match.cube}" + ("" if match.cube_owner is None else f", {names[match.cube_owner]}'s"),
            f"IDs    {game.gnubg_id()}",
            f"       {game.xgid()}",
            f"Source {self.source_status}",
        ]
        journal = self.recorder.journal
        if journal is not None:
            lines.append(f"Journal {journal.path.name} ({journal.entries})")
        if self.club is not None:
            lines.append(f"Club   board {self.club.board}: {self.club.status().text().removeprefix('club: ')}")
        self.query_one("#status", Static).update("\n".join(lines))

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
        if result.hint is not None:
            rows = [f"[b]Hint[/] ({result.hint.level}, {result.seconds * 1000:.0f} ms)"]
            for i, r in enumerate(result.hint.plays[:5], start=1):
                rows.append(f"{i}. {r.play.notation or 'no move':<24} {r.equity:+.3f}"
                            + (f"  -{r.loss:.3f}" if i > 1 else ""))
            hints.update("\n".join(rows))
        else:
            hints.update("")
        if result.cube is not None:
            c = result.cube
            cube.update(f"[b]Cube[/] ({c.level}, {result.seconds * 1000:.0f} ms): [b]{c.action.value}[/]\n"
                        f"No double   {c.no_double:+.3f}\nDouble/take {c.double_take:+.3f}\n"
                        f"Double/pass {c.double_pass:+.3f}\n"
                        f"Win {c.chances.win:.1%}  gammon {c.chances.win_gammon:.1%}  "
                        f"lose gammon {c.chances.lose_gammon:.1%}\n" + _race_text(game))
        else:
            cube.update(_race_text(game))


def _set_command(identifier: str) -> UserCommand:
    """`set <Position ID>` (the player to act is on roll) or `set XGID=...` (its own player on turn)."""
    position, turn = parse_position_text(identifier)
    return UserCommand(Command.SET_POSITION, turn, position=position)


def _race_text(game: GameState) -> str:
    if game.phase not in (Phase.ROLL, Phase.DOUBLED):
        return ""
    guides = race_guides(game.position_of(game.on_roll))
    return "\n".join(g.text() for g in guides)


__all__ = ["AnalysisReady", "CompanionApp", "ObservationArrived", "SourceStatus"]
