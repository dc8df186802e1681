"""The rules of backgammon: positions, dice, legal plays, notation, scoring, cube and match state, IDs.

Standard library only, no I/O. Modelled on python-chess: small immutable values with exact formats.

>>> from companion.rules import Position
>>> p = Position.start()
>>> p.position_id()
'4HPwATDgc/ABMA'
>>> [play.notation for play in p.legal_plays(3, 1)][:2]
['24/23 24/21', '24/20']
"""

from companion.rules.dice import OpeningRoll, Roll, all_rolls
from companion.rules.game import EndKind, GameEnd, GameState, Phase
from companion.rules.ids import MatchKey, decode_match_id, encode_match_id
from companion.rules.match import MatchState
from companion.rules.notation import parse_moves, resolve_play
from companion.rules.play import Move, Play, format_moves
from companion.rules.position import BAR, CHECKERS, OFF, GameResult, Position
from companion.rules.xgid import XgidState, format_xgid, parse_position_text, parse_xgid

__all__ = [
    "BAR",
    "CHECKERS",
    "OFF",
    "EndKind",
    "GameEnd",
    "GameResult",
    "GameState",
    "MatchKey",
    "MatchState",
    "Move",
    "OpeningRoll",
    "Phase",
    "Play",
    "Position",
    "Roll",
    "XgidState",
    "all_rolls",
    "decode_match_id",
    "encode_match_id",
    "format_moves",
    "format_xgid",
    "parse_moves",
    "parse_position_text",
    "parse_xgid",
    "resolve_play",
]
