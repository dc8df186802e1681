"""Why a play is illegal, in plain words, and which legal plays come closest to it.

The explanation is found by replaying the dice with the rules relaxed: every checker may move by each die,
whatever blocks it, the bar or bear-off conditions. If some relaxed sequence reaches the board that was read,
the rules it broke are the reasons (the sequence breaking the fewest is told). If none does, the play does not
fit the dice at all: checkers appeared or vanished, moved backwards, moved the opponent's, or travelled the
wrong distances.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.referee.observations import BoardReading, SlotReading
from companion.rules import BAR, CHECKERS, OFF, Play, Position, Roll
from companion.rules.movegen import OPP_BAR  # the same 52-slot board as the generator: mover first


@dataclass(frozen=True, slots=True)
class Diagnosis:
    reasons: tuple[str, ...]
    nearest: tuple[Play, ...]


def diagnose(before: Position, roll: Roll, after: tuple[list[int], list[int]],
             plays: list[Play] | None = None) -> Diagnosis:
    """Explain why `after` (the mover's and the opponent's 26 slots, as read) is not a legal play of `roll`
    from `before` (from the mover's side)."""
    if plays is None:
        plays = before.legal_plays(roll)
    mine, theirs = after
    target = bytes(mine + theirs)
    reasons = _counting_errors(before, mine, theirs)
    if not reasons:
        reasons = _relaxed_explanation(before, roll, target, plays) or _shape_errors(before, roll, mine, theirs)
    return Diagnosis(tuple(reasons), nearest_plays(plays, target))


def sure_where_it_differs(reading: BoardReading, nearest: tuple[Play, ...], mover: int, threshold: float) -> bool:
    """Whether every point, bar and tray slot (the trays where they were read) where the reading's best guess
    differs from the result of a nearest legal play (of `nearest`, as `diagnose` names them, those with the fewest
    checkers out of place) was read surely; True when there is none to compare. Where it is not, the referee does
    not call the play illegal: a misread checker is likelier. It errs towards asking: an unsure slot that differs,
    even beside a sure one that no legal play allows, is enough."""
    if not nearest:
        return True
    zero, one = reading.best_guess()
    target = bytes(zero + one) if mover == 0 else bytes(one + zero)
    misplaced = [sum(max(0, t - k) for t, k in zip(target, play.result_key)) for play in nearest]

    def seen(slot: SlotReading) -> tuple[int | None, int]:
        return (slot.owner if slot.count else None, slot.count)  # a best guess of 0 is empty, whoever's range

    for play, out_of_place in zip(nearest, misplaced):
        if out_of_place > min(misplaced):
            continue
        result = BoardReading.from_position(play.position, 1 - mover)  # a play's position: the opponent's side
        # an unsure tray that makes the position whole must not carry an accusation either
        trays = (tuple(reading.off), tuple(result.off or ())) if reading.off is not None else ((), ())
        if any(seen(read) != seen(legal) and read.confidence < threshold
               for read, legal in zip((*reading.points, *reading.bar, *trays[0]),
                                      (*result.points, *result.bar, *trays[1]))):
            return False
    return True


def nearest_plays(plays: list[Play], target: bytes, limit: int = 3) -> tuple[Play, ...]:
    """The legal plays with the fewest checkers out of place against `target`, best first."""
    scored = sorted((sum(max(0, t - k) for t, k in zip(target, p.result_key)), p.notation, p) for p in plays)
    if not scored:
        return ()
    best = scored[0][0]
    return tuple(p for misplaced, _, p in scored[:limit] if misplaced <= best + 1)


def colours_differ_only(plays: list[Play], mine: list[int], theirs: list[int]) -> tuple[Play, ...]:
    """The legal plays whose results hold as many checkers as `mine` and `theirs` (as read, each side in its own
    numbering) on every point, whoever's, and as many of each side on the bar: where the reading differs from such a
    play, it differs only in which set stands on some points."""
    def stacks(side: bytes | list[int], other: bytes | list[int]) -> tuple[int, ...]:
        return (*(side[p] + other[25 - p] for p in range(1, 25)), side[BAR], other[BAR])

    read = stacks(mine, theirs)
    return tuple(p for p in plays if stacks(p.result_key[:26], p.result_key[26:]) == read)


def _point(slot: int) -> str:
    return "the bar" if slot == BAR else f"the {slot}-point"


def _counting_errors(before: Position, mine: list[int], theirs: list[int]) -> list[str]:
    reasons = []
    for who, side in (("a checker of the player", mine), ("a checker of the opponent", theirs)):
        delta = sum(side) - CHECKERS
        if delta > 0:
            reasons.append(f"{_plural(delta, who)} appeared ({sum(side)} on the board, 15 expected)")
        elif delta < 0:
            reasons.append(f"{_plural(-delta, who)} disappeared ({sum(side)} counted, 15 expected)")
    for point in range(1, 25):
        if mine[point] and theirs[25 - point]:
            reasons.append(f"both sides' checkers are on {_point(point)}")
    return reasons


def _plural(n: int, what: str) -> str:
    return what if n == 1 else what.replace("a checker", f"{n} checkers")


def opponent_changes(before: Position, theirs: list[int]) -> list[str]:
    """How the opponent's slots as read (his own numbering) differ from `before` other than by his checkers hit:
    he does not move in the mover's turn. Empty when they do not."""
    reasons = []
    was = before.opponent
    for point in range(1, 25):
        if theirs[point] > was[point]:
            reasons.append(f"a checker of the opponent was moved (onto his {point}-point)")
            break
    if theirs[OFF] != was[OFF]:
        reasons.append("the opponent's borne-off checkers changed")
    hit = sum(was[1:25]) - sum(theirs[1:25])
    if hit > 0 and theirs[BAR] - was[BAR] < hit:
        reasons.append("a hit checker was not put on the bar")
    return reasons


def pips_moved(before: Position, mine: list[int]) -> int:
    """How many pips the mover's checkers travelled from `before` to `mine` (as read; borne off counts as home)."""
    was = before.player
    return sum(p * was[p] for p in range(1, BAR + 1)) - sum(p * mine[p] for p in range(1, BAR + 1))


def _shape_errors(before: Position, roll: Roll, mine: list[int], theirs: list[int]) -> list[str]:
    """The play does not fit the dice even with the rules relaxed: say how its shape is wrong."""
    reasons = []
    was = before.player
    # with forward moves only, the checkers at or behind any point can only become fewer
    for point in range(24, 0, -1):
        if sum(mine[point:26]) > sum(was[point:26]):
            reasons.append(f"a checker moved backwards (onto {_point(point)})")
            break
    if mine[BAR] > was[BAR]:
        reasons.append("a checker of the player was put on the bar")
    reasons += opponent_changes(before, theirs)
    if reasons:
        return reasons
    moved = pips_moved(before, mine)
    dice = roll.moves()
    most = sum(dice)
    if moved > most:
        return [f"the checkers moved {moved} pips; {roll} allows at most {most}"]
    left = [_name(p) for p in range(25, 0, -1) for _ in range(was[p] - mine[p])]
    came = [_name(p) for p in range(24, -1, -1) for _ in range(mine[p] - was[p])]
    return [f"the checkers moved (from {', '.join(left)} to {', '.join(came)}) do not fit the dice {roll}"]


def _name(slot: int) -> str:
    return {BAR: "the bar", OFF: "off"}.get(slot, str(slot))


def _relaxed_explanation(before: Position, roll: Roll, target: bytes, plays: list[Play]) -> list[str]:
    """Replay the dice with every rule relaxed; return the broken rules of the sequence reaching `target`
    that breaks fewest, or [] if none reaches it."""
    board = list(before.player + before.opponent)
    best: list[list[str]] = []
    needed = max((p.dice_used for p in plays), default=0)
    orders = [roll.moves()] if roll.is_double else [[roll.high, roll.low], [roll.low, roll.high]]
    for dice in orders:
        _relaxed_search(board, dice, 0, BAR, target, [], roll, needed, best)
    if not best:
        return []
    return min(best, key=len)


def _relaxed_search(board, dice, depth, max_source, target, broken, roll, needed, best) -> None:
    if bytes(board) == target:
        reasons = list(dict.fromkeys(broken + _dice_count_errors(roll, dice[:depth], needed)))
        if reasons:
            best.append(reasons)
        return
    if depth == len(dice):
        return
    die = dice[depth]
    top = max_source if roll.is_double else BAR  # doubles: sources non-increasing, as in the generator
    for source in range(top, 0, -1):
        if not board[source]:
            continue
        dest = max(source - die, 0)
        why = _broken_rules(board, source, die)
        board[source] -= 1
        board[dest] += 1
        hit = dest > 0 and board[51 - dest] == 1
        if hit:
            board[51 - dest] = 0
            board[OPP_BAR] += 1
        _relaxed_search(board, dice, depth + 1, source, target, broken + why, roll, needed, best)
        if hit:
            board[51 - dest] = 1
            board[OPP_BAR] -= 1
        board[source] += 1
        board[dest] -= 1


def _broken_rules(board: list[int], source: int, die: int) -> list[str]:
    """The rules that moving a checker from `source` by `die` breaks, in the board as it stands."""
    why = []
    dest = source - die
    if board[BAR] and source != BAR:
        why.append("must enter from the bar before moving other checkers")
    if dest > 0 and board[51 - dest] >= 2:
        if source == BAR:
            why.append(f"cannot enter with a {die}: {_point(dest)} is blocked")
        else:
            why.append(f"{_point(dest)} is blocked")
    if dest <= 0:
        outside = [p for p in range(25, 6, -1) if board[p]]
        if outside:
            why.append(f"cannot bear off: a checker is still on {_point(outside[0])}")
        elif dest < 0:
            higher = [p for p in range(6, source, -1) if board[p]]
            if higher:
                why.append(f"a {die} bears off from {_point(source)} only when no checker is higher, "
                           f"but one is on {_point(higher[0])}")
    return why


def _dice_count_errors(roll: Roll, used: list[int], needed: int) -> list[str]:
    if len(used) < needed:
        if not used:
            return [f"no checker was moved, but {roll} can be played"]
        if not roll.is_double:
            return ["both dice can be played"]
        return [f"{needed} of the {roll.die1}s can be played, only {len(used)} were"]
    if not roll.is_double and needed == 1 and used == [roll.low]:
        # the lower die alone broke no other rule, so the rule broken is this one
        return [f"only one die can be played: the higher ({roll.high}) must be played"]
    return []


__all__ = ["Diagnosis", "colours_differ_only", "diagnose", "nearest_plays", "opponent_changes", "pips_moved",
           "sure_where_it_differs"]
