"""Reading play notation, as people and programs write it, and finding the legal play it names.

Accepted: `13/8 24/22*`, `bar/20`, `6/off`, `8/5(2)`, chains `13/7*/6` and `24/18/13`, the bar written `25`
or `bar`, off written `0` or `off`, hits with or without `*`, moves in any order, case and spacing free. A dash
may stand for the slash (`24-18 13-11`), as many players and books write a move.
An empty string (or `Cannot Move`) is the empty play of a roll that cannot be played.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import permutations

from companion.errors import NotationError
from companion.rules.dice import Roll
from companion.rules.play import Play
from companion.rules.position import BAR, OFF, Position

_TOKEN = re.compile(r"^(?P<path>[0-9a-z*/-]+?)(?:\((?P<count>[1-4])\))?$")
_EMPTY = {"", "cannot move", "can't move", "no move", "(no move)", "dance", "dances", "fanned"}


def parse_moves(notation: str) -> list[tuple[int, int, bool]]:
    """Split notation into checker moves (source, dest, hit-marked), chains cut at each written point.

    `13/7*/6` gives (13, 7, True), (7, 6, False); `8/5(2)` gives (8, 5, False) twice. Points are not checked
    against any position here, only their range.
    """
    text = " ".join(notation.lower().replace("\u2019", "'").replace("\u2013", "-").split())  # as typeset
    if text in _EMPTY:
        return []
    moves: list[tuple[int, int, bool]] = []
    for token in text.split(" "):
        m = _TOKEN.match(token)
        where = "" if token == text else f" in {notation!r}"  # a lone word is not said twice
        if not m:
            raise NotationError(f"cannot read {token!r}{where}: write moves like 13/8, 24/22*, bar/20, 6/off")
        parts = re.split("[/-]", m.group("path"))
        if len(parts) < 2 or any(not p for p in parts):
            raise NotationError(f"cannot read {token!r}{where}: a move is FROM/TO, e.g. 13/8")
        points = [_point(p.rstrip("*"), token, notation) for p in parts]
        hits = [p.endswith("*") for p in parts]
        if hits[0]:
            raise NotationError(f"{token!r}: a hit is marked after the point landed on, e.g. 13/8*")
        count = int(m.group("count") or 1)
        for _ in range(count):
            for i in range(len(points) - 1):
                source, dest = points[i], points[i + 1]
                if source == OFF or dest == BAR:
                    raise NotationError(f"{token!r}: checkers move from the bar and to off, not the other way")
                if dest >= source:
                    raise NotationError(
                        f"{token!r} in {notation!r} moves backwards: checkers move from higher points to lower"
                    )
                moves.append((source, dest, hits[i + 1]))
    return moves


def _point(text: str, token: str, notation: str) -> int:
    if text == "bar":
        return BAR
    if text == "off":
        return OFF
    if text.isdigit() and 0 <= int(text) <= 25:
        return int(text)
    raise NotationError(f"{token!r} in {notation!r}: {text!r} is not a point (1-24), bar (25) or off (0)")


def apply_moves(position: Position, moves: list[tuple[int, int, bool]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Carry out the written moves on the board without the rules of dice: checkers go where the notation says,
    blots landed on are hit. Moves written in an order that cannot be carried out (a checker moved on before it
    arrived) are retried after the others. Returns (mover's side, opponent's side)."""
    me = list(position.player)
    opp = list(position.opponent)
    pending = list(moves)
    while pending:
        bar_moves_left = any(m[0] == BAR for m in pending)
        for i, (source, dest, _hit) in enumerate(pending):
            # entering moves first, when written; a play that leaves a checker on the bar is still carried out
            if me[source] > 0 and (me[BAR] == 0 or source == BAR or not bar_moves_left):
                break
        else:
            source = pending[0][0]
            where = "the bar" if source == BAR else f"the {source}-point"
            written = sum(1 for m in moves if m[0] == source)
            if position.player[source] and written > position.player[source]:  # some there, not as many as moved
                had = position.player[source]
                raise NotationError(f"{written} checkers moved from {where}, where {had} "
                                    f"{'stands' if had == 1 else 'stand'}")
            raise NotationError(f"no checker on {where} to move")
        source, dest, _hit = pending.pop(i)
        me[source] -= 1
        me[dest] += 1
        if dest != OFF and opp[25 - dest] >= 2:
            raise NotationError(f"the {dest}-point is held by the opponent")
        if dest != OFF and opp[25 - dest] == 1:
            opp[25 - dest] = 0
            opp[BAR] += 1
    return tuple(me), tuple(opp)


