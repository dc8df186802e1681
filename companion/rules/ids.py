"""GNU Backgammon's Position ID and Match ID: bit strings packed little-endian and written in Base64.

Position ID: for each side, for each of its points 1..24 and then its bar, as many 1-bits as checkers and a
0-bit; the side *not* on roll first (the manual says the opposite; gnubg's code and output do this).
80 bits, 10 bytes, 14 Base64 characters without padding.

Match ID: 67 bits, 9 bytes, 12 Base64 characters; the fields are those of `MatchKey` in bit order. The
manual lists 66; gnubg 1.07 and later add a 67th, set when the Jacoby rule is *not* in use (always in match
play), and write the higher die first.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from companion.errors import InvalidIdError

_POSITION_ID_LENGTH = 14
_MATCH_ID_LENGTH = 12
_B64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _b64decode(text: str, length: int, nbytes: int, what: str) -> bytes:
    if not isinstance(text, str):
        raise InvalidIdError(f"a {what} is a string, not {type(text).__name__}")
    text = text.strip()
    example = "4HPwATDgc/ABMA" if what == "Position ID" else "cAkAAAAAAAAA"
    if what == "Position ID" and ":" in text:  # gnubg's "PositionID:MatchID" pair pasted whole
        raise InvalidIdError(f"{text!r} is not a Position ID: it looks like gnubg's Position ID:Match ID pair; "
                             f"give the Position ID alone (the part before ':')")
    wrong = next((k for k, c in enumerate(text) if c not in _B64), None)
    if wrong is not None:  # the character named where it stands, as the XGID's messages do
        raise InvalidIdError(f"{text!r} is not a {what}: {text[wrong]!r} (character {wrong + 1}) is not one of "
                             f"A-Z a-z 0-9 + / (e.g. {example})")
    if len(text) != length:
        raise InvalidIdError(f"{text!r} is not a {what}: a {what} has {length} characters, this has {len(text)} "
                             f"(e.g. {example})")
    pad = "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(text + pad, validate=True)
    except binascii.Error as exc:  # pragma: no cover - the character check above catches these
        raise InvalidIdError(f"{text!r} is not a {what}: {exc}") from exc
    return raw[:nbytes]


def encode_position_id(first: tuple[int, ...], second: tuple[int, ...]) -> str:
    """Encode two sides (26 slots each, off/points/bar): `first` is the side not on roll."""
    bits = 0
    n = 0
    for side in (first, second):
        for slot in range(1, 26):
            count = side[slot]
            bits |= ((1 << count) - 1) << n
            n += count + 1
    raw = bits.to_bytes(10, "little")
    return base64.b64encode(raw).decode("ascii")[:_POSITION_ID_LENGTH]


def decode_position_id(position_id: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Decode into (side not on roll, side on roll), 26 slots each with slot 0 = borne off."""
    raw = _b64decode(position_id, _POSITION_ID_LENGTH, 10, "Position ID")
    bits = int.from_bytes(raw, "little")
    sides: list[list[int]] = [[0] * 26, [0] * 26]
    side, slot, pos = 0, 1, 0
    while side < 2:
        if pos >= 80:
            raise InvalidIdError(f"{position_id!r} is not a Position ID: it ends before both sides are complete")
        if bits >> pos & 1:
            sides[side][slot] += 1
        else:
            slot += 1
            if slot == 26:
                side, slot = side + 1, 1
        pos += 1
    if bits >> pos:
        raise InvalidIdError(f"{position_id!r} is not a Position ID: it has checkers beyond the second bar")
    for name, s in zip(("side not on roll", "side on roll"), sides):
        total = sum(s)
        if total > 15:
            raise InvalidIdError(f"{position_id!r} gives the {name} {total} checkers; a side has 15")
        s[0] = 15 - total
    return tuple(sides[0]), tuple(sides[1])


@dataclass(frozen=True, slots=True)
class MatchKey:
    """The fields of a Match ID, in gnubg's terms (players 0 and 1 as gnubg numbers them)."""

    cube: int = 1
    cube_owner: int | None = None  # None: centred
    dice_owner: int = 0  # the player on roll, or who rolled
    crawford: bool = False
    game_state: int = 1  # 0 none, 1 playing, 2 over, 3 resigned, 4 ended by a dropped cube
    turn: int = 0  # who must act now (the doubled player while a double is offered)
    doubled: bool = False
    resigned: int = 0  # 0 none, 1 single, 2 gammon, 3 backgammon
    dice: tuple[int, int] = (0, 0)  # (0, 0) when not yet rolled
    match_length: int = 0  # 0 for money play
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False  # the Jacoby rule is in use (money play only)

    def __post_init__(self) -> None:
        if self.dice[0] < self.dice[1]:  # gnubg keeps the higher die first
            object.__setattr__(self, "dice", (self.dice[1], self.dice[0]))
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise InvalidIdError(f"the cube shows a power of two from 1 to 32768, not {self.cube}")
        if self.cube_owner not in (None, 0, 1):
            raise InvalidIdError(f"the cube is centred or owned by player 0 or 1, not {self.cube_owner!r}")
        if not 0 <= self.game_state <= 4:
            raise InvalidIdError(f"game state {self.game_state} is not one of 0..4")
        d1, d2 = self.dice
        if (d1 == 0) != (d2 == 0) or not (0 <= d1 <= 6 and 0 <= d2 <= 6):
            raise InvalidIdError(f"dice {self.dice} are not two faces 1-6 (or 0, 0 before rolling)")
        if not 0 <= self.match_length < 1 << 15 or any(not 0 <= s < 1 << 15 for s in self.score):
            raise InvalidIdError("match length and scores must be between 0 and 32767")
        if self.match_length and any(s >= self.match_length for s in self.score) and self.game_state == 1:
            raise InvalidIdError(
                f"score {self.score[0]}-{self.score[1]} has already reached the match length {self.match_length}"
            )


def encode_match_id(key: MatchKey) -> str:
    owner = 3 if key.cube_owner is None else key.cube_owner
    fields = (
        (key.cube.bit_length() - 1, 4),
        (owner, 2),
        (key.dice_owner, 1),
        (int(key.crawford), 1),
        (key.game_state, 3),
        (key.turn, 1),
        (int(key.doubled), 1),
        (key.resigned, 2),
        (max(key.dice), 3),
        (min(key.dice), 3),
        (key.match_length, 15),
        (key.score[0], 15),
        (key.score[1], 15),
        (int(not key.jacoby), 1),
    )
    bits = 0
    n = 0
    for value, width in fields:
        bits |= value << n
        n += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(match_id: str) -> MatchKey:
    raw = _b64decode(match_id, _MATCH_ID_LENGTH, 9, "Match ID")
    bits = int.from_bytes(raw, "little")
    widths = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1)
    values = []
    n = 0
    for w in widths:
        values.append(bits >> n & ((1 << w) - 1))
        n += w
    cube_log, owner, dice_owner, crawford, state, turn, doubled, resigned, d1, d2, length, s0, s1, no_jacoby = values
    if bits >> 67:
        raise InvalidIdError(f"{match_id!r} is not a Match ID: bits beyond the 67th are set")
    if owner == 2:
        raise InvalidIdError(f"{match_id!r} is not a Match ID: its cube owner field is 2")
    return MatchKey(
        cube=1 << cube_log,
        cube_owner=None if owner == 3 else owner,
        dice_owner=dice_owner,
        crawford=bool(crawford),
        game_state=state,
        turn=turn,
        doubled=bool(doubled),
        resigned=resigned,
        dice=(d1, d2),
        match_length=length,
        score=(s0, s1),
        jacoby=not no_jacoby,
    )
