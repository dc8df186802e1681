"""The board drawn with Unicode: points numbered from the viewer's side, stacks with their heights, the bar,
the trays, the cube with its owner and the dice. A pure function of the game, so it is tested as text."""

from __future__ import annotations

from rich.text import Text

from companion.rules import BAR, OFF, GameState, Phase

STACK = 5
"""Checkers drawn per point; a taller stack shows its count in the last cell."""
MARKS = ("●", "○")
STYLES = ("bold #e8e8e8", "bold #d04040")
DICE = "⚀⚁⚂⚃⚄⚅"


MY_BAR, THEIR_BAR = 25, 0
"""Cursor places besides the points 1..24 (the viewer's numbering): the two halves of the bar."""


def short_name(name: str, room: int) -> str:
    """`name` in at most `room` characters: whole if it fits, else its words' initials with any number kept
    ("Player 1" is "P1": the default names were both "Playe"), else cut with a full stop ("Bartholomew" is
    "Bart.")."""
    if len(name) <= room:
        return name
    words = name.split()
    if len(words) > 1:
        initials = "".join(w if w.isdigit() else w[0] for w in words)
        if len(initials) <= room:
            return initials
    return name[:room - 1] + "."


def render_board(game: GameState, viewer: int = 0, dice: tuple[int, ...] | None = None,
                 cursor: int | None = None, marks: frozenset[int] = frozenset(),
                 names: tuple[str, str] | None = None, numbered_for: int | None = None) -> Text:
    """The board as `viewer` (0 or 1) sees it from his chair: his home board bottom right, 1 to 24.

    `numbered_for`: whose point numbers the number rows show (default the viewer's). Each player writes his plays
    and is given his hints in his own numbering: numbered for the player on roll, as gnubg's dynamic numbering does,
    the board says where his `24/18` goes (with his name beside the numbers, where `names` are given).

    `cursor` (a point 1..24, `MY_BAR` or `THEIR_BAR`) is marked on the number rows, for the position editor;
    `marks` (the same places) are shown in red there, for the points where two boards differ.
    `names`: the players', to say whose the cube is and who offers it, as the side panel does; without them the
    cube is said from the viewer's chair (yours, theirs).
    """
    mine = game.position_of(viewer)
    me, them = mine.player, mine.opponent

    def cell(point: int, level: int) -> Text:
        """Level 0 is the edge of the board, counting inwards."""
        if me[point]:
            count, owner = me[point], viewer
        elif them[25 - point]:
            count, owner = them[25 - point], 1 - viewer
        else:
            return Text(" · " if level == 0 else "   ", style="dim")
        if level >= min(count, STACK):
            return Text("   ")
        if level == STACK - 1 and count > STACK:
            return Text(f"{count:^3}", style=STYLES[owner])
        return Text(f" {MARKS[owner]} ", style=STYLES[owner])

    def bar_cell(player: int, level: int) -> Text:
        side = me if player == viewer else them
        count = side[BAR]
        if level < min(count, STACK):
            return Text(f" {MARKS[player]} " if level < STACK - 1 or count <= STACK else f"{count:^3}",
                        style=STYLES[player])
        return Text("   ")

    top = list(range(13, 19)), list(range(19, 25))
    bottom = list(range(12, 6, -1)), list(range(6, 0, -1))
    flip = numbered_for is not None and numbered_for != viewer
    out = Text()
    out.append_text(_numbers(top, cursor, THEIR_BAR, marks, flip))
    if flip and names is not None:
        # whose numbers, where they are not the viewer's; no wider than the trays' column below it
        out.append(f" {short_name(names[numbered_for], 5)}'s", style="dim")
    out.append("\n")
    out.append("┌" + "─" * 18 + "┬───┬" + "─" * 18 + "┐\n")
    for level in range(STACK):
        out.append(_row([cell(p, level) for p in top[0]], bar_cell(1 - viewer, level),
                        [cell(p, level) for p in top[1]], _tray(them[OFF], 1 - viewer) if level == 0 else None))
    out.append(_middle(game, viewer, dice, names))
    for level in reversed(range(STACK)):
        out.append(_row([cell(p, level) for p in bottom[0]], bar_cell(viewer, level),
                        [cell(p, level) for p in bottom[1]], _tray(me[OFF], viewer) if level == 0 else None))
    out.append("└" + "─" * 18 + "┴───┴" + "─" * 18 + "┘\n")
    out.append_text(_numbers(bottom, cursor, MY_BAR, marks, flip))
    return out


def _numbers(halves: tuple[list[int], list[int]], cursor: int | None, bar: int,
             marks: frozenset[int] = frozenset(), flip: bool = False) -> Text:
    """A row of point numbers (`halves` in the viewer's numbering; `flip`: shown in the other player's)."""
    line = Text(" ", style="dim")
    for i, half in enumerate(halves):
        if i:
            if cursor == bar or bar in marks:
                line.append(" bar ", style="reverse" if cursor == bar else "bold reverse red")
            else:
                line.append("     ", style="dim")
        for p in half:
            style = "reverse bold" if p == cursor else "bold reverse red" if p in marks else "dim"
            line.append(f"{25 - p if flip else p:^3}", style=style)
    return line


def _row(left: list[Text], bar: Text, right: list[Text], tray: Text | None) -> Text:
    line = Text("│")
    for t in left:
        line.append_text(t)
    line.append("│")
    line.append_text(bar)
    line.append("│")
    for t in right:
        line.append_text(t)
    line.append("│")
    if tray is not None:
        line.append(" ")
        line.append_text(tray)
    line.append("\n")
    return line


def _tray(off: int, player: int) -> Text:
    return Text(f"off {off:>2}", style=STYLES[player]) if off else Text("off  0", style="dim")


CUBE_ROOM = 17
"""Columns for what is said of the cube, left of the bar."""


def _middle(game: GameState, viewer: int, dice: tuple[int, ...] | None, names: tuple[str, str] | None) -> Text:
    match = game.match
    # the cube's worth, as the side panel says it ("Cube 1"): a centred cube's 64 on top read as 64 points
    cube = str(match.cube)

    def named(player: int, before: str, after: str) -> str:
        """The player's name between `before` and `after`, cut to the room left: the value is never cut."""
        name = names[player][:max(1, CUBE_ROOM - len(before) - len(after))].rstrip()  # type: ignore[index]
        return before + name + after

    said = f"cube {cube} centred"
    if game.phase is Phase.DOUBLED:  # the value offered, and by whom (the doubler is not on turn)
        doubler = 1 - game.turn
        said = (named(doubler, "", f" offers {match.cube * 2}") if names
                else f"cube {match.cube * 2} by {'you' if doubler == viewer else 'them'}")
    elif match.cube_owner is not None:
        owner = match.cube_owner
        said = (named(owner, f"cube {cube} ", "'s") if names
                else f"cube {cube} {'yours' if owner == viewer else 'theirs'}")
    shown = dice if dice is not None else ((game.dice.die1, game.dice.die2) if game.dice else ())
    faces = " ".join(DICE[d - 1] + f" {d}" for d in shown) if shown else "no dice"
    return Text("│ " + said[:CUBE_ROOM].ljust(CUBE_ROOM) + "│BAR│" + f" {faces}"[:18].ljust(18) + "│\n",
                style="bold")


__all__ = ["MY_BAR", "THEIR_BAR", "render_board"]
