"""The referee's view of an illegal play: the board as it physically stands beside the last legal position,
the points that differ marked on both, the reasons and the nearest legal plays."""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from companion.referee import IllegalPlay
from companion.rules import GameState
from companion.tui.board import MY_BAR, THEIR_BAR, render_board


def differing_places(before: GameState, after: GameState, viewer: int) -> frozenset[int]:
    """The points (the viewer's numbering) and bar halves whose checkers differ between two boards."""
    a, b = before.position_of(viewer), after.position_of(viewer)
    places = {p for p in range(1, 25)
              if (a.player[p], a.opponent[25 - p]) != (b.player[p], b.opponent[25 - p])}
    if a.player[25] != b.player[25]:
        places.add(MY_BAR)
    if a.opponent[25] != b.opponent[25]:
        places.add(THEIR_BAR)
    return frozenset(places)


class IllegalPlayView(ModalScreen[str | None]):
    """Opened with `l` while an illegal play waits; `c` or `a` answer it from here (dismissed with the answer)."""

    BINDINGS = [
        Binding("escape,l", "dismiss(None)", "Back"),
        Binding("c", "dismiss('correct')", "Correction"),
        Binding("a", "dismiss('accept')", "Accept"),
    ]

    def __init__(self, before: GameState, event: IllegalPlay, names: tuple[str, str], viewer: int = 0) -> None:
        super().__init__()
        self.before, self.event, self.names, self.viewer = before, event, names, viewer
        self.stands = replace(before, position=event.after) if event.after is not None else None
        self.marks = differing_places(before, self.stands, viewer) if self.stands is not None else frozenset()

    def compose(self) -> ComposeResult:
        name = self.names[self.event.player]
        with VerticalScroll(id="illegal-view"):
            yield Static(f"[b red]Illegal play[/] by {name} ({self.event.roll}): {'; '.join(self.event.reasons)}",
                         id="illegal-title")
            with Horizontal(id="illegal-boards"):
                with Vertical(classes="illegal-board"):
                    yield Static("[b]As it stands[/] (the board that was seen)")
                    if self.stands is not None:
                        board = render_board(self.stands, self.viewer, dice=(), marks=self.marks, names=self.names,
                                             numbered_for=self.event.player)
                        yield Static(board, id="illegal-stands")
                    else:
                        yield Static("not a position: the board does not show 15 checkers a side",
                                     id="illegal-stands")
                with Vertical(classes="illegal-board"):
                    yield Static("[b]Last legal position[/] (before the play)")
                    yield Static(render_board(self.before, self.viewer, marks=self.marks, names=self.names,
                                             numbered_for=self.event.player),
                                 id="illegal-before")
            near = "\n".join(f"  {p.notation or 'no move'}" for p in self.event.nearest) or "  (none)"
            yield Static(f"Points that differ are marked in red.\nNearest legal plays:\n{near}\n"
                         f"{self.names[1 - self.event.player]}: [b]c[/] asks for a correction, [b]a[/] accepts",
                         id="illegal-nearest")
        yield Footer()


__all__ = ["IllegalPlayView", "differing_places"]