def moves_between(before: Position, after: Position, dice: Sequence[int] = ()) -> str:
    """The moves that take `before` to `after` (both from the mover's side), written as a play is (`13/9 6/5*`),
    legal or not: what an illegal play was, in words ("" where nothing moved). Each checker that left a place is
    paired with one that arrived (both sides hold fifteen, so they pair off): where the `dice` (`Roll.moves()`) are
    given, so that as many moves as can be are one die's number (`8/4 6/5` for 41, not `8/5 6/4`: the same board),
    else the farthest from home first; a `*` where the opponent's blot went to the bar."""
    sources = [p for p in range(BAR, OFF, -1) for _ in range(max(0, before.player[p] - after.player[p]))]
    targets = [p for p in range(BAR - 1, OFF - 1, -1) for _ in range(max(0, after.player[p] - before.player[p]))]
    if dice and len(targets) <= PAIRINGS_TRIED:
        targets = _paired_by_dice(sources, targets, dice)
    hit = {p for p in range(1, BAR) if before.opponent[BAR - p] == 1 and after.opponent[BAR - p] == 0
           and after.opponent[BAR] > before.opponent[BAR]}  # his blot on my point p, now on the bar
    names = {BAR: "bar", OFF: "off"}
    starred: set[int] = set()

    def move(a: int, b: int) -> str:
        # a hit is starred once, where a move ends on it, else where one passes it (13/9*/5), as records write it
        passed = [h for h in sorted(hit - set(targets) - starred, reverse=True) if a > h > b]
        path = [names.get(a, a), *(f"{h}*" for h in passed)]
        starred.update(passed)
        end = f"{names.get(b, b)}{'*' if b in hit and b not in starred else ''}"
        starred.add(b)
        return "/".join(str(p) for p in path) + "/" + end

    moves = [move(a, b) for a, b in zip(sources, targets)]
    counted: dict[str, int] = {}
    for move in moves:
        counted[move] = counted.get(move, 0) + 1
    return " ".join(move if n == 1 else f"{move}({n})" for move, n in counted.items())


PAIRINGS_TRIED = 6
"""Moves past this many (720 pairings) are paired farthest first: an illegal play of seven checkers is a muddle."""


def _paired_by_dice(sources: list[int], targets: list[int], dice: Sequence[int]) -> list[int]:
    """`targets` reordered so that as many of the moves `sources[i]`/`targets[i]` as can be are one unused die's
    number (bearing off by a larger die counts), never with more moves backwards than the farthest-first order
    (which has none where the checkers moved forward); the farthest-first order wins a tie."""
    def fits(order: tuple[int, ...]) -> int:
        left = list(dice)
        for a, b in zip(sources, order):
            die = next((d for d in left if d == a - b or (b == OFF and d > a - b)), None)
            if die is not None:
                left.remove(die)
        return len(dice) - len(left)

    def rank(order: tuple[int, ...]) -> tuple[int, int]:
        return -sum(a <= b for a, b in zip(sources, order)), fits(order)

    best = max(permutations(targets), key=rank)  # max keeps the first of equals: the farthest-first order
    return list(best)


def written_as(plays: list[Play], mine: Sequence[int], theirs: Sequence[int]) -> list[Play]:
    """The `plays` that written moves reaching (`mine`, `theirs`) may stand for, as records write plays: each puts
    the mover's checkers in the same places and hits every blot the moves hit. A hit made in passing may be left out
    (`13/1(2)` for 66 through a blot on 7); a hit written that the play cannot make names another play (24/21*/14
    for 64 is not 24/18/14, which leaves the blot on 21)."""
    return [play for play in plays if play.position.opponent == tuple(mine)
            and all(play.position.player[point] <= theirs[point] for point in range(1, 25))]


def resolve_play(position: Position, roll: Roll, notation: str) -> Play:
    """The legal play of `roll` that `notation` names.

    The written moves are carried out on the board; the legal play reaching the same position is the answer.
    Records often leave out hits or join a checker's steps (`24/14` for 64), so when that position is not
    reached, the one play `written_as` gives is accepted.
    """
    moves = parse_moves(notation)
    plays = position.legal_plays(roll)
    if not moves:
        if plays[0].is_empty():
            return plays[0]
        raise NotationError(f"{roll} can be played here; an empty play is not legal")
    try:
        mine, theirs = apply_moves(position, moves)
    except NotationError as exc:
        raise NotationError(f"{notation!r} cannot be played from this position: {exc}") from exc
    for play in plays:
        after = play.position
        if after.opponent == mine and after.player == theirs:
            return play
    same_checkers = written_as(plays, mine, theirs)
    if len(same_checkers) == 1:
        return same_checkers[0]
    if len(same_checkers) > 1:
        hits = {play.notation for play in same_checkers}
        raise NotationError(f"{notation!r} is ambiguous for {roll}: it could be any of {sorted(hits)}")
    raise NotationError(f"{notation!r} is not a legal play of {roll} here")
