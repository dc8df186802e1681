"""The position editor: set the board by hand when the camera read it wrong, or to take up a game midway.

A modal screen over the app. The arrow keys move a cursor over the points as they are drawn (and the bar);
`+` and `-` move the count under it one checker towards yours or theirs, so one pair of keys covers both
colours. A Position ID or an XGID can be pasted instead. Checkers not on the board are borne off. The screen
returns an `EditedPosition` (the app sends it to the referee as a SET_POSITION command); Escape returns None.
"""

from __future__ import annotations

import time

from dataclasses import dataclass, replace

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from companion.errors import CompanionError
from companion.rules import BAR, CHECKERS, GameState, Phase, Position, parse_position_text
from companion.referee.typed import xgid_dice
from companion.rules.xgid import parse_xgid
from companion.tui.board import MY_BAR, THEIR_BAR, render_board

_ROWS = (
    (13, 14, 15, 16, 17, 18, THEIR_BAR, 19, 20, 21, 22, 23, 24),  # the far side, as drawn
    (12, 11, 10, 9, 8, 7, MY_BAR, 6, 5, 4, 3, 2, 1),  # the viewer's side
)


@dataclass(frozen=True)
class EditedPosition:
    """What the editor gives back: `position` is seen from `player`'s side; `player` is to roll when the
    game is waiting for its opening roll (otherwise the turn stays as it was)."""

    position: Position
    player: int
    dice: tuple[int, int] | None = None
    """The dice a pasted XGID says were thrown: the app throws them for `player` where he is the one to roll."""


BOARD_KEYS = frozenset("+=-0sr ")
"""The characters the board takes as keys (`PositionEditor.BINDINGS`); anything else typed begins an ID."""
ID_GAP = 0.5
"""Seconds within which a key that is none of the board's, typed after a board key, shows that key began an ID."""


