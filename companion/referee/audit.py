"""Judging a recorded match: every roll, play and cube action replayed under the rules, every game scored.

This is what `companion check` runs. Findings carry the game, move, line, player and a plain reason.
Scores are checked the way the rules score them (cube value, gammon, backgammon, Jacoby, Crawford) against
the score each next game starts at; the numbers on `Wins N point` lines are not trusted (Galaxy writes the
match total or the points needed there). A resignation's size is not written in Jellyfish files, so it is
read from the next game's score: a resignation worth 1, 2 or 3 times the cube is accepted.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from companion.errors import NotationError, RulesError
from companion.record.jellyfish import Action, ActionKind, GameRecord, MatchRecord
from companion.rules import GameState, MatchState, Phase
from companion.rules.game import EndKind
from companion.rules.notation import apply_moves, parse_moves
from companion.rules.position import _trusted


@dataclass(frozen=True, slots=True)
class Finding:
    game: int
    move: int
    line: int
    player: str
    kind: str
    """illegal-play, cube, turn, score, record"""
    reason: str

    def __str__(self) -> str:
        return f"game {self.game}, move {self.move} (line {self.line}), {self.player}: {self.reason}"


@dataclass(frozen=True, slots=True)
class PlayTrace:
    """One replayed play: who, the dice, and the Position IDs before and after (each from the mover's side)."""

    game: int
    player: int
    dice: tuple[int, int]
    before: str
    after: str
    notation: str


@dataclass(frozen=True, slots=True)
class GameOutcome:
    number: int
    winner: int | None
    points: int
    how: str
    plays: int


@dataclass
class AuditReport:
    source: str
    players: tuple[str, str]
    length: int
    findings: list[Finding] = field(default_factory=list)
    games: list[GameOutcome] = field(default_factory=list)
    final_score: tuple[int, int] = (0, 0)
    winner: int | None = None
    trace: list[PlayTrace] | None = None

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def plays(self) -> int:
        return sum(g.plays for g in self.games)

    def to_json(self) -> dict:
        return {
            "file": self.source,
            "players": list(self.players),
            "match_length": self.length,
            "legal": self.ok,
            "plays_checked": self.plays,
            "games": [asdict(g) for g in self.games],
            "final_score": list(self.final_score),
            "winner": None if self.winner is None else self.players[self.winner],
            "findings": [asdict(f) for f in self.findings],
        }


def audit_match(record: MatchRecord, *, trace: bool = False) -> AuditReport:
    """Replay `record` under the rules. With `trace`, every play is kept in `report.trace`."""
    report = AuditReport(record.source, record.players, record.length, trace=[] if trace else None)
    if record.length:
        match = MatchState.match_to(record.length, crawford_rule=record.crawford_rule)
    else:
        match = MatchState.money(jacoby=True, beaver=True)
    pending_resign: tuple[int, int, GameRecord] | None = None  # (winner, cube, game)
    for index, game in enumerate(record.games):
        if pending_resign is not None:
            match = _settle_resignation(match, pending_resign, game, report, record)
            pending_resign = None
        if record.length and game.score != match.score:
            report.findings.append(Finding(
                game.number, 0, game.line, "-", "score",
                f"the game starts at {game.score[0]}-{game.score[1]} but the games before it score "
                f"{match.score[0]}-{match.score[1]} under the rules",
            ))
        outcome, state = _replay_game(game, match, report, record)
        report.games.append(outcome)
        if state.phase is Phase.OVER and state.end is not None:
            if state.end.kind is EndKind.RESIGNED:
                pending_resign = (state.end.winner, state.match.cube, game)
                if index == len(record.games) - 1:
                    match = state.next_match_state()
            else:
                match = state.next_match_state()
        if record.length and match.is_over():
            break
    report.final_score = match.score
    report.winner = match.winner()
    return report


def _settle_resignation(match: MatchState, pending, next_game: GameRecord, report, record) -> MatchState:
    winner, cube, game = pending
    delta = next_game.score[winner] - match.score[winner]
    other = next_game.score[1 - winner] - match.score[1 - winner]
    allowed = {cube * k for k in (1, 2, 3)}
    if match.jacoby and cube == 1:
        allowed = {1}
    if other != 0 or delta not in allowed:
        report.findings.append(Finding(
            game.number, 0, game.line, record.players[winner], "score",
            f"a resignation with the cube at {cube} is worth {sorted(allowed)} points, but the next game "
            f"starts {next_game.score[0]}-{next_game.score[1]}",
        ))
        delta = cube
    return match.after_game(winner, delta)


def _replay_game(game: GameRecord, match: MatchState, report: AuditReport, record: MatchRecord):
    state = GameState.new(match)
    plays = 0
    name = record.players

    def find(action: Action, kind: str, reason: str) -> None:
        report.findings.append(Finding(game.number, action.move, action.line, name[action.player], kind, reason))

    resign: Action | None = None  # Galaxy's `Losses N point`: its column is not reliable, a `Wins` line is
    for action in game.actions:
        kind = action.kind
        if kind is ActionKind.WIN and state.phase is not Phase.OVER:
            # not over on the board: the other player resigned
            needed = state.match.away(action.player) if "match" in action.text.lower() and record.length else 0
            state = _resign(state, 1 - action.player, (resign or action).value, needed)
            continue
        if state.phase is Phase.OVER:
            if kind in (ActionKind.WIN, ActionKind.UNPLAYED):
                if kind is ActionKind.WIN and state.end and action.player != state.end.winner:
                    find(action, "record", f"the record says {name[action.player]} wins, the rules say "
                                           f"{name[state.end.winner]}")
                continue
            find(action, "record", f"{action.text!r} after the game was over")
            continue
        try:
            if kind is ActionKind.ROLL:
                state = _roll(state, action)
                if state.turn != action.player:
                    find(action, "turn", f"rolled out of turn (it is {name[state.turn]}'s turn)")
                    state = _with_turn(state, action.player)
                plays += 1
                before = state.position
                state = _play(state, action, find)
                if report.trace is not None:
                    after = state.position if state.phase is Phase.OVER else state.position.swap()
                    report.trace.append(PlayTrace(game.number, action.player, action.dice, before.position_id(),
                                                  after.position_id(), action.notation))
            elif kind is ActionKind.UNPLAYED:
                pass  # rolled as the game ended
            elif kind is ActionKind.DOUBLE:
                if state.phase is Phase.ROLL and state.turn != action.player:
                    find(action, "turn", f"doubled out of turn (it is {name[state.turn]}'s turn)")
                    state = _with_turn(state, action.player)
                state = state.double()
                if action.value != state.match.cube * 2:
                    find(action, "cube", f"doubles to {action.value}, but the cube is at {state.match.cube}")
            elif kind is ActionKind.TAKE:
                state = _expect_answer(state, action, find).take()
            elif kind is ActionKind.BEAVER:
                state = _expect_answer(state, action, find).beaver()
            elif kind is ActionKind.DROP:
                state = _expect_answer(state, action, find).pass_double()
            elif kind is ActionKind.RESIGN:
                resign = action
        except RulesError as exc:
            find(action, "cube" if kind in (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP,
                                            ActionKind.BEAVER) else "turn", str(exc))
            break
    if resign is not None and state.phase is not Phase.OVER:
        state = _resign(state, resign.player, resign.value)
    if state.phase is Phase.OVER and state.end is not None:
        how = state.end.kind.name.lower()
        return GameOutcome(game.number, state.end.winner, state.end.points, how, plays), state
    return GameOutcome(game.number, None, 0, "unfinished", plays), state


def _resign(state: GameState, loser: int, value: int | None, needed: int = 0) -> GameState:
    """A resignation of as many cubes as the record's number says, when that is 1, 2 or 3 cubes; else single.
    When the record says the resignation won the match, the smallest size that does (`needed` points)."""
    cube = state.match.cube
    if needed:
        result = next((k for k in (1, 2, 3) if k * cube >= needed), 3)
    elif value and value % cube == 0 and 1 <= value // cube <= 3:
        result = value // cube
    else:
        result = 1
    return state.resign(loser, result)


def _roll(state: GameState, action: Action) -> GameState:
    d1, d2 = action.dice  # type: ignore[misc]
    if state.phase is Phase.OPENING:
        if d1 == d2:
            raise RulesError(f"the opening roll {d1}{d2} is a double: equal opening dice are thrown again")
        high, low = max(d1, d2), min(d1, d2)
        die0, die1 = (high, low) if action.player == 0 else (low, high)
        return state.opening_roll(die0, die1)
    if state.phase is Phase.DOUBLED:
        raise RulesError("rolled while a double waits for an answer")
    return state.roll(d1, d2)


def _with_turn(state: GameState, player: int) -> GameState:
    if state.turn == player:
        return state
    return replace(state, turn=player, position=state.position.swap())


def _expect_answer(state: GameState, action: Action, find) -> GameState:
    if state.phase is Phase.DOUBLED and state.turn != action.player:
        find(action, "turn", "answers a double offered to the other player")
    return state


def _play(state: GameState, action: Action, find) -> GameState:
    assert state.dice is not None
    try:
        play = state.position.play(action.notation, state.dice)
    except NotationError as exc:
        find(action, "illegal-play", f"{action.text}: {exc}")
        try:
            mine, theirs = apply_moves(state.position, parse_moves(action.notation))
        except NotationError as exc2:
            raise RulesError(f"cannot follow the game after {action.text!r}: {exc2}") from exc2
        return state.play_unchecked(_trusted(theirs, mine))
    return state.play(play)


__all__ = ["AuditReport", "Finding", "GameOutcome", "PlayTrace", "audit_match"]
