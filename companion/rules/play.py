"""Moves and plays: a single checker step, and a whole play of a roll with its standard notation."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from companion.rules.dice import Roll
from companion.rules.position import BAR, OFF, Position, _trusted


class Move(NamedTuple):
    """One checker moved by one die: from `source` (25 = bar) to `dest` (0 = off); `hit` if it hit a blot."""

    source: int
    dest: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{point_name(self.source)}/{point_name(self.dest)}{'*' if self.hit else ''}"


class Play:
    """A legal play of a roll: the single-die moves in the order played and the position they reach.

    `position` is the position after the play seen from the opponent, who is now on roll, so plays chain:
    `p.legal_plays(3, 1)[0].position.legal_plays(6, 5)`. Two plays are equal when they reach the same
    position with the same roll, whatever order their moves were made in.
    """

    __slots__ = ("roll", "_moves", "_key", "_position", "_notation")

    roll: Roll

    def __init__(self, roll: Roll, moves: Sequence[tuple[int, int, bool]], position: Position) -> None:
        _set_roll(self, roll)
        _set_moves(self, tuple(moves))
        _set_key(self, bytes(position.opponent + position.player))
        _set(self, "_position", position)

    @classmethod
    def _from_result(cls, roll: Roll, moves: Sequence[tuple], key: bytes) -> Play:
        """Fast path for the generator: `key` is both sides after the play as bytes, the mover first; moves are
        (source, dest, hit, die) steps. `position` and `notation` stay unset until asked for: most plays of a
        double are never looked at, and generation is the hot path of the referee and the engine."""
        play = _new(cls)
        _set_roll(play, roll)
        _set_moves(play, moves)
        _set_key(play, key)
        return play

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Play is immutable")

    @property
    def position(self) -> Position:
        """The position after the play, from the side of the opponent, who is now on roll."""
        try:
            return self._position
        except AttributeError:  # not built yet (see `_from_result`)
            key = self._key
            position = _trusted(tuple(key[26:]), tuple(key[:26]))
            _set(self, "_position", position)
            return position

    @property
    def result_key(self) -> bytes:
        """Both sides after the play as 52 bytes, the mover's 26 slots first: a cheap identity of the result."""
        return self._key

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(Move(m[0], m[1], m[2]) for m in self._moves)

    @property
    def notation(self) -> str:
        """Standard notation, e.g. `13/8 24/22*`, `bar/20`, `6/off`, `8/5(2)`; empty for no move."""
        try:
            return self._notation
        except AttributeError:
            notation = format_moves(self._moves)
            _set(self, "_notation", notation)
            return notation

    @property
    def hits(self) -> int:
        return sum(1 for m in self._moves if m[2])

    @property
    def dice_used(self) -> int:
        return len(self._moves)

    def is_empty(self) -> bool:
        """True when the roll could not be played at all (a dance, or every number blocked)."""
        return not self._moves

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self.roll == other.roll and self._key == other._key

    def __hash__(self) -> int:
        return hash((self.roll, self._key))

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        return f"Play({self.roll}: {self.notation or '(no move)'})"


_set = object.__setattr__
_new = object.__new__
# the slots' own setters: a third cheaper than object.__setattr__, and a play is built per legal result
_set_roll = Play.roll.__set__  # type: ignore[attr-defined]
_set_moves = Play._moves.__set__  # type: ignore[attr-defined]
_set_key = Play._key.__set__  # type: ignore[attr-defined]


def point_name(slot: int) -> str:
    if slot == BAR:
        return "bar"
    if slot == OFF:
        return "off"
    return str(slot)


def format_moves(moves: Sequence[tuple]) -> str:
    """Standard notation: a checker's steps are joined (`13/7/6` is `13/6`, a hit on the way is kept as
    `13/7*/6`, and so are steps listed the other way round, `7/6 13/7`), checkers moving the same way are counted
    with a hit among them marked once, as GNU Backgammon counts them (`8/5(2)`, `22/16*(4)`, `22/16*/10(2)`),
    highest source first, then highest destination (`13/11 13/8`, as gnubg's `move_tuple_to_string` orders them
    too). No moves at all is `""`."""
    paths: list[list[tuple[int, bool]]] = []  # each path: [(point, hit-on-arrival), ...]
    for source, dest, hit, *_ in moves:
        # a move on from a point goes with the first checker that arrived there (the hitter: `22/16 22/16*/4`)
        for path in paths:
            if path[-1][0] == source and source != OFF:
                path.append((dest, hit))
                break
        else:
            paths.append([(source, False), (dest, hit)])
    # a checker that left a point before another reached it is written as one checker's steps (`20/16 16/10` is
    # `20/10`), as GNU Backgammon writes the play: the board after it is the same
    joined = True
    while joined:
        joined = False
        for later in paths:
            earlier = next((p for p in paths if p is not later and p[-1][0] == later[0][0]), None)
            if earlier is not None:
                earlier.extend(later[1:])
                paths.remove(later)
                joined = True
                break
    routes: dict[tuple[int, ...], list] = {}  # a route's points -> [checkers, hit at each point]
    for path in paths:
        points = tuple(p for p, _ in path)
        route = routes.setdefault(points, [0, [False] * len(points)])
        route[0] += 1
        route[1] = [was or hit for was, (_, hit) in zip(route[1], path)]
    out: list[str] = []
    for points in sorted(routes, key=lambda r: (-r[0], -r[-1])):
        count, hits = routes[points]
        kept = [0] + [k for k in range(1, len(points) - 1) if hits[k]] + [len(points) - 1]
        text = "/".join(point_name(points[k]) + ("*" if hits[k] else "") for k in kept)
        out.append(text + (f"({count})" if count > 1 else ""))
    return " ".join(out)
