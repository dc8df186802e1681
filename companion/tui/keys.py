"""Every key of the app and what the input line takes, on one screen (`?` or F1): the footer of an 80-column
terminal has room for a few keys only, and some keys are never in it."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

ACTIONS: dict[str, tuple[str, str]] = {
    "accept": ("Accept the illegal play", "The opponent lets it stand"),
    "correct": ("Request a correction", "The illegal play is played again"),
    "double": ("Double", "Offer the cube"),
    "take": ("Take", "Accept the double"),
    "pass_double": ("Pass", "Refuse the double and lose the game"),
    "beaver": ("Beaver", "Take and redouble at once, keeping the cube (money play)"),
    "undo": ("Undo", "Take back the last thing the referee decided"),
    "new_game": ("New game", "Start this game again from the opening roll"),
    "edit_position": ("Edit the position", "Set the checkers by hand when the camera read them wrong"),
    "export": ("Export", "Write the match as .mat (or .sgf when it must)"),
    "toggle_hints": ("Toggle hints", "Show or hide hints and cube advice"),
    "deep": ("Deeper analysis", "Analyse the position at 2-ply"),
    "copy_ids": ("Copy IDs", "Copy the Position ID, Match ID and XGID"),
    "review": ("Review the match", "Every play and cube decision so far, rated by the engine"),
    "illegal_view": ("Look at the illegal play", "The board as it stands beside the last legal position"),
    "clock": ("Pause the clock", "Pause or restart the match clock (companion run --clock)"),
    "focus_input": ("Type", "Go to the input line"),
    "keys": ("Keys", "This list of keys and of what the input line takes"),
    "quit": ("Quit", "Leave the app (the match is kept as it is played)"),
}
"""Each action's name and what it does: the command palette's entries and this screen's lines."""

TYPED = (
    ("31  3-1", "the dice, when they are to be rolled"),
    ("13/8 24/22*", "a play; also 24-18, bar/20, 6/off, 8/5(2); a hit made in passing may be left out"),
    ("-  none", "the roll cannot be played"),
    ("set ID", "set the position: a Position ID, or XGID=..."),
    ("resign 1-3", "offer to resign a single game, a gammon or a backgammon"),
)
"""What the input line takes, typed and entered."""


def key_lines(keys: dict[str, str]) -> list[str]:
    """One line per key (`keys`: key to action), in the order given, with the action's name and what it does."""
    lines = []
    for key, action in keys.items():
        title, help_text = ACTIONS.get(action, (action.replace("_", " ").capitalize(), ""))
        lines.append(f"[b]{escape(key):>3}[/]  {title}" + (f": {help_text}" if help_text else ""))
    return lines


class KeysScreen(ModalScreen[None]):
    """The app's keys (`keys`, key to action) and what the input line takes; Escape, q, ? or F1 closes it."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        typed = [f"[b]{escape(text):>12}[/]  {meaning}" for text, meaning in TYPED]
        with VerticalScroll(id="keys"):
            yield Static("\n".join([
                "[b]Keys[/] act at once while the input line is empty. While a roll awaits its play, b, c and n",
                "begin what is typed (bar/20, cannot move, none); entered alone they act.", "",
                *key_lines(self.keys), "", "[b]Typed[/] on the input line, then Enter:", *typed, "",
                "Escape, q or ? closes this list. Ctrl+P finds any action by name."]))


__all__ = ["ACTIONS", "KeysScreen", "TYPED", "key_lines"]
