"""Typed input: the keyboard-only mode, where dice and plays are typed instead of seen.

A line becomes the observations a camera and dice cup would have given, so the referee judges typed plays
exactly as seen ones (an illegal typed play is caught, and can be corrected or accepted):

    31            the dice (in the opening roll: player 0's die, then player 1's)
    8/5 6/5       the play of the dice on the board (the board after it, then the dice picked up)
    -             the roll cannot be played (pick up the dice)
    double | take | pass | beaver | accept | correct | undo | new | resign [1|2|3]
"""

from __future__ import annotations

import re

from companion.errors import CompanionError, RulesError
from companion.referee.observations import BoardReading, Command, DiceReading, Observation, UserCommand
from companion.rules import GameState, Phase, Position
from companion.rules.notation import apply_moves, parse_moves

_COMMANDS = {
    "double": Command.DOUBLE, "take": Command.TAKE, "pass": Command.PASS, "drop": Command.PASS,
    "beaver": Command.BEAVER, "accept": Command.ACCEPT_PLAY, "correct": Command.REQUEST_CORRECTION,
    "undo": Command.UNDO, "new": Command.NEW_GAME,
}


class TypedInputError(CompanionError):
    """A typed line that is neither dice, a play nor a command."""


def observations_from_text(line: str, game: GameState) -> list[Observation]:
    """What `line` means now, in `game` (the referee's current game)."""
    text = line.strip().lower()
    if not text:
        return []
    if re.fullmatch(r"[1-6]\s*[-,]?\s*[1-6]", text):
        d1, d2 = int(text[0]), int(text[-1])
        if game.phase is Phase.OPENING:
            return [DiceReading((d1, d2))]
        roller = game.turn if game.phase is not Phase.PLAY else 1 - game.turn
        return [DiceReading((d1, d2), roller=roller)]
    word, *rest = text.split()
    if word in _COMMANDS:
        return [UserCommand(_COMMANDS[word])]
    if word == "resign":
        size = int(rest[0]) if rest and rest[0] in ("1", "2", "3") else 1
        return [UserCommand(Command.RESIGN, game.on_roll, value=size)]
    if text in ("-", "none", "no move", "cannot move"):
        return [DiceReading(())]
    if game.phase is not Phase.PLAY:
        raise TypedInputError(f"{line.strip()!r}: type the dice first (e.g. 31), or a command")
    try:
        mine, theirs = apply_moves(game.position, parse_moves(text))
        after = Position(tuple(mine), tuple(theirs))
    except RulesError as exc:
        raise TypedInputError(f"{line.strip()!r}: {exc}") from exc
    return [BoardReading.from_position(after, game.turn), DiceReading(())]


__all__ = ["TypedInputError", "observations_from_text"]