class PositionEditor(ModalScreen[EditedPosition | None]):
    """Edit the position by hand."""

    AUTO_FOCUS = ""  # not None, the app's "*": the keys edit the board until the ID field is clicked or tabbed to

    DEFAULT_CSS = """
    PositionEditor {
        align: center middle;
    }
    PositionEditor > Vertical {
        width: 64;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    PositionEditor #editor-status {
        height: auto;
        margin-top: 1;
    }
    /* at 80x24 the editor fits whole, borders and footer: a one-line ID field, no gap above the status */
    PositionEditor.-short #editor-status {
        margin-top: 0;
    }
    PositionEditor.-short #editor-id {
        border: none;
        height: 1;
        padding: 0 1;
    }
    """
    BINDINGS = [
        Binding("left", "move(0, -1)", "←", show=False),
        Binding("right", "move(0, 1)", "→", show=False),
        Binding("up", "move(-1, 0)", "↑", show=False),
        Binding("down", "move(1, 0)", "↓", show=False),
        Binding("plus,equals_sign", "change(1)", "+ yours"),
        Binding("minus", "change(-1)", "- theirs"),
        Binding("0", "clear", "Clear point"),
        Binding("s", "start", "Start"),
        Binding("r", "roller", "Who starts"),
        Binding("enter", "apply", "Apply"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, game: GameState, viewer: int, names: tuple[str, str]) -> None:
        super().__init__()
        self.game, self.viewer, self.names = game, viewer, names
        self.counts: dict[int, int] = {}
        """Signed counts by the viewer's point number: plus for his checkers, minus for the opponent's."""
        self.bars: dict[int, int] = {}
        self.edited = game.position_of(viewer)
        """The position the counts make, from the viewer's side: every edit keeps it valid."""
        self.load(self.edited)
        self.row, self.column = 1, 4  # the viewer's 8-point
        self.roller = game.turn if game.phase is not Phase.OPENING else viewer
        self.dice: tuple[int, int] | None = None
        """A pasted XGID's dice, until the board is edited by hand."""
        self.dice_player: int | None = None
        """Whose roll `dice` are: the XGID's player on turn."""
        self._before_key: tuple | None = None
        """When the last of the board keys pressed in one burst was pressed (they may begin an ID), those keys, and
        the board before the first."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="editor-board")
            yield Static(id="editor-status")
            yield Input(placeholder="or type or paste a Position ID or an XGID, then Enter", id="editor-id",
                        select_on_focus=False)  # what was typed on the board before it took the focus stays
        yield Footer(compact=True)  # so that at 80 columns all seven keys fit whole

    def on_mount(self) -> None:
        self.refresh_board()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`r` is in the footer while it applies, in a game not yet begun; mid-game, when the turn is kept, it is
        hidden, and pressed it says why (`on_key`), as the app's hidden keys do."""
        if action == "roller":
            return self.game.phase is Phase.OPENING
        return True

    # -- the position being edited --------------------------------------------------------------------

    @property
    def cursor(self) -> int:
        return _ROWS[self.row][self.column]

    def load(self, position: Position) -> None:
        """Take every count from `position` (seen from the viewer's side)."""
        self.counts = {p: position.player[p] - position.opponent[25 - p] for p in range(1, 25)}
        self.bars = {MY_BAR: position.player[BAR], THEIR_BAR: position.opponent[BAR]}
        self.edited = position

    def _commit(self, counts: dict[int, int], bars: dict[int, int]) -> None:
        """Take the edited counts if they make a position (checkers not placed are borne off); else say why."""
        mine, theirs = [0] * 26, [0] * 26
        for p, n in counts.items():
            if n > 0:
                mine[p] = n
            elif n < 0:
                theirs[25 - p] = -n
        mine[BAR], theirs[BAR] = bars[MY_BAR], bars[THEIR_BAR]
        mine[0], theirs[0] = CHECKERS - sum(mine), CHECKERS - sum(theirs)
        try:
            self.edited = Position(tuple(mine), tuple(theirs))
        except CompanionError as exc:  # an empty board: both sides borne off
            self.notify(str(exc), severity="warning")
            return
        self.counts, self.bars = counts, bars
        self.dice = None  # edited by hand: no longer the pasted XGID's position and roll

    # -- keys -----------------------------------------------------------------------------------------

    def action_move(self, rows: int, columns: int) -> None:
        self.row = (self.row + rows) % 2
        self.column = (self.column + columns) % len(_ROWS[0])
        self.refresh_board()

    def action_change(self, step: int) -> None:
        """One checker towards the viewer's (+1) or the opponent's (-1) at the cursor; a bar holds one side."""
        off = self.edited.borne_off()  # the viewer's, the opponent's: the checkers there are to place
        counts, bars = dict(self.counts), dict(self.bars)
        if self.cursor in bars:
            owner_adds = (step > 0) == (self.cursor == MY_BAR)
            if owner_adds and off[0 if self.cursor == MY_BAR else 1] == 0:
                self.notify("All fifteen checkers are on the board", severity="warning")
                return
            bars[self.cursor] = max(0, bars[self.cursor] + (1 if owner_adds else -1))
        else:
            n = counts[self.cursor]
            taking_back = n * step < 0  # a checker of the other colour comes off first
            if not taking_back and off[0 if step > 0 else 1] == 0:
                self.notify("All fifteen checkers are on the board", severity="warning")
                return
            counts[self.cursor] = n + step
        self._commit(counts, bars)
        self.refresh_board()

    def action_clear(self) -> None:
        counts, bars = dict(self.counts), dict(self.bars)
        (bars if self.cursor in bars else counts)[self.cursor] = 0
        self._commit(counts, bars)
        self.refresh_board()

    def action_start(self) -> None:
        self.load(Position.start())
        self.dice = None
        self.refresh_board()

    def on_key(self, event: events.Key) -> None:
        # what is typed on the board and is none of its keys begins an ID: it goes to the ID field (a new user typed
        # a Position ID on the board, which took none of it, and applied the board unchanged)
        # (keys that come in one burst, a terminal's paste without bracketed paste, were all sent to the board before
        # the field took the focus: once the field holds text or has the focus, every printable key is the ID's)
        # (an ID may begin with a board key, `sGfwATDgc/ABMA`: a key that is none of the board's, typed on at once
        # after one, takes the board back to before it and gives the field both)
        field = self.query_one("#editor-id", Input)
        now = time.monotonic()
        if (event.character is not None and event.character.isprintable()
                and (event.character not in BOARD_KEYS or field.value or self.focused is field)):
            event.stop()
            event.prevent_default()
            self.set_focus(field)
            before, self._before_key = self._before_key, None
            if before is not None and not field.value and now - before[0] <= ID_GAP:
                self._restore(before[2])
                field.insert_text_at_cursor(before[1])
            field.insert_text_at_cursor(event.character)
            return
        before, self._before_key = self._before_key, None
        if event.character is not None and event.character in BOARD_KEYS and event.character != " ":
            if before is not None and now - before[0] <= ID_GAP:  # board keys in one burst: `s0...` too
                self._before_key = (now, before[1] + event.character, before[2])
            else:
                self._before_key = (now, event.character, self._snapshot())
        if event.character == "r" and not self.check_action("roller", ()):
            self.action_roller()  # hidden from the footer, not silent

    def _snapshot(self) -> tuple:
        return (dict(self.counts), dict(self.bars), self.edited, self.row, self.column, self.roller, self.dice,
                self.dice_player)

    def _restore(self, snapshot: tuple) -> None:
        (self.counts, self.bars, self.edited, self.row, self.column, self.roller, self.dice,
         self.dice_player) = snapshot
        self.refresh_board()

    def on_input_changed(self, message: Input.Changed) -> None:
        if not message.value and self.focused is message.input:
            self.set_focus(None)  # emptied (a stray letter rubbed out): the keys edit the board again

    def on_paste(self, event: events.Paste) -> None:
        # a pasted ID goes to the ID field whatever has the focus (Enter then takes it)
        field = self.query_one("#editor-id", Input)
        if self.focused is not field:
            event.stop()
            self.set_focus(field)  # at once, as for typed keys: an Enter right after the paste is the field's
            field.value = event.text.strip()
            field.cursor_position = len(field.value)

    def action_roller(self) -> None:
        if self.game.phase is Phase.OPENING:
            self.roller = 1 - self.roller
            self.refresh_board()
        else:
            self.notify("The turn is kept: only a game not yet started can choose who rolls first")

    def action_apply(self) -> None:
        position = self.edited
        # a pasted XGID's dice are its player's: thrown only if he is the one who rolls now (not after `r`, nor
        # mid-game when the turn, which is kept, is the other player's)
        dice = self.dice if self.dice_player == self.roller else None
        if self.dice is not None and dice is None:
            self.notify(f"The XGID's {self.dice[0]}{self.dice[1]} is not thrown: it is {self.names[self.roller]} who "
                        "rolls now (the position is taken)", severity="warning")
        if self.roller != self.viewer:
            self.dismiss(EditedPosition(position.swap(), self.roller, dice))
        else:
            self.dismiss(EditedPosition(position, self.viewer, dice))

    def action_cancel(self) -> None:
        field = self.query_one("#editor-id", Input)
        if field.value:  # Escape rubs out a half-typed ID first; then it leaves the editor, changing nothing
            field.value = ""
            self.set_focus(None)
            return
        self.dismiss(None)

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()  # the app's own input line must not take the ID for a play
        text = message.value.strip()
        if not text:  # Enter on the emptied field applies the board, as Enter on the board does
            self.action_apply()
            return
        try:
            on_turn, turn = parse_position_text(text)  # from the side of the player on turn
        except CompanionError as exc:
            self.notify(str(exc), title="Not a position", severity="error")
            message.input.select_all()  # the next paste or typing replaces it (a paste was appended to it)
            return
        if turn is not None and self.game.phase is Phase.OPENING:  # an XGID says who rolls
            self.roller = turn
        side = self.roller if turn is None else turn
        self.load(on_turn if side == self.viewer else on_turn.swap())
        self.dice, self.dice_player = xgid_dice(text), turn
        if text.upper().startswith("XGID=") and parse_xgid(text).match != self.game.match:
            self.notify("The XGID's position is taken, not its score, match length or cube: those are the match's",
                        severity="warning")
        message.input.value = ""
        self.set_focus(None)
        self.refresh_board()

    # -- the view -------------------------------------------------------------------------------------

    def refresh_board(self) -> None:
        position = self.edited
        game = replace(self.game, position=position if self.game.turn == self.viewer else position.swap())
        self.query_one("#editor-board", Static).update(
            render_board(game, self.viewer, dice=(), cursor=self.cursor, names=self.names))
        here = self.cursor
        mine, theirs = self.names[self.viewer], self.names[1 - self.viewer]  # by name: "yours" named no one
        if here in self.bars:
            what = f"{mine if here == MY_BAR else theirs}'s bar: {self.bars[here]}"
        else:
            n = self.counts[here]
            what = (f"{mine}'s point {here}: "
                    + (f"{n} of {mine}'s" if n > 0 else f"{-n} of {theirs}'s" if n < 0 else "empty"))
        lines = [
            f"[b]{what}[/]  [dim](+ one more of {mine}'s, - of {theirs}'s)[/]",
            f"{self.names[self.viewer]} ●  {CHECKERS - position.player[0]} on the board, {position.player[0]} off",
            f"{self.names[1 - self.viewer]} ○  {CHECKERS - position.opponent[0]} on the board, "
            f"{position.opponent[0]} off",
        ]
        if self.game.phase is Phase.OPENING:
            lines.append(f"{self.names[self.roller]} rolls first (r changes)")
        self.query_one("#editor-status", Static).update("\n".join(lines))


__all__ = ["EditedPosition", "PositionEditor"]
