"""The engine adapter: hints and cube advice from bgsage, in the rules package's terms.

bgsage sees a board as 26 counts from the side of the player to act: index i is his point i (negative
counts are the opponent's checkers there), 25 his bar, 0 the opponent's bar (a positive count). This module is the only place
that knows that; everything it returns is made of `Play`, `Position` and plain numbers.

Equities are cubeful and match-aware: in match play they are in money-equivalent units of the match
(as GNU Backgammon's "EMG"), so losses from different scores can be added up in a match summary.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum

from companion.errors import CompanionError
from companion.rules import BAR, CHECKERS, OFF, GameState, MatchState, Phase, Play, Position, Roll

FAST, DEEP = "1ply", "2ply"
"""Evaluation levels: the default (about 1 ms a hint) and the one asked for on request."""


class EngineError(CompanionError):
    """The engine cannot answer (not installed, or asked about a state with no decision)."""


@dataclass(frozen=True, slots=True)
class Chances:
    """Outcome probabilities for the player to act: any win, gammon or better, backgammon; same for losses."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @property
    def lose(self) -> float:
        return 1.0 - self.win


@dataclass(frozen=True, slots=True)
class RankedPlay:
    play: Play
    equity: float
    """Cubeful equity after the play, for the mover."""
    loss: float
    """Equity given up against the best play (0 for the best)."""
    chances: Chances


@dataclass(frozen=True, slots=True)
class Hint:
    """Every legal play of a roll, best first."""

    roll: Roll
    plays: tuple[RankedPlay, ...]
    level: str

    @property
    def best(self) -> RankedPlay:
        return self.plays[0]

    def ranking_of(self, play: Play) -> RankedPlay | None:
        for ranked in self.plays:
            if ranked.play == play:
                return ranked
        return None


class CubeAction(Enum):
    NO_DOUBLE = "No double, take"
    NO_DOUBLE_BEAVER = "No double, beaver"
    DOUBLE_TAKE = "Double, take"
    DOUBLE_BEAVER = "Double, beaver"
    DOUBLE_PASS = "Double, pass"
    TOO_GOOD_TAKE = "Too good to double, take"
    TOO_GOOD_PASS = "Too good to double, pass"

    @property
    def doubles(self) -> bool:
        return self in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_BEAVER, CubeAction.DOUBLE_PASS)

    @property
    def takes(self) -> bool:
        return self not in (CubeAction.DOUBLE_PASS, CubeAction.TOO_GOOD_PASS)


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """The cube decision of the player on roll, before he rolls: equities for him under each action."""

    action: CubeAction
    no_double: float
    double_take: float
    double_pass: float
    chances: Chances
    level: str

    @property
    def best_double(self) -> float:
        """What doubling is worth to the doubler: the opponent answers as suits him."""
        return min(self.double_take, self.double_pass)

    @property
    def optimal(self) -> float:
        """What the doubler's right choice, to double or to hold, is worth to him."""
        return max(self.no_double, self.best_double)

    def doubling_cost(self, doubled: bool) -> float:
        """Equity the doubler loses by doubling (doubled=True) or holding (False), against the right choice."""
        return self.optimal - (self.best_double if doubled else self.no_double)

    def answer_costs(self, beaver: bool = False) -> dict[str, float]:
        """Equity the taker loses by each answer ("take", "pass", and "beaver" where the rules allow it) against
        the best one, seen from the doubler (a taker's loss is the doubler's gain). A beaver keeps the cube where a
        take puts it, at twice the value: twice the take's equity."""
        answers = {"take": self.double_take, "pass": self.double_pass}
        if beaver:
            answers["beaver"] = 2 * self.double_take
        best = min(answers.values())
        return {answer: equity - best for answer, equity in answers.items()}


def board_of(position: Position) -> list[int]:
    """bgsage's 26 signed counts for `position`, from the side of its player on roll."""
    me, them = position.player, position.opponent
    board = [0] * 26
    for point in range(1, 25):
        if me[point]:
            board[point] = me[point]
        elif them[25 - point]:
            board[point] = -them[25 - point]
    board[25] = me[BAR]
    board[0] = them[BAR]
    return board


def key_of(board: list[int]) -> bytes:
    """The `Play.result_key` (mover's 26 slots, then the opponent's) of a bgsage board after a play."""
    me = [0] * 26
    them = [0] * 26
    for point in range(1, 25):
        count = board[point]
        if count > 0:
            me[point] = count
        elif count < 0:
            them[25 - point] = -count
    me[BAR] = board[25]
    them[BAR] = board[0]
    me[OFF] = CHECKERS - sum(me)
    them[OFF] = CHECKERS - sum(them)
    return bytes(me + them)


