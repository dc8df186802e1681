"""Every key of the app and what the input line takes, on one screen (`?` or F1): the footer of an 80-column
terminal has room for a few keys only, and some keys are never in it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from companion.analysis.rating import SKILL_FLOORS

ACTIONS: dict[str, tuple[str, str]] = {
    "accept": ("Accept the illegal play", "The opponent lets it stand"),
    "correct": ("Request a correction", "The illegal play is played again"),
    "double": ("Double", "Offer the cube"),
    "take": ("Take", "Accept the double"),
    "pass_double": ("Pass", "Refuse the double and lose the game"),
    "beaver": ("Beaver", "Take and redouble at once, keeping the cube (money play)"),
    "undo": ("Undo", "Take back the last thing the referee decided"),
    "new_game": ("New game", "Start this game again from the opening roll"),
    "edit_position": ("Set up the position", "Set the checkers by hand, or type or paste a Position ID or XGID"),
    "export": ("Export", "Write the match as .mat (or .sgf when it must)"),
    "toggle_hints": ("Toggle hints", "Show or hide hints and cube advice"),
    "deep": ("Deeper analysis", "Analyse the position at 2-ply"),
    "copy_ids": ("Copy IDs", "Copy the Position ID, Match ID and XGID"),
    "review": ("Review the match", "Every play and cube decision so far, rated by the engine"),
    "illegal_view": ("Look at the illegal play", "The board as it stands beside the last legal position"),
    "clock": ("Pause the clock", "Pause or restart the match clock (companion run --clock)"),
    "focus_input": ("Type on the input line", "Go to the input line"),
    "keys": ("List the keys", "Every key, and what the input line takes"),
    "quit": ("Quit", "Leave the app (the match is kept as it is played)"),
}
"""Each action's name and what it does: the command palette's entries and this screen's lines."""

TYPED = (
    ("31  3-1", "the dice, when they are to be rolled"),
    ("13/8 24/22*", "a play; also 24-18, bar/20, 6/off, 8/5(2); a hit made in passing may be left out"),
    ("13/9 6/5!", "made so on the board, though illegal: c or a answers"),
    ("-  none  cannot move", "the roll cannot be played"),
    ("resign 1|2|3", "offer to resign a single game, a gammon, a backgammon"),
)
"""What the input line takes, typed and entered."""

WORDS = (
    ("pips", "the pips each side still has to move to bear off: fewer is ahead in the race"),
    ("equity", "what the position is worth to the player on roll, in points a game: +1 a sure single win, -1 a sure "
               "loss, beyond them with gammons; with the cube as it stands"),
    ("MWC", "match winning chances: the chance to win the match from here (match play)"),
    ("cost", "the equity a play or cube action gave away against the best one"),
    ("doubtful, error, blunder", ", ".join(f"{skill.value} from {least}" for least, skill in reversed(SKILL_FLOORS))
     + " points of equity lost"),
    ("mEMG", "error rate: thousandths of a point lost a decision (normalised to money play)"),
    ("1-ply, 2-ply", "how many rolls ahead the engine looks (x looks deeper)"),
    ("No double, take", "cube advice: what the player to roll should do, then what the opponent should answer"),
    ("beaver", ACTIONS["beaver"][1][0].lower() + ACTIONS["beaver"][1][1:]),
    ("XGID, Position ID", "a position as text, for GNU Backgammon or eXtreme Gammon (i copies them)"),
)
"""The words the hints, cube advice and ratings use, for a newcomer."""


def key_table(keys: Sequence[tuple[str, str]], columns: int = 2) -> Table:
    """The keys (`keys`: what the key shows, its action) with their actions' names, `columns` pairs a row: at
    80x24 the whole list and what the line takes fit without scrolling."""
    table = Table.grid(padding=(0, 1))
    for _ in range(columns):
        table.add_column(justify="right", style="bold")
        table.add_column(min_width=26)
    rows = -(-len(keys) // columns)
    for r in range(rows):
        cells: list[str | Text] = []
        for c in range(columns):
            k = c * rows + r
            if k < len(keys):
                shown, action = keys[k]
                cells += [Text(shown), Text(ACTIONS.get(action, (action.replace("_", " ").capitalize(), ""))[0])]
        table.add_row(*cells)
    return table


class KeysScreen(ModalScreen[None]):
    """The app's keys (`keys`: what each key shows, and its action) and what the input line takes; Escape, q, ? or F1
    closes it."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def __init__(self, keys: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = list(keys)

    def compose(self) -> ComposeResult:
        typed = Table.grid(padding=(0, 2))
        typed.add_column(style="bold", no_wrap=True)
        typed.add_column()
        for text, meaning in TYPED:
            typed.add_row(text, meaning)
        with VerticalScroll(id="keys"):
            yield Static("[b]Keys[/] act at once on the empty input line (while a roll awaits its play, b c n begin "
                         "what is typed: bar/20, cannot move, none; entered alone they act):")
            yield Static(key_table(self.keys), id="key-table")
            yield Static("[b]Typed[/] on the input line, then Enter:")
            yield Static(typed, id="typed")
            yield Static("Escape, q or ? closes this list; ctrl+p finds an action by name.")
            words = Table.grid(padding=(0, 2))
            words.add_column(style="bold", no_wrap=True)
            words.add_column()
            for word, meaning in WORDS:
                words.add_row(word, meaning)
            yield Static("[b]Words[/] the hints and ratings use:")
            yield Static(words, id="words")


__all__ = ["ACTIONS", "KeysScreen", "TYPED", "WORDS", "key_table"]
