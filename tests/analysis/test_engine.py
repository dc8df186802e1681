"""The engine adapter against independent answers: bgsage's plays are exactly our legal plays (so the board
is handed over the right way round), gnubg-nn's choices rank near the top, cube advice follows the score."""

import gnubg_nn
import pytest

from companion.analysis import CubeAction, Engine, keith, race_guides, thorp
from companion.analysis.engine import board_of, key_of
from companion.analysis.rating import MatchSummary, PlayRating, Skill, rate_play, rating_name
from companion.rules import GameState, MatchState, Position, Roll
from tests.oracles.gnubg_nn_oracle import to_board
from tests.oracles.samples import random_play_pairs, real_match_pairs


@pytest.fixture(scope="module")
def engine():
    return Engine()


def test_the_board_handed_to_bgsage_round_trips():
    for position, roll in random_play_pairs(11, 3000):
        for play in position.legal_plays(roll)[:3]:
            after = play.position.swap()  # from the mover's side, as bgsage returns a board after a play
            assert key_of(board_of(after)) == play.result_key


def test_every_ranked_play_is_a_legal_play_and_every_legal_play_is_ranked(engine):
    pairs = list(real_match_pairs(1500, seed=3)) + list(random_play_pairs(5, 500))
    for position, roll in pairs:
        hint = engine.hint(position, roll, MatchState(), 0)
        assert sorted(p.play.result_key for p in hint.plays) == sorted(p.result_key for p in position.legal_plays(roll))
        assert hint.plays[0].loss == 0 and all(a.equity >= b.equity for a, b in zip(hint.plays, hint.plays[1:]))


def test_gnubg_nn_picks_are_near_the_top_of_our_ranking(engine):
    """Two independent networks mostly agree; a board given the wrong way round would make them disagree wildly."""
    close, unforced = 0, 0
    for position, roll in real_match_pairs(600, seed=9):
        plays = position.legal_plays(roll)
        if len(plays) < 2:
            continue
        unforced += 1
        moves = gnubg_nn.best_move(to_board(position), roll.die1, roll.die2)
        from companion.rules.notation import apply_moves

        mine, theirs = apply_moves(position, [(s, d, False) for s, d in moves])  # 1-based, 25 bar, 0 off
        key = bytes(list(mine) + list(theirs))
        ranked = engine.hint(position, roll, MatchState(), 0)
        loss = next(r.loss for r in ranked.plays if r.play.result_key == key)
        close += loss <= 0.04
    assert unforced > 400 and close / unforced >= 0.9, close / unforced


