"""Legal play generation.

The rules, as the texts in shared/rules give them and GNU Backgammon applies them:
- play as many dice as possible (both, or up to four of a double);
- if only one die of a non-double can be played, the higher one must be when either could;
- checkers on the bar enter first, on points not held by two or more opposing checkers;
- bear off only with every checker home; a die larger than the highest occupied point bears off from that
  point only, and only when no checker stands higher; a checker hit during bear-off must come home again.

Search: the two orders of a non-double are tried in full. For doubles, sources are taken in non-increasing
order: any legal sequence of equal dice can be reordered that way and stays legal (moving the higher checker
first never blocks a lower one: blocks only shrink as blots are hit, and bear-off conditions only loosen), so
no result is lost while permutations are not searched again. Results are distinct by resulting position.
"""

from __future__ import annotations

from companion.rules.dice import Roll
from companion.rules.play import Play
from companion.rules.position import BAR, Position


def generate_plays(position: Position, roll: Roll) -> list[Play]:
    """All legal plays of `roll` in `position`, one per resulting position (never empty: see Position)."""
    me = list(position.player)
    opp = list(position.opponent)
    # result (both sides as bytes) -> the single-die steps (source, dest, hit, die) that first reached it
    found: dict[bytes, list[tuple[int, int, bool, int]]] = {}
    outside = sum(me[7:26])
    if roll.is_double:
        best = _search_double(me, opp, roll.die1, 4, BAR, outside, [], found, 0)
    else:
        best = _search_pair(me, opp, roll.high, roll.low, outside, found, 0)
        best = _search_pair(me, opp, roll.low, roll.high, outside, found, best)
    chosen = [(key, steps) for key, steps in found.items() if len(steps) == best]
    if best == 1 and not roll.is_double:
        # only one die can be played: the higher one, when it can be
        chosen = [(key, steps) for key, steps in chosen if steps[0][3] == roll.high] or chosen
    if not chosen:
        return [Play(roll, (), position.swap())]
    return [Play._from_result(roll, steps, key) for key, steps in chosen]


def _dest(me: list[int], opp: list[int], source: int, die: int, outside: int) -> int:
    """Where a checker on `source` lands with `die`, or -1 if it may not move. 0 is off.

    The caller has already made sure that `source` is the bar whenever checkers wait there.
    """
    dest = source - die
    if dest > 0:
        return -1 if opp[25 - dest] >= 2 else dest
    if outside:
        return -1
    if dest < 0 and any(me[source + 1 : 7]):
        return -1
    return 0


def _sources(me: list[int], below: int = BAR) -> list[int]:
    """Points a checker may move from, highest first: only the bar while checkers wait there."""
    if me[BAR]:
        return [BAR]
    return [p for p in range(min(below, 24), 0, -1) if me[p]]


def _step(me: list[int], opp: list[int], source: int, dest: int) -> bool:
    """Move one checker; returns whether it hit. Caller undoes with `_unstep`."""
    me[source] -= 1
    me[dest] += 1
    if dest and opp[25 - dest] == 1:
        opp[25 - dest] = 0
        opp[BAR] += 1
        return True
    return False


def _unstep(me: list[int], opp: list[int], source: int, dest: int, hit: bool) -> None:
    me[source] += 1
    me[dest] -= 1
    if hit:
        opp[25 - dest] = 1
        opp[BAR] -= 1


def _record(me: list[int], opp: list[int], steps: list, found: dict, best: int) -> int:
    n = len(steps)
    if n < best:
        return best
    key = bytes(me + opp)
    known = found.get(key)
    if known is None or len(known) < n:
        found[key] = list(steps)
    return n


def _search_double(me, opp, die, left, max_source, outside, steps, found, best) -> int:
    if left == 1:
        return _last_double(me, opp, die, max_source, outside, steps, found, best)
    moved = False
    for source in _sources(me, max_source):
        dest = _dest(me, opp, source, die, outside)
        if dest < 0:
            continue
        moved = True
        hit = _step(me, opp, source, dest)
        steps.append((source, dest, hit, die))
        new_outside = outside - (source > 6 and dest <= 6)
        best = _search_double(me, opp, die, left - 1, source, new_outside, steps, found, best)
        steps.pop()
        _unstep(me, opp, source, dest, hit)
    if not moved:
        best = _record(me, opp, steps, found, best)
    return best


def _last_double(me, opp, die, max_source, outside, steps, found, best) -> int:
    """The fourth die of a double: the leaves of the search, where most of the time goes, kept inline."""
    moved = False
    for source in _sources(me, max_source):
        dest = _dest(me, opp, source, die, outside)
        if dest < 0:
            continue
        moved = True
        me[source] -= 1
        me[dest] += 1
        landing = 25 - dest
        hit = dest > 0 and opp[landing] == 1
        if hit:
            opp[landing] = 0
            opp[BAR] += 1
        key = bytes(me + opp)
        if key not in found:
            found[key] = steps + [(source, dest, hit, die)]
        if hit:
            opp[landing] = 1
            opp[BAR] -= 1
        me[source] += 1
        me[dest] -= 1
    if moved:
        return 4
    return _record(me, opp, steps, found, best)


def _search_pair(me, opp, first, second, outside, found, best) -> int:
    """Both dice of a non-double, `first` then `second`; the inner loop is inlined (it is the hot path)."""
    moved_first = False
    sources = _sources(me)
    for source in sources:
        dest = _dest(me, opp, source, first, outside)
        if dest < 0:
            continue
        moved_first = True
        hit = _step(me, opp, source, dest)
        outside2 = outside - (source > 6 and dest <= 6)
        moved_second = False
        # the points occupied now: as before, less an emptied source, plus a newly taken destination
        sources2 = sources if (me[source] and (dest == 0 or me[dest] > 1)) else _sources(me)
        for source2 in sources2:
            dest2 = source2 - second
            if dest2 > 0:
                if opp[25 - dest2] >= 2:
                    continue
            elif outside2 or (dest2 < 0 and any(me[source2 + 1 : 7])):
                continue
            else:
                dest2 = 0
            moved_second = True
            me[source2] -= 1
            me[dest2] += 1
            landing = 25 - dest2
            hit2 = dest2 > 0 and opp[landing] == 1
            if hit2:
                opp[landing] = 0
                opp[BAR] += 1
            key = bytes(me + opp)
            if key not in found or len(found[key]) < 2:
                found[key] = [(source, dest, hit, first), (source2, dest2, hit2, second)]
            if hit2:
                opp[landing] = 1
                opp[BAR] -= 1
            me[source2] += 1
            me[dest2] -= 1
        if moved_second:
            best = 2
        elif best < 2:
            best = _record(me, opp, [(source, dest, hit, first)], found, best)
        _unstep(me, opp, source, dest, hit)
    if not moved_first and best == 0:
        best = _record(me, opp, [], found, best)
    return best
