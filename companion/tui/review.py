"""The match review, as GNU Backgammon's and eXtreme Gammon's analysis lists it: every play and cube decision
with the equity it lost; choosing one shows its position, what was played and the engine's panel for it."""

from __future__ import annotations

import time

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Header, Static

from companion.analysis import CubeAdvice, Hint, MatchReview, ReviewedDecision
from companion.errors import CompanionError
from companion.rules import GameState
from companion.tui.board import render_board


class DecisionAnalysed(Message):
    def __init__(self, index: int, hint: Hint | None, cube: CubeAdvice | None, game: GameState,
                 seconds: float = 0.0) -> None:
        super().__init__()
        self.index, self.hint, self.cube, self.game, self.seconds = index, hint, cube, game, seconds


class DecisionTable(DataTable):
    """The review's list. At 80 columns its Enter opens the chosen decision in the list's place, and the footer says
    so; on a wider screen the decision shows beside the list as the cursor moves, and Enter has nothing to do."""

    BINDINGS = [Binding("enter", "select_cursor", "Board and engine", key_display="⏎")]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor":
            return self.screen.has_class("-narrow")
        return True


class ReviewScreen(ModalScreen):
    """Opened with `v`; the review itself is computed by the app in a worker and handed over with `show`.
    Modal, so the match's keys (d doubles) do not reach past it."""

    BINDINGS = [
        Binding("escape,v,q", "back", "Back"),
        Binding("f", "flagged", "Doubtful and worse"),
    ]

    def __init__(self, names: tuple[str, str], viewer: int = 0) -> None:
        super().__init__()
        self.names, self.viewer = names, viewer
        self.review: MatchReview | None = None
        self.only_flagged = False
        self.shown: list[ReviewedDecision] = []
        self.selected: ReviewedDecision | None = None

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal():
            yield DecisionTable(id="decisions", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="review-side"):
                yield Static(id="review-board")
                yield Static(id="review-decision")
                yield Static(id="review-engine")
        yield Static("[dim]reviewing the match…[/]", id="review-summary")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "match review"
        table = self.query_one("#decisions", DataTable)
        table.add_columns("#", "game", "player", "decision", "cost", "")

    def show(self, review: MatchReview) -> None:
        self.review = review
        self.query_one("#review-summary", Static).update(review.summary.text())
        self._fill()

    def _fill(self) -> None:
        assert self.review is not None
        table = self.query_one("#decisions", DataTable)
        table.clear()
        self.shown = self.review.flagged() if self.only_flagged else list(self.review.decisions)
        for d in self.shown:
            what = f"{d.roll}: {d.played}" if d.kind == "play" else d.played
            lost = "forced" if d.forced else f"{d.loss:.3f}"
            table.add_row(str(d.index + 1), str(d.game), self.names[d.player], what, lost, d.skill.value,
                          key=str(d.index))
        if self.shown:
            table.move_cursor(row=0)
            self.choose(self.shown[0])
        table.focus()

    def action_back(self) -> None:
        """Back to the list from a decision opened at 80 columns, else back to the match."""
        if self.has_class("-detail"):
            self.remove_class("-detail")
            self.refresh_bindings()
            self.query_one("#decisions", DataTable).focus()
        else:
            self.app.pop_screen()

    def on_resize(self, event: events.Resize) -> None:
        # the breakpoint's class is set by now: the footer's Enter follows it, and a wider screen has the list back
        if not self.has_class("-narrow"):
            self.remove_class("-detail")
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # at 80 columns there is no room beside the list: the chosen decision's board and the engine's panel take
        # its place (`DecisionTable`: Enter, or a click)
        if self.has_class("-narrow") and self.selected is not None:
            self.add_class("-detail")
            self.refresh_bindings()

    def action_flagged(self) -> None:
        if self.has_class("-detail"):  # the list changes under the open decision: back to it first
            self.action_back()
        if self.review is not None:
            self.only_flagged = not self.only_flagged
            self._fill()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.review is not None and event.row_key.value is not None:
            self.choose(self.review.decisions[int(event.row_key.value)])

    def choose(self, decision: ReviewedDecision) -> None:
        """Jump to a decision: its position, what was played against the best, and the engine's panel."""
        self.selected = decision
        game = GameState.from_xgid(decision.xgid)
        self.query_one("#review-board", Static).update(render_board(game, self.viewer, names=self.names,
                                                                           numbered_for=decision.player))
        name = self.names[decision.player]
        what = f"{decision.roll}: {decision.played}" if decision.kind == "play" else decision.played
        verdict = ("forced" if decision.forced else "the best" if decision.loss < 0.0005 else
                   f"costs [b]{decision.loss:.3f}[/]"
                   + (f" ({decision.skill.value})" if decision.skill.value else "") + f"; best [b]{decision.best}[/]")
        self.query_one("#review-decision", Static).update(
            f"Game {decision.game}: {name} {what}: {verdict}\n{decision.xgid}")
        self.query_one("#review-engine", Static).update("[dim]thinking…[/]")
        self.analyse(decision, game)

    @work(thread=True, exclusive=True, group="review-panel")
    def analyse(self, decision: ReviewedDecision, game: GameState) -> None:
        engine = self.app.engine  # type: ignore[attr-defined]
        started = time.perf_counter()
        try:
            hint = engine.hint_for(game) if decision.kind == "play" else None
            cube = engine.cube_for(game) if decision.kind == "cube" else None
        except CompanionError as exc:
            self.app.call_from_thread(self.query_one("#review-engine", Static).update, f"engine: {exc}")
            return
        self.post_message(DecisionAnalysed(decision.index, hint, cube, game, time.perf_counter() - started))

    def on_decision_analysed(self, message: DecisionAnalysed) -> None:
        if self.selected is None or message.index != self.selected.index:
            return  # another decision was chosen meanwhile
        panel = self.query_one("#review-engine", Static)
        if message.hint is not None:
            # the depth of this look, not always the rating's (a play looked at deeper with x was rated at 2-ply)
            rows = [f"[b]Hint[/] ({message.hint.level})"]
            for i, r in enumerate(message.hint.plays[:5], start=1):
                rows.append(f"{i}. {r.play.notation or 'no move':<24} {r.equity:+.3f}"
                            + (f"  -{r.loss:.3f}" if i > 1 else ""))
            panel.update("\n".join(rows))
        elif message.cube is not None:
            # the match screen's panel: a take or pass is shown from the answering player's side, then whose view
            # the doubler's equities are (they were shown bare, as if the answer's)
            panel.update(self.app.cube_text(message.game, message.cube, message.seconds))  # type: ignore[attr-defined]
        else:
            panel.update("")


__all__ = ["ReviewScreen"]
