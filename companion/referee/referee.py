"""The referee: runs a whole match from observations and says what happened, as events.

Deterministic: the same observations give the same events, so a journal replays exactly after a crash.

How a turn is judged, as over the board: a play is finished when its player picks up the dice (an empty
`DiceReading`), or when the opponent rolls or doubles. Until then the player may still change it, so:
- a board reading that matches exactly one legal result is announced at once (`PlayMade`); if the player
  moves again before finishing, the new play replaces it (`PlayMade(revised=True)` or `PlayWithdrawn`);
- a reading that matches nothing legal yet is a play in progress, and gives no verdict;
- when the play is finished and still matches nothing legal, it is illegal (`IllegalPlay`, with the reasons
  and the nearest legal plays), and the correction window opens: the opponent may ask for a correction (the
  player plays again from the position before) or accept; once the opponent rolls, the play stands. The camera
  is not trusted further than it sees: a reading that is no whole position (not 15 checkers a side), one whole
  only because the reader guessed a checker to make fifteen a side (`mended`), or one read unsurely where it
  leaves the nearest legal play, is asked about (`NeedsAttention`), never called illegal;
  a throw of the opponent's meanwhile is held until the play is made.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.errors import IllegalActionError, InvalidPositionError
from companion.referee.diagnosis import (colours_differ_only, diagnose, opponent_changes, pips_moved,
                                         sure_where_it_differs)
from companion.referee.events import (
    Beavered,
    CorrectionRequested,
    DoubleOffered,
    Event,
    GameOver,
    GameStarted,
    IllegalPlay,
    MatchOver,
    NeedsAttention,
    OpeningRoll,
    Passed,
    PlayMade,
    PlayStood,
    PlayWithdrawn,
    PositionSet,
    Refused,
    Reroll,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Rolled,
    Taken,
    Undone,
)
from companion.referee.inference import Fit, infer_play, position_agrees, sets_the_rules_force
from companion.referee.observations import (
    CONFIDENT,
    BoardReading,
    Command,
    CubePlace,
    CubeReading,
    DiceReading,
    Observation,
    UserCommand,
)
from companion.rules import OFF, GameState, MatchState, Phase, Play, Position, Roll


UNSURE_BOARD = "the board cannot be read surely enough to judge the play; clear the view or set the position by hand"
"""What the referee asks when a finished play's reading is too unsure where it matters to call it illegal."""


@dataclass(frozen=True, slots=True)
class PendingIllegal:
    """An illegal play waiting for the opponent: a correction, or acceptance (his roll accepts it too)."""

    event: IllegalPlay
    before: GameState
    """The game as it was before the play (phase PLAY)."""


@dataclass(frozen=True, slots=True)
class RefereeState:
    """Everything the referee knows; immutable, so undo is a step back through earlier states."""

    game: GameState
    number: int = 1
    open_turn: GameState | None = None
    """The game before a legal play whose player has not finished his turn (he may still change it)."""
    pending: PendingIllegal | None = None
    reading: BoardReading | None = None
    """The latest board reading."""
    seen_since_roll: bool = True
    """Whether a board reading (a camera's, or a typed play's) came after the last roll: without one the mover's play
    is not seen yet (played on a board no camera watches, not typed yet), and the next throw waits for it."""
    dice_on_board: tuple[int, ...] | None = None
    """The values lying on the board (() none, None not known): the same values again are not a new roll."""
    last_sequence: int | None = None
    attention: str | None = None
    """The last `NeedsAttention` said, so the same complaint is not repeated for every frame."""
    resign_offer: tuple[int, int] | None = None
    """A resignation offered and not yet answered: (player, 1 single / 2 gammon / 3 backgammon)."""
    held_roll: tuple[int | None, tuple[int, int]] | None = None
    """The opponent's throw (roller, dice) that came while the mover's play could not be judged ("cannot be read
    surely enough"): taken as soon as the play is, so the throw is not lost to a misreading."""
    void_roll: tuple[int, Roll, str] | None = None
    """A roll called void whose player has not thrown again: (player, roll, reason). If the table plays it anyway
    (the board shows a play it allows, or, when it allows none, the opponent throws next) it stands as played."""

    @property
    def match_over(self) -> bool:
        """Once the match is won, the last game keeps the final match state (score included)."""
        return self.game.match.is_over()