ENGINE_AWAY = 25
"""The farthest from winning the match either player may be for the engine to judge: bgsage's match equity table
stops at 25 away, and past it every equity read 0 (a 31-point match's opening hints all +0.000, its cube advice
double/take above double/pass)."""


@dataclass(frozen=True, slots=True)
class CubeContext:
    """The match and cube, from the side of the player to act, as bgsage takes them."""

    cube_value: int
    cube_owner: str
    away: tuple[int, int]
    crawford: bool
    jacoby: bool
    beaver: bool

    @classmethod
    def of(cls, match: MatchState, player: int) -> CubeContext:
        owner = "centered" if match.cube_owner is None else ("player" if match.cube_owner == player else "opponent")
        away = (match.away(player), match.away(1 - player)) if match.length else (0, 0)
        if max(away) > ENGINE_AWAY:
            raise EngineError(f"no analysis {away[0]}-away, {away[1]}-away: the engine's match equity table stops "
                              f"at {ENGINE_AWAY} away (money play and matches to {ENGINE_AWAY} points are analysed)")
        return cls(match.cube, owner, away, match.crawford, match.jacoby, match.beaver)

    def kwargs(self) -> dict:
        return dict(away1=self.away[0], away2=self.away[1], is_crawford=self.crawford,
                    jacoby=self.jacoby, beaver=self.beaver)


class Engine:
    """Hints and cube advice; thread-safe (one engine is shared by the app's workers).

    >>> engine = Engine()
    >>> engine.hint(Position.start(), Roll(3, 1), MatchState.match_to(7), 0).best.play.notation
    '8/5 6/5'
    """

    def __init__(self) -> None:
        self._analyzers: dict[str, object] = {}
        self._lock = threading.Lock()

    def _analyzer(self, level: str):
        with self._lock:
            analyzer = self._analyzers.get(level)
            if analyzer is None:
                try:
                    import bgsage
                except ImportError as exc:  # pragma: no cover - a declared dependency
                    raise EngineError("the bgsage engine is not installed: pip install bgsage") from exc
                analyzer = self._analyzers[level] = bgsage.BgBotAnalyzer(eval_level=level)
            return analyzer

    def warm_up(self) -> None:
        """Load the networks now (the first call otherwise pays for it)."""
        self.hint(Position.start(), Roll(3, 1), MatchState(), 0)
        self.cube(Position.start(), MatchState(), 0)

    # -- checker play -------------------------------------------------------------------------------

    def hint(self, position: Position, roll: Roll, match: MatchState, player: int, *,
             level: str = FAST) -> Hint:
        """Every legal play of `roll` from `position` (seen from `player`, who is on roll), best first."""
        plays = position.legal_plays(roll)
        by_key = {p.result_key: p for p in plays}
        if len(plays) == 1:  # forced (or no move): nothing to rank, and bgsage needs no asking
            # named as bgsage names its levels ("1-ply"), so a forced play reads like any other
            return Hint(roll, (RankedPlay(plays[0], 0.0, 0.0, _unknown_chances()),), level.replace("ply", "-ply"))
        ctx = CubeContext.of(match, player)
        result = self._analyzer(level).checker_play(
            board_of(position), roll.die1, roll.die2, ctx.cube_value, ctx.cube_owner, **ctx.kwargs())
        ranked = []
        for move in result.moves:
            play = by_key.get(key_of(move.board))
            if play is None:
                raise EngineError(f"the engine proposed a play the rules do not allow ({move.board})")
            ranked.append(RankedPlay(play, move.equity, 0.0, _chances(move.probs)))
        ranked.sort(key=lambda r: -r.equity)
        best = ranked[0].equity
        ranked = [RankedPlay(r.play, r.equity, best - r.equity, r.chances) for r in ranked]
        return Hint(roll, tuple(ranked), result.eval_level)

    def hint_for(self, game: GameState, *, level: str = FAST) -> Hint:
        if game.phase is not Phase.PLAY or game.dice is None:
            raise EngineError("a hint needs a roll to play")
        return self.hint(game.position, game.dice, game.match, game.turn, level=level)

    # -- the cube -----------------------------------------------------------------------------------

    def cube(self, position: Position, match: MatchState, player: int, *, level: str = FAST) -> CubeAdvice:
        """The cube decision of `player`, on roll in `position` (from his side), before rolling."""
        ctx = CubeContext.of(match, player)
        result = self._analyzer(level).cube_action(
            board_of(position), ctx.cube_value, ctx.cube_owner, **ctx.kwargs())
        nd, dt, dp = result.equity_nd, result.equity_dt, result.equity_dp
        return CubeAdvice(_cube_action(nd, dt, dp, result.is_beaver), nd, dt, dp, _chances(result.probs),
                          result.eval_level)

    def cube_for(self, game: GameState, *, level: str = FAST) -> CubeAdvice | None:
        """The cube decision now: of the player about to roll, or (a double waiting) the one he made.
        None when the cube cannot be turned (Crawford game, the opponent's cube, the match over)."""
        if game.phase is Phase.ROLL:
            if not game.may_double():
                return None
            return self.cube(game.position, game.match, game.turn, level=level)
        if game.phase is Phase.DOUBLED:
            doubler = game.on_roll
            return self.cube(game.position_of(doubler), game.match, doubler, level=level)
        return None


