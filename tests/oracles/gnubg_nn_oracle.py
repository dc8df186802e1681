"""Bridges from our positions to gnubg-nn (GPL, a test oracle only: never imported by `companion`)."""

from __future__ import annotations

import gnubg_nn

from companion.rules import Position


def to_board(position: Position) -> list[list[int]]:
    """gnubg's board: [side not on roll, side on roll], each points 1..24 then the bar."""
    return [list(position.opponent[1:26]), list(position.player[1:26])]


def from_key(key: str) -> Position:
    """A move key from gnubg_nn.moves (side on roll still second) as our position after the play."""
    opp, me = gnubg_nn.board_from_position_key(key)
    player = (15 - sum(me),) + tuple(me)
    opponent = (15 - sum(opp),) + tuple(opp)
    return Position(player, opponent)


def legal_results(position: Position, die1: int, die2: int) -> set[Position]:
    """Positions (still from the mover's side) that gnubg-nn's move generator reaches."""
    keys = gnubg_nn.moves(to_board(position), die1, die2)
    if not keys:
        return {position}
    return {from_key(k) for k in keys}