class Referee:
    """Feed it observations with `observe`; it returns the events each one caused.

    >>> from companion.referee import Referee, DiceReading
    >>> ref = Referee(MatchState.match_to(5))
    >>> [str(e) for e in ref.observe(DiceReading((3, 1)))]
    ['Game 1 (match to 5, 0-0)', 'Opening roll 3 and 1: Player 0 plays 31']
    """

    def __init__(self, match: MatchState | None = None, *, threshold: float = CONFIDENT,
                 position: Position | None = None) -> None:
        self.threshold = threshold
        self._state = RefereeState(GameState.new(match or MatchState(), position))
        self._started = False
        self._history: list[tuple[RefereeState, tuple[Event, ...]]] = []
        self.events: list[Event] = []
        """Every event so far, in order (undone ones included: an `Undone` follows them)."""

    # -- what the referee knows ---------------------------------------------------------------------

    @property
    def state(self) -> RefereeState:
        return self._state

    @property
    def game(self) -> GameState:
        return self._state.game

    @property
    def match(self) -> MatchState:
        return self._state.game.match

    @property
    def can_undo(self) -> bool:
        """Whether an UNDO has something to take back."""
        return bool(self._history)

    def checkpoint(self) -> tuple:
        """Where the referee stands now; `rewind` returns to it (an observation that could not be journalled)."""
        return self._state, self._started, len(self._history), len(self.events)

    def rewind(self, checkpoint: tuple) -> None:
        self._state, self._started, history, events = checkpoint
        del self._history[history:]
        del self.events[events:]

    # -- the one entry point ------------------------------------------------------------------------

    def observe(self, observation: Observation) -> list[Event]:
        out: list[Event] = []
        if not self._started:
            self._started = True
            out.append(self._game_started())
        if isinstance(observation, UserCommand) and observation.command is Command.UNDO:
            out += self._undo()
        else:
            before = self._state
            if isinstance(observation, DiceReading):
                new = self._on_dice(observation)
            elif isinstance(observation, BoardReading):
                new = self._on_board(observation)
            elif isinstance(observation, CubeReading):
                new = self._on_cube(observation)
            elif isinstance(observation, UserCommand):
                new = self._on_command(observation)
            else:
                raise TypeError(f"not an observation: {observation!r}")
            # a refusal that changed nothing is not a decision to take back: `u` after a stray key undoes the play
            if new and not (self._state is before and all(isinstance(e, Refused) for e in new)):
                self._history.append((before, tuple(new)))
            out += new
        self.events += out
        return out

    def replay(self, observations) -> list[tuple[GameState, list[Event]]]:
        """Observe each in turn, giving the game as it stood before each and the events it caused: what a reviewer
        rates. What an undo took back is left out with the undo (the journal keeps both), so a play taken back and
        played again is rated once, as played."""
        out: list[tuple[GameState, list[Event]] | None] = []
        held: list[int] = []  # the entries of `out` the undo history holds, oldest first: an undo takes the last
        for observation in observations:
            before, depth = self.game, len(self._history)
            events = self.observe(observation)
            if isinstance(observation, UserCommand) and observation.command is Command.UNDO:
                if len(self._history) < depth and held:
                    out[held.pop()] = None
                continue
            if len(self._history) > depth:
                held.append(len(out))
            out.append((before, events))
        return [entry for entry in out if entry is not None]

    # -- dice ---------------------------------------------------------------------------------------

    def _on_dice(self, dice: DiceReading) -> list[Event]:
        s = self._state
        if s.match_over:
            return []
        if not dice.values and dice.valid:  # the dice were picked up: the turn is finished
            self._state = replace(s, dice_on_board=())
            return self._finish_turn()
        out: list[Event] = []
        if self._void_dance_stood(dice):
            out += self._let_void_roll_stand() + self._finish_turn()
            s = self._state
        if dice.valid and dice.halves and s.game.phase in (Phase.OPENING, Phase.ROLL) and self._is_new_roll(dice):
            reason = dice.misplaced(s.game.turn, s.game.phase is Phase.OPENING)
            if reason:
                dice = replace(dice, valid=False, reason=reason)
        if not dice.valid:
            if s.game.phase is Phase.PLAY and s.pending is None and dice.roller in (None, s.game.turn):
                return out  # the mover's dice, knocked about after his roll counted
            out += self._finish_turn() if s.game.phase is Phase.PLAY else []
            self._state = replace(self._state, dice_on_board=None)
            game = self._state.game
            if game.phase is Phase.ROLL and (not dice.halves or game.turn in dice.halves):  # his throw
                void = (game.turn, Roll(*dice.values), dice.reason or "invalid roll") if dice.values else None
                self._state = replace(self._state, void_roll=void)
            return out + [Reroll(dice.reason or "invalid roll")]
        if not self._is_new_roll(dice):
            return out
        self._state = replace(self._state, dice_on_board=dice.values, last_sequence=dice.sequence)
        phase = self._state.game.phase
        if phase is Phase.OPENING:
            return out + self._opening_roll(dice)
        if phase is Phase.PLAY and self._state.pending is None:
            if dice.roller == self._state.game.turn:
                return [self._attention("the dice were thrown again before a play was made; "
                                        "the first roll counts (undo it if it was misread)")]
            out += self._finish_turn()
            if self._state.game.phase is Phase.PLAY and self._state.pending is None and len(dice.values) == 2:
                # the play could not be judged: the throw waits for it (a clearer reading, or a play chosen)
                self._state = replace(self._state, held_roll=(dice.roller, (dice.values[0], dice.values[1])))
                return out
        if self._state.pending is not None:
            out += self._stand()
            if self._state.pending is not None:
                return out
        self._state = replace(self._state, open_turn=None)
        game = self._state.game
        if game.phase is Phase.DOUBLED:
            return out + [self._attention("a roll while a double waits for an answer does not count: take or pass "
                                          "first, then the doubler rolls again")]
        if game.phase is not Phase.ROLL:
            return out
        if dice.roller is not None and dice.roller != game.turn:
            return out + [Refused("roll", f"player {dice.roller} rolled, but it is player {game.turn}'s turn")]
        return out + self._roll(*dice.values)

    def _is_new_roll(self, dice: DiceReading) -> bool:
        s = self._state
        if dice.sequence is not None:
            return dice.sequence != s.last_sequence
        if s.dice_on_board is None or not s.dice_on_board:
            return True
        if s.game.phase is Phase.OPENING:
            return dice.values != s.dice_on_board
        return sorted(dice.values) != sorted(s.dice_on_board)

    def _opening_roll(self, dice: DiceReading) -> list[Event]:
        d0, d1 = dice.values
        game = self._state.game.opening_roll(d0, d1)
        if game is self._state.game:
            return [OpeningRoll((d0, d1), None)]
        self._state = replace(self._state, game=game, attention=None, seen_since_roll=False)
        return [OpeningRoll((d0, d1), game.turn)]

    def _roll(self, d1: int, d2: int, unseen: bool = False, void_reason: str | None = None) -> list[Event]:
        game = self._state.game.roll(d1, d2)
        self._state = replace(self._state, game=game, attention=None, void_roll=None, seen_since_roll=False)
        out: list[Event] = [Rolled(game.turn, game.dice, unseen, void_reason)]  # type: ignore[arg-type]
        plays = game.legal_plays()
        if len(plays) == 1 and plays[0].is_empty():
            out += self._make_play(plays[0])
        return out

    # -- the board ----------------------------------------------------------------------------------

    def _on_board(self, reading: BoardReading) -> list[Event]:
        s = self._state
        if not s.seen_since_roll:
            s = self._state = replace(s, seen_since_roll=True)
        if s.match_over or reading == s.reading:
            return []
        self._state = replace(s, reading=reading)
        game = s.game
        if s.pending is not None:
            return self._during_correction_window(reading)
        if s.open_turn is not None and not position_agrees(game.position, reading, game.turn, self.threshold):
            return self._play_changed(reading)
        if game.phase is Phase.OPENING:
            return self._check_setup(reading)
        if game.phase is Phase.PLAY:
            out = self._judge_reading(reading)
            if not out and self._state.held_roll is not None:  # the opponent threw already: this is the play
                out = self._judged_with_held_throw()
            return out
        if s.open_turn is None and game.phase in (Phase.ROLL, Phase.DOUBLED):
            if not position_agrees(game.position, reading, game.turn, self.threshold):
                if game.phase is Phase.ROLL:
                    if self._void_roll_fits(reading):
                        return self._then_judge(self._let_void_roll_stand(), reading)
                    roll = self._only_roll_for(reading)
                    if roll is not None:
                        return self._then_judge(self._roll(*roll, unseen=True), reading)
                return self._attention_once("the checkers moved, but no roll was seen")
        return []

    def _judged_with_held_throw(self) -> list[Event]:
        """The board seen after the opponent's throw was held, and no legal play fits it: the turn is over, so the
        play is judged as it ended (illegal, standing: the opponent has thrown) and the held throw counts."""
        out = self._finish_turn()
        if self._state.game.phase is Phase.PLAY and self._state.pending is None:
            return out  # not judged yet (read unsurely): the throw waits on
        if self._state.pending is not None:
            out += self._stand()
        held = self._state.held_roll
        self._state = replace(self._state, held_roll=None, open_turn=None)
        game = self._state.game
        if held is not None and game.phase is Phase.ROLL and held[0] in (None, game.turn):
            out += self._roll(*held[1])
        return out

    def _then_judge(self, events: list[Event], reading: BoardReading) -> list[Event]:
        """`events` (a roll just taken), then `reading` judged if that roll left a play to make (a roll with no
        legal play has already been played)."""
        return events + (self._judge_reading(reading) if self._state.game.phase is Phase.PLAY else [])

    def _judge_reading(self, reading: BoardReading) -> list[Event]:
        game = self._state.game
        inference = infer_play(game.position, game.dice, reading, game.turn, self.threshold)  # type: ignore[arg-type]
        if inference.fit is Fit.PLAY:
            return self._make_play(inference.play)
        if inference.fit is Fit.AMBIGUOUS:
            names = ", ".join(p.notation for p in inference.plays)
            return self._attention_once(f"the board fits more than one legal play ({names}): which was played?",
                                        inference.plays)
        return []

    def _only_roll_for(self, reading: BoardReading) -> tuple[int, int] | None:
        """When the dice were missed (a camera that looked away, a throw it could not read): the one roll with
        exactly one legal play that the board shows. Waiting alone would leave the referee a turn behind the table;
        when two rolls fit, or none, it is None and the referee asks instead of guessing."""
        game = self._state.game
        fits = []
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                inference = infer_play(game.position, Roll(d2, d1), reading, game.turn, self.threshold,
                                       rules_name_sets=False)
                if inference.fit is not Fit.NONE:
                    fits.append((d2, d1, inference.fit))
        if len(fits) == 1 and fits[0][2] is Fit.PLAY:
            return fits[0][0], fits[0][1]
        return None

    def _turns_void_roll(self) -> Roll | None:
        """The roll called void for the player whose turn it is, if he has not thrown again."""
        void = self._state.void_roll
        return void[1] if void is not None and void[0] == self._state.game.turn else None

    def _void_roll_fits(self, reading: BoardReading) -> bool:
        """The board shows exactly one legal play of the roll just called void: the table played it anyway."""
        game, void = self._state.game, self._turns_void_roll()
        return void is not None and infer_play(game.position, void, reading, game.turn, self.threshold,
                                               rules_name_sets=False).fit is Fit.PLAY

    def _void_dance_stood(self, dice: DiceReading) -> bool:
        """The opponent throws after a void roll its player could not have moved with (he danced), and nothing
        moved: the table let the roll stand. Calling the opponent's throw misplaced would leave the referee a
        turn behind the table from then on."""
        s = self._state
        game, void = s.game, self._turns_void_roll()
        if void is None or game.phase is not Phase.ROLL or not dice.valid:
            return False
        if not dice.halves or any(h != 1 - game.turn for h in dice.halves):
            return False
        if s.reading is not None and not position_agrees(game.position, s.reading, game.turn, self.threshold):
            return False
        plays = game.roll(void.die1, void.die2).legal_plays()
        return len(plays) == 1 and plays[0].is_empty()

    def _let_void_roll_stand(self) -> list[Event]:
        assert self._state.void_roll is not None
        _, roll, reason = self._state.void_roll
        return self._roll(roll.die1, roll.die2, void_reason=reason)

    def _make_play(self, play) -> list[Event]:
        s = self._state
        before = s.game
        game = before.play(play)
        revised = s.open_turn is not None
        self._state = replace(s, game=game, open_turn=before, attention=None)
        out: list[Event] = [PlayMade(before.turn, play, before.position, revised=revised)]
        if game.phase is Phase.OVER:
            self._state = replace(self._state, open_turn=None, held_roll=None)
            out += self._game_over()
        held = self._state.held_roll
        if held is not None:  # the opponent has thrown already: the turn is over, his throw counts now
            self._state = replace(self._state, open_turn=None, held_roll=None)
            roller, dice = held
            game = self._state.game
            if game.phase is Phase.ROLL and roller in (None, game.turn):
                out += self._roll(*dice)
        return out

    def _play_changed(self, reading: BoardReading) -> list[Event]:
        """The player moved again after a legal play, before finishing his turn."""
        s = self._state
        assert s.open_turn is not None
        mover = s.open_turn.turn
        named = sets_the_rules_force(s.open_turn.position, reading, mover, self.threshold)
        if named is not None and position_agrees(s.game.position, named, s.game.turn, self.threshold):
            return []  # the play taken, a set misread where the rules say whose it is: nothing changed
        self._state = replace(s, game=s.open_turn)  # open_turn stays: a new legal play is a revision
        out = self._judge_reading(reading)
        if out and isinstance(out[0], PlayMade):
            return out
        self._state = replace(self._state, open_turn=None)
        return [PlayWithdrawn(mover)] + out

    def _finish_turn(self) -> list[Event]:
        """The mover's turn is over: close an open play, or judge a play still unresolved."""
        s = self._state
        if s.open_turn is not None:
            self._state = replace(s, open_turn=None)
            return []
        if s.game.phase is not Phase.PLAY or s.pending is not None:
            return []
        game = s.game
        assert game.dice is not None
        plays = game.legal_plays()
        if s.reading is None or not s.seen_since_roll:  # the board before the roll says nothing of the play
            return [self._attention("the play was not seen (no board reading or typed play since the roll); "
                                    "the next throw waits for it")]
        inference = infer_play(game.position, game.dice, s.reading, game.turn, self.threshold, plays)
        unsure = inference.fit is Fit.UNCHANGED and any(not p.is_empty() for p in inference.plays)
        if unsure:
            return [self._attention("the board is read too unsurely to tell whether a play was made",
                                    inference.plays)]
        if inference.fit is Fit.AMBIGUOUS:
            names = ", ".join(p.notation for p in inference.plays)
            return [self._attention(f"the board fits more than one legal play ({names}): which was played?",
                                    inference.plays)]
        if inference.fit is Fit.PLAY:  # only if the reading arrived with no verdict; judge it now
            return self._make_play(inference.play)
        mine, theirs = _sides_from(s.reading, game.turn)
        try:
            after = Position(tuple(mine), tuple(theirs))
        except InvalidPositionError:
            # not 15 checkers a side: a misreading, or, however surely read, a checker out of view (borne off
            # beside a board without trays, under the cube) or a pattern taken for one, is likelier than a checker
            # truly gone or added; calling that illegal would accuse a player of what the camera missed
            if not s.reading.is_confident(self.threshold):
                return [self._attention(UNSURE_BOARD)]
            diagnosis = diagnose(game.position, game.dice, (mine, theirs), plays)
            return [self._ask_offering(f"the board as read is not a whole position ({'; '.join(diagnosis.reasons)})"
                                       ": a checker may be out of view; clear the view", diagnosis.nearest)]
        diagnosis = diagnose(game.position, game.dice, (mine, theirs), plays)
        if s.reading.off is None and _borne_off_unseen(game.position, (mine, theirs), game.dice, plays):
            # trays unseen, the reading counts as borne off every checker it does not see: where no legal play
            # bears them off and the roll's pips do not reach them, they are under a hand or beside the board
            return [self._ask_offering("the board as read is missing checkers no legal play bears off: a checker "
                                       "may be out of view; clear the view", diagnosis.nearest)]
        if opponent_changes(game.position, theirs):
            # the opponent did not move: his checkers read elsewhere than before, other than hit, are misread (a
            # stack of one set surely taken for the other's, on checkers no training set had), likelier than a
            # player moving the other's checkers
            return [self._ask_offering("the board as read has the opponent's checkers moved, other than hit: a "
                                       "misreading is likelier; check the board", diagnosis.nearest)]
        if s.reading.mended:
            # whole only because the reader made each set fifteen: where it changed one place, another may be
            # misread surely, which before the mending was a reading to ask about, never to accuse on
            return [self._ask_offering("the board as read leaves the legal plays, but the camera had to guess a "
                                       "checker to count fifteen a side: check the board", diagnosis.nearest)]
        recoloured = colours_differ_only(plays, mine, theirs)
        if recoloured and not sure_where_it_differs(s.reading, recoloured, game.turn, self.threshold):
            # every point holds as many checkers as after a legal play, only whose they are differs, and the reading
            # is unsure of some of those: a blot read as the other set (session 35's fresh draw: two blots, at 0.5
            # and 0.98), which the nearest plays by checkers out of place need not include. Read surely, it is an
            # illegal play: hitting the other of two blots, as real players do
            return [self._ask_offering("the board as read differs from a legal play only in which set stands on "
                                       "some points: a misreading is likelier; check the board", recoloured)]
        if not sure_where_it_differs(s.reading, diagnosis.nearest, game.turn, self.threshold):
            # a whole position, but read unsurely just where it leaves the nearest legal play: a misreading (a
            # checker of one set taken for the other's) is likelier than an illegal play, and calling it illegal
            # would accuse a player of what the camera did
            return [self._attention(UNSURE_BOARD)]
        event = IllegalPlay(game.turn, game.dice, game.position, after, diagnosis.reasons, diagnosis.nearest)
        self._state = replace(s, pending=PendingIllegal(event, game))
        return [event]

    def _during_correction_window(self, reading: BoardReading) -> list[Event]:
        """A new reading after an illegal play: if the board went back, or now shows a legal play, the
        opponent asked for a correction (out loud); anything else waits for his decision."""
        pending = self._state.pending
        assert pending is not None
        game = pending.before
        restored = position_agrees(game.position, reading, game.turn, self.threshold)
        inference = infer_play(game.position, game.dice, reading, game.turn, self.threshold)  # type: ignore[arg-type]
        if not restored and inference.fit is Fit.NONE:
            return []
        out: list[Event] = [CorrectionRequested(game.turn)]
        self._state = replace(self._state, pending=None, game=game)
        return out + ([] if restored else self._judge_reading(reading))

    def _stand(self) -> list[Event]:
        """The illegal play stands (accepted, or the opponent rolled)."""
        pending = self._state.pending
        assert pending is not None
        event = pending.event
        if event.after is None:
            return [self._attention("the illegal play cannot stand as read: the board does not show 15 "
                                    "checkers a side; set the position by hand")]
        game = pending.before.play_unchecked(event.after.swap())
        self._state = replace(self._state, game=game, pending=None, open_turn=None)
        out: list[Event] = [PlayStood(event.player, event.roll, event.before, event.after, event.reasons)]
        if game.phase is Phase.OVER:
            out += self._game_over()
        return out

    def _check_setup(self, reading: BoardReading) -> list[Event]:
        game = self._state.game
        if position_agrees(game.position, reading, game.turn, self.threshold):
            return []
        mine, theirs = _sides_from(reading, game.turn)
        wrong = []
        for player, side, want in ((game.turn, mine, game.position.player),
                                   (1 - game.turn, theirs, game.position.opponent)):
            for point in range(1, 26):
                if side[point] != want[point]:
                    wrong.append(f"player {player} has {side[point]} on {'the bar' if point == 25 else f'his {point}-point'}"
                                 f", expected {want[point]}")
        return self._attention_once("the starting set-up is wrong: " + "; ".join(wrong[:4]))

    # -- the cube -----------------------------------------------------------------------------------

    def _on_cube(self, cube: CubeReading) -> list[Event]:
        s = self._state
        if s.match_over or cube.confidence < self.threshold:
            return []
        match, game = s.game.match, s.game
        if cube.cube == match.cube and cube.place.owner == match.cube_owner and cube.place is not CubePlace.OFFERED:
            return []
        if cube.cube == match.cube * 2:
            if game.phase in (Phase.ROLL, Phase.PLAY) and cube.place.owner != game.on_roll:
                return self._on_command(UserCommand(Command.DOUBLE))
            if game.phase is Phase.DOUBLED and cube.place.owner == game.turn:
                return self._on_command(UserCommand(Command.TAKE))
            if game.phase is Phase.DOUBLED:
                return []  # the offer, still lying between the players
        where = {CubePlace.CENTRE: "in the centre", CubePlace.OFFERED: "being offered"}.get(
            cube.place, f"on player {cube.place.owner}'s side")
        owner = "centred" if match.cube_owner is None else f"owned by player {match.cube_owner}"
        return self._attention_once(f"the cube shows {cube.value} {where}, but the game has it at {match.cube}, {owner}")

    # -- commands -----------------------------------------------------------------------------------

    def _on_command(self, cmd: UserCommand) -> list[Event]:
        s = self._state
        kind = cmd.command
        if kind is Command.NEW_GAME:
            return self._new_game()
        if kind is Command.SET_POSITION:
            return self._set_position(cmd)
        if s.match_over:
            return [Refused(kind.value, "the match is over")]
        if kind is Command.ACCEPT_PLAY:
            if s.pending is None:
                return [Refused(kind.value, "there is no illegal play to accept")]
            return self._stand()
        if kind is Command.REQUEST_CORRECTION:
            if s.pending is None:
                return [Refused(kind.value, "only an illegal play can be corrected, and only before the next roll")]
            game = s.pending.before
            self._state = replace(s, pending=None, game=game, reading=None)
            return [CorrectionRequested(game.turn)]
        if kind is Command.DOUBLE:
            return self._double(cmd)
        if kind in (Command.TAKE, Command.PASS, Command.BEAVER):
            return self._answer(cmd)
        if kind is Command.RESIGN:
            return self._resign(cmd)
        if kind is Command.OFFER_RESIGN:
            return self._offer_resign(cmd)
        if kind in (Command.ACCEPT_RESIGN, Command.DECLINE_RESIGN):
            return self._answer_resign(cmd)
        raise ValueError(f"unknown command {kind}")

    def _double(self, cmd: UserCommand) -> list[Event]:
        out: list[Event] = []
        game = self._state.game
        # the opponent doubling finishes the mover's turn
        if game.phase is Phase.PLAY and cmd.player != game.turn:
            out += self._finish_turn()
        if self._state.pending is not None:
            out += self._stand()
        self._state = replace(self._state, open_turn=None)
        game = self._state.game
        player = game.turn if cmd.player is None else cmd.player
        if game.phase is Phase.ROLL and player != game.turn:
            return out + [Refused("double", f"only the player about to roll may double (player {game.turn})")]
        try:
            game = game.double()
        except IllegalActionError as exc:
            return out + [Refused("double", str(exc))]
        self._state = replace(self._state, game=game, attention=None)
        return out + [DoubleOffered(player, game.match.cube * 2)]

    def _answer(self, cmd: UserCommand) -> list[Event]:
        game = self._state.game
        name = cmd.command.value
        if game.phase is not Phase.DOUBLED:
            return [Refused(name, "no double is waiting for an answer")]
        player = game.turn if cmd.player is None else cmd.player
        if player != game.turn:
            return [Refused(name, f"the double was offered to player {game.turn}")]
        try:
            if cmd.command is Command.TAKE:
                game = game.take()
                event: Event = Taken(player, game.match.cube)
            elif cmd.command is Command.BEAVER:
                game = game.beaver()
                event = Beavered(player, game.match.cube)
            else:
                game = game.pass_double()
                event = Passed(player)
        except IllegalActionError as exc:
            return [Refused(name, str(exc))]
        self._state = replace(self._state, game=game, attention=None)
        return [event] + (self._game_over() if game.phase is Phase.OVER else [])

    def _resign(self, cmd: UserCommand) -> list[Event]:
        game = self._state.game
        player = game.on_roll if cmd.player is None else cmd.player
        try:
            game = game.resign(player, cmd.value)
        except IllegalActionError as exc:
            return [Refused("resign", str(exc))]
        self._state = replace(self._state, game=game, pending=None, open_turn=None)
        return [Resigned(player, cmd.value)] + self._game_over()

    def _offer_resign(self, cmd: UserCommand) -> list[Event]:
        game = self._state.game
        player = game.on_roll if cmd.player is None else cmd.player
        if game.phase in (Phase.OPENING, Phase.OVER):
            return [Refused("resign", "there is no game in play to resign")]
        if cmd.value not in (1, 2, 3):
            return [Refused("resign", "a resignation is of a single, gammon or backgammon game (1, 2 or 3)")]
        self._state = replace(self._state, resign_offer=(player, cmd.value))
        return [ResignationOffered(player, cmd.value)]

    def _answer_resign(self, cmd: UserCommand) -> list[Event]:
        offer = self._state.resign_offer
        if offer is None:
            return [Refused(cmd.command.value, "no resignation is offered")]
        player, value = offer
        self._state = replace(self._state, resign_offer=None)
        if cmd.command is Command.DECLINE_RESIGN:
            return [ResignationDeclined(1 - player, value)]
        return self._resign(UserCommand(Command.RESIGN, player, value=value))

    def _set_position(self, cmd: UserCommand) -> list[Event]:
        if cmd.position is None:
            return [Refused("set-position", "no position given")]
        game = self._state.game
        if game.phase is Phase.OVER:
            return [Refused("set-position", "the game is over")]
        if game.phase is Phase.OPENING:  # a game taken up in the middle: `player` (default 0) rolls next
            player = cmd.player or 0
            game = replace(game, position=cmd.position, phase=Phase.ROLL, turn=player)
        else:
            player = game.turn if cmd.player is None else cmd.player
            game = replace(game, position=cmd.position if player == game.turn else cmd.position.swap())
        self._state = replace(self._state, game=game, pending=None, open_turn=None, reading=None, attention=None,
                              held_roll=None)  # a throw held for the play the position now replaces is void
        return [PositionSet(player, cmd.position)]

    def _undo(self) -> list[Event]:
        if not self._history:
            return [Refused("undo", "nothing to undo")]
        before, events = self._history.pop()
        self._state = before
        return [Undone(", ".join(str(e) for e in events), tuple(events))]

    # -- games and the match ------------------------------------------------------------------------

    def _game_started(self) -> GameStarted:
        m = self._state.game.match
        return GameStarted(self._state.number, m.score, m.length, m.crawford)

    def _game_over(self) -> list[Event]:
        game = self._state.game
        assert game.end is not None
        match = game.next_match_state()
        out: list[Event] = [GameOver(game.end.winner, game.end.points, game.end.kind, match.score)]
        if match.is_over():
            self._state = replace(self._state, game=replace(game, match=match))
            winner = match.winner()
            assert winner is not None
            return out + [MatchOver(winner, match.score)]
        self._next_game(match, self._state.number + 1)
        return out + [self._game_started()]

    def _next_game(self, match: MatchState, number: int) -> None:
        # the dice of the last roll may still lie on the board: they are not the next opening roll
        s = self._state
        self._state = RefereeState(GameState.new(match), number, dice_on_board=s.dice_on_board,
                                   last_sequence=s.last_sequence)

    def _new_game(self) -> list[Event]:
        """Start this game again from the opening roll with the cube in the centre (a game set up or begun
        wrongly); after the end of a match, a new match under the same rules."""
        s = self._state
        match = replace(s.game.match, cube=1, cube_owner=None)
        if s.match_over:
            match = replace(match, score=(0, 0), crawford=False, post_crawford=False)
        self._next_game(match, 1 if s.match_over else s.number)
        return [self._game_started()]

    # -- saying things once -------------------------------------------------------------------------

    def _attention(self, what: str, candidates=()) -> NeedsAttention:
        self._state = replace(self._state, attention=what)
        return NeedsAttention(what, tuple(candidates))

    def _ask_offering(self, what: str, nearest: tuple[Play, ...]) -> NeedsAttention:
        """A question about a finished play that cannot be judged, offering the nearest legal plays to type."""
        names = ", ".join(p.notation for p in nearest)
        return self._attention(f"{what}, type the play" + (f" (nearest legal: {names})" if names else "")
                               + " or set the position by hand", nearest)

    def _attention_once(self, what: str, candidates=()) -> list[Event]:
        if self._state.attention == what:
            return []
        return [self._attention(what, candidates)]


def _borne_off_unseen(before: Position, after: tuple[list[int], list[int]], roll: Roll, plays: list[Play]) -> bool:
    """Whether `after` (the mover's and the opponent's slots, as read, trays unseen) counts as borne off checkers
    likelier out of view: the opponent's off count changed (he did not move), or the mover has more off than a
    legal play bears off and his checkers moved more pips than `roll` has (gone from points the dice did not
    reach). A bear-off within the roll's pips that the rules forbid (a checker still outside home) is a play to
    judge, not a checker out of view."""
    mine, theirs = after
    if theirs[OFF] != before.opponent[OFF]:
        return True
    most = max((play.result_key[OFF] for play in plays), default=before.player[OFF])
    return mine[OFF] > most and pips_moved(before, mine) > roll.pips()


def _sides_from(reading: BoardReading, mover: int) -> tuple[list[int], list[int]]:
    zero, one = reading.best_guess()
    return (zero, one) if mover == 0 else (one, zero)


__all__ = ["PendingIllegal", "Referee", "RefereeState"]