def _cube_action(nd: float, dt: float, dp: float, beaver: bool) -> CubeAction:
    # as GNU Backgammon decides it: double when the doubler's worst answer beats holding
    if min(dt, dp) > nd:
        if dt >= dp:
            return CubeAction.DOUBLE_PASS
        return CubeAction.DOUBLE_BEAVER if beaver else CubeAction.DOUBLE_TAKE
    if nd > dp:
        return CubeAction.TOO_GOOD_PASS if dt >= dp else CubeAction.TOO_GOOD_TAKE
    return CubeAction.NO_DOUBLE_BEAVER if beaver else CubeAction.NO_DOUBLE


def _chances(probs) -> Chances:
    return Chances(probs.win, probs.gammon_win, probs.backgammon_win, probs.gammon_loss, probs.backgammon_loss)


def _unknown_chances() -> Chances:
    return Chances(float("nan"), float("nan"), float("nan"), float("nan"), float("nan"))


__all__ = [
    "DEEP",
    "FAST",
    "Chances",
    "CubeAction",
    "CubeAdvice",
    "CubeContext",
    "Engine",
    "ENGINE_AWAY",
    "EngineError",
    "EngineProcess",
    "Hint",
    "RankedPlay",
    "board_of",
    "key_of",
]


# -- the engine in its own process ----------------------------------------------------------------------

_child_engine: Engine | None = None


def _child_start() -> None:
    import signal

    global _child_engine
    # Ctrl-C reaches the whole process group: the parent stops the child, which must not print its own traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _child_engine = Engine()
    _child_engine.warm_up()


def _child_hint(position: Position, roll: Roll, match: MatchState, player: int, level: str):
    assert _child_engine is not None
    hint = _child_engine.hint(position, roll, match, player, level=level)
    # `Play`s are rebuilt in the parent (they are immutable and do not pickle); send their keys
    return [(r.play.result_key, r.equity, r.chances) for r in hint.plays], hint.level


def _child_cube(position: Position, match: MatchState, player: int, level: str) -> CubeAdvice:
    assert _child_engine is not None
    return _child_engine.cube(position, match, player, level=level)


class EngineProcess(Engine):
    """The same engine, run in a child process. bgsage keeps the GIL through a cube decision (about 30 ms),
    which would freeze the app's UI thread; in a process of its own it cannot. Start-up (about a second) runs
    in the background: the first answer waits for it."""

    def __init__(self) -> None:
        super().__init__()
        import multiprocessing
        import signal
        import sys
        import threading
        from concurrent.futures import ProcessPoolExecutor

        # spawn, not fork: the app has threads, and a forked copy of them is unsafe. Starting a child hands
        # it sys.stderr's descriptor, which a running Textual app has replaced with one that has none: lend
        # it the real one while the child starts (it starts inside the first submit)
        saved, sys.stderr = sys.stderr, sys.__stderr__
        # Ctrl-C reaches the whole process group; a child that inherits it ignored never prints a traceback of
        # its own, even while it is still importing (the parent stops it); signals are the main thread's only
        main = threading.current_thread() is threading.main_thread()
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_child_start)
            self._pool.submit(int)
        finally:
            sys.stderr = saved
            if main:
                signal.signal(signal.SIGINT, interrupt)

    def hint(self, position: Position, roll: Roll, match: MatchState, player: int, *,
             level: str = FAST) -> Hint:
        plays = position.legal_plays(roll)
        if len(plays) == 1:
            return super().hint(position, roll, match, player, level=level)
        ranked, used = self._call(_child_hint, position, roll, match, player, level)
        by_key = {p.result_key: p for p in plays}
        return Hint(roll, tuple(RankedPlay(by_key[key], equity, ranked[0][1] - equity, chances)
                                for key, equity, chances in ranked), used)

    def cube(self, position: Position, match: MatchState, player: int, *, level: str = FAST) -> CubeAdvice:
        return self._call(_child_cube, position, match, player, level)

    def _call(self, fn, *args):
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self._pool.submit(fn, *args).result()
        except BrokenProcessPool as exc:
            raise EngineError("the engine process stopped; restart the app") from exc

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