def test_cube_advice_follows_the_match_score(engine):
    # a big racing lead: money double/pass; at 2-away/2-away the same lead is a double and a pass too,
    # but leading 4-away v 1-away (opponent post-Crawford) the cube is dead for the leader only
    racing = Position.from_points({1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, {2: 3, 3: 3, 4: 3, 5: 3, 6: 3})  # 45 v 60 pips
    money = engine.cube(racing, MatchState.money(), 0)
    assert money.action in (CubeAction.DOUBLE_PASS, CubeAction.TOO_GOOD_PASS)
    crawford = MatchState(length=5, score=(0, 4), crawford=True)
    assert GameState(crawford, racing).may_double() is False
    start = engine.cube(Position.start(), MatchState.match_to(7), 0)
    assert start.action is CubeAction.NO_DOUBLE and start.no_double > start.double_take


def test_jacoby_and_beaver_reach_the_engine(engine):
    """Each flag changes the answer: Jacoby devalues gammons with a centred cube, a beaver doubles the take's cost."""
    position = Position.start()
    advice = {(j, b): engine.cube(position, MatchState.money(jacoby=j, beaver=b), 0)
              for j in (True, False) for b in (True, False)}
    assert advice[True, True].no_double < advice[False, True].no_double
    assert advice[True, True].double_take < advice[True, False].double_take
    assert advice[True, True].action is CubeAction.NO_DOUBLE_BEAVER
    assert advice[True, False].action is CubeAction.NO_DOUBLE


def test_race_formulas_on_a_textbook_race():
    # 8 checkers a side, worked by hand: pips 35 v 33
    race = Position.from_points({6: 2, 5: 2, 4: 2, 3: 1, 2: 1}, {6: 2, 5: 2, 4: 2, 2: 1, 1: 1})
    k, t = keith(race), thorp(race)
    assert k.roller == pytest.approx(35 * 8 / 7) and k.opponent == 33  # no wastage, no gaps
    assert (k.double, k.redouble, k.take) == (False, False, True)  # 40 v 33 exceeds by 7: too far behind to double
    assert t.roller == pytest.approx((35 + 16 - 5) * 1.1) and t.opponent == 33 + 16 + 1 - 5
    wasteful = Position.from_points({1: 4, 2: 3, 3: 1}, {6: 2, 5: 2, 4: 2, 2: 1, 1: 1})
    assert keith(wasteful).roller == pytest.approx((4 + 6 + 3 + 2 * 3 + 2 + 3) * 8 / 7)
    assert race_guides(Position.start()) == ()  # contact: the formulas say nothing


def test_ratings_use_gnubgs_thresholds():
    assert [Skill.of(x) for x in (0.0, 0.039, 0.04, 0.08, 0.16)] == [
        Skill.GOOD, Skill.GOOD, Skill.DOUBTFUL, Skill.ERROR, Skill.BLUNDER]
    assert rating_name(0.001) == "Supernatural" and rating_name(0.010) == "Advanced" and rating_name(0.05) == "Awful!"


def test_a_played_blunder_is_rated_and_summed(engine):
    position, roll = Position.start(), Roll(6, 5)
    hint = engine.hint(position, roll, MatchState(), 0)
    worst = hint.plays[-1].play
    rating = rate_play(hint, worst, 0)
    assert rating.skill is Skill.BLUNDER and rating.best.notation == "24/13"
    summary = MatchSummary(("A", "B"))
    summary.add_play(rating)
    summary.add_play(PlayRating(1, hint.best.play, hint.best.play, 0.0, False))
    assert summary.sides[0].error_rate == pytest.approx(rating.loss) and summary.sides[1].error_rate == 0
    assert "Rating" in summary.text()


def test_a_beaver_is_rated_as_an_answer_to_the_double():
    """A trial found the beaver left out of a match's review: it is one of the answers, worth twice the take (the
    cube stays where a take puts it, at twice the value)."""
    from companion.analysis.engine import Chances, CubeAdvice
    from companion.analysis.rating import rate_answer

    chances = Chances(0.4, 0.1, 0.0, 0.1, 0.0)
    taker_favourite = CubeAdvice(CubeAction.DOUBLE_BEAVER, -0.1, -0.2, 1.0, chances, "1-ply")
    assert taker_favourite.answer_costs(beaver=True) == pytest.approx({"take": 0.2, "pass": 1.4, "beaver": 0.0})
    assert taker_favourite.answer_costs() == pytest.approx({"take": 0.0, "pass": 1.2})
    took = rate_answer(taker_favourite, 1, "take", beaver=True)
    assert took.loss == pytest.approx(0.2) and took.best == "beaver"
    assert rate_answer(taker_favourite, 1, "take").best == "take"  # no beavers in this match: taking was right
    doubler_favourite = CubeAdvice(CubeAction.DOUBLE_TAKE, 0.3, 0.4, 1.0, chances, "1-ply")
    beavered = rate_answer(doubler_favourite, 1, "beaver", beaver=True)
    assert beavered.loss == pytest.approx(0.4) and beavered.best == "take"


def test_a_matchs_review_lists_the_beaver(tmp_path, monkeypatch, capsys):
    import io

    from companion.cli import main

    typed = "31\n8/5 6/5\n64\n24/18 13/9\nd\nb\n52\n13/8 13/11\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    journal = tmp_path / "b.jsonl"
    assert main(["run", "--no-ui", "--players", "Ann", "Bob", "--length", "0", "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main(["analyse", "--match", str(journal), "--all"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("game ")]
    (beaver,) = [row for row in rows if " beaver " in row + " "]
    assert beaver.split()[2] == "Bob"


def test_the_error_rate_counts_close_or_actual_cube_decisions_as_gnubg_does():
    """Every hold had counted: a player's rating rose when his cube errors were added to his checker play's (a trial:
    12.0 mEMG per decision with --no-cube, 7.6 with the cube)."""
    from companion.analysis.engine import Chances, CubeAdvice
    from companion.analysis.rating import CLOSE_CUBE, rate_answer, rate_double

    chances = Chances(0.5, 0.1, 0.0, 0.1, 0.0)
    too_early = CubeAdvice(CubeAction.NO_DOUBLE, 0.05, -0.3, 1.0, chances, "1-ply")
    nearly = CubeAdvice(CubeAction.NO_DOUBLE, 0.40, 0.40 - CLOSE_CUBE / 2, 1.0, chances, "1-ply")
    assert not rate_double(too_early, 0, False).close and rate_double(too_early, 0, True).close
    assert rate_double(nearly, 0, False).close and rate_answer(too_early, 1, "take").close
    summary = MatchSummary(("A", "B"))
    for _ in range(10):
        summary.add_play(PlayRating(0, None, None, 0.02, False))  # type: ignore[arg-type]
    alone = summary.sides[0].error_rate
    for _ in range(20):
        summary.add_cube(rate_double(too_early, 0, False))
    assert summary.sides[0].error_rate == pytest.approx(alone)  # obvious holds do not dilute it
    summary.add_cube(rate_double(nearly, 0, False))
    assert summary.sides[0].close_cube == 1 and summary.sides[0].cube_decisions == 21
    assert summary.sides[0].error_rate == pytest.approx(0.2 / 11)


def test_a_match_past_the_engines_table_is_not_analysed_rather_than_all_zero(engine):
    """A trainee's 31-point match: every hint +0.000, a bad play rated "best play", and at 6-0 double/take above
    double/pass. bgsage's match equity table stops at 25 away; past it the engine now says so."""
    from dataclasses import replace

    from companion.analysis import EngineError
    from companion.analysis.engine import ENGINE_AWAY

    near = replace(MatchState.match_to(31), score=(6, 6))  # 25-away each: in the table
    assert engine.hint(Position.start(), Roll(3, 1), near, 0).plays[0].equity > 0.1
    for match in (MatchState.match_to(ENGINE_AWAY + 1), replace(MatchState.match_to(31), score=(6, 0))):
        with pytest.raises(EngineError, match="match equity table stops at 25 away"):
            engine.hint(Position.start(), Roll(3, 1), match, 0)
        with pytest.raises(EngineError, match="match equity table stops at 25 away"):
            engine.cube(Position.start(), match, 0)


def test_a_roll_played_as_it_came_is_reviewed_with_its_dice(engine):
    """A trainee's `analyse --match --all` listed "64: cannot move, forced" under an XGID with dice 00: the review
    took the state before the throw, which a roll that cannot be played is judged with."""
    from companion.analysis.review import review_match
    from companion.referee import Command, DiceReading, Referee, UserCommand

    mine, theirs = [0] * 26, [0] * 26
    mine[25], mine[13], mine[8], mine[6] = 1, 4, 5, 5  # on the bar
    theirs[1:7], theirs[13] = [2] * 6, 3  # against a closed board
    observations = [UserCommand(Command.SET_POSITION, player=0, position=Position(tuple(mine), tuple(theirs))),
                    DiceReading((6, 4), roller=0)]
    review = review_match(Referee(MatchState.money()).replay(observations), engine, ("A", "B"))
    play = next(d for d in review.decisions if d.kind == "play")
    assert play.forced and play.played == "cannot move"
    assert GameState.from_xgid(play.xgid).dice == Roll(6, 4)
