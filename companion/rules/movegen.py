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

Both sides live in one 52-slot list while searching (the mover's slots 0..25, then the opponent's), so a result's
key is `bytes(board)` with no copying. The mover's point d is the opponent's point 25 - d, at `board[51 - d]`.
"""

from __future__ import annotations

from companion.rules.dice import Roll
from companion.rules.play import Play
from companion.rules.position import BAR, Position

OPP_BAR = 51  # the opponent's bar in the combined board


def generate_plays(position: Position, roll: Roll) -> list[Play]:
    """All legal plays of `roll` in `position`, one per resulting position (never empty: see Position)."""
    board = list(position.player + position.opponent)
    outside = sum(board[7:26])
    # result key -> the single-die steps (source, dest, hit, die) that first reached it
    chosen: dict[bytes, tuple]
    if roll.is_double:
        by_count: list[dict[bytes, tuple]] = [{}, {}, {}, {}, {}]
        best = _search_double(board, roll.die1, 4, BAR, outside, (), by_count, 0)
        chosen = by_count[best]
    else:
        both: dict[bytes, tuple] = {}
        single: dict[bytes, tuple] = {}
        _search_pair(board, roll.high, roll.low, outside, both, single)
        _search_pair(board, roll.low, roll.high, outside, both, single)
        # only one die can be played: the higher one, when it can be
        chosen = both or {k: v for k, v in single.items() if v[0][3] == roll.high} or single
    if not chosen:
        return [Play(roll, (), position.swap())]
    from_result = Play._from_result
    return [from_result(roll, steps, key) for key, steps in chosen.items()]


def _dest(board: list[int], source: int, die: int, outside: int) -> int:
    """Where a checker on `source` lands with `die`, or -1 if it may not move. 0 is off.

    The caller has already made sure that `source` is the bar whenever checkers wait there.
    """
    dest = source - die
    if dest > 0:
        return -1 if board[51 - dest] >= 2 else dest
    if outside:
        return -1
    if dest < 0 and any(board[source + 1 : 7]):
        return -1
    return 0


def _sources(board: list[int], below: int = BAR) -> list[int]:
    """Points a checker may move from, highest first: only the bar while checkers wait there."""
    if board[BAR]:
        return [BAR]
    return [p for p in range(min(below, 24), 0, -1) if board[p]]


def _step(board: list[int], source: int, dest: int) -> bool:
    """Move one checker; returns whether it hit. Caller undoes with `_unstep`."""
    board[source] -= 1
    board[dest] += 1
    if dest and board[51 - dest] == 1:
        board[51 - dest] = 0
        board[OPP_BAR] += 1
        return True
    return False


def _unstep(board: list[int], source: int, dest: int, hit: bool) -> None:
    board[source] += 1
    board[dest] -= 1
    if hit:
        board[51 - dest] = 1
        board[OPP_BAR] -= 1


def _search_double(board, die, left, max_source, outside, steps, by_count, best) -> int:
    """Play up to `left` more dice of a double from sources at or below `max_source`; returns the most dice
    played on any branch so far. Leaves are recorded in `by_count[dice played]`."""
    moved = False
    for source in _sources(board, max_source):
        dest = _dest(board, source, die, outside)
        if dest < 0:
            continue
        moved = True
        hit = _step(board, source, dest)
        here = (*steps, (source, dest, hit, die))
        if left == 1:  # the leaves, where most of the time goes
            key = bytes(board)
            if key not in by_count[4]:
                by_count[4][key] = here
            best = 4
        else:
            new_outside = outside - (source > 6 and dest <= 6)
            best = _search_double(board, die, left - 1, source, new_outside, here, by_count, best)
        _unstep(board, source, dest, hit)
    if not moved and len(steps) >= best:
        best = len(steps)
        by_count[best].setdefault(bytes(board), steps)
    return best


def _search_pair(board, first, second, outside, both, single) -> None:
    """Both dice of a non-double, `first` then `second`; the inner loop is inlined (it is the hot path)."""
    sources = _sources(board)
    for source in sources:
        dest = _dest(board, source, first, outside)
        if dest < 0:
            continue
        hit = _step(board, source, dest)
        step = (source, dest, hit, first)
        outside2 = outside - (source > 6 and dest <= 6)
        moved_second = False
        # the points occupied now: as before, less an emptied source, plus a newly taken destination
        sources2 = sources if (board[source] and (dest == 0 or board[dest] > 1)) else _sources(board)
        for source2 in sources2:
            dest2 = source2 - second
            if dest2 > 0:
                landing = 51 - dest2
                if board[landing] >= 2:
                    continue
            elif outside2 or (dest2 < 0 and any(board[source2 + 1 : 7])):
                continue
            else:
                dest2 = landing = 0
            moved_second = True
            board[source2] -= 1
            board[dest2] += 1
            if landing and board[landing] == 1:
                board[landing] = 0
                board[OPP_BAR] += 1
                key = bytes(board)
                board[landing] = 1
                board[OPP_BAR] -= 1
                hit2 = True
            else:
                key = bytes(board)
                hit2 = False
            board[source2] += 1
            board[dest2] -= 1
            if key not in both:
                both[key] = (step, (source2, dest2, hit2, second))
        if not moved_second and not both:
            single.setdefault(bytes(board), (step,))
        _unstep(board, source, dest, hit)
