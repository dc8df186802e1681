"""Property tests: conservation, pips fall by exactly the dice played, IDs and notation round-trip."""

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import Position, Roll
from companion.rules.position import BAR


@st.composite
def positions(draw) -> Position:
    """Positions reached by random legal play from the start (every one is a position that can occur)."""
    position = Position.start()
    for _ in range(draw(st.integers(0, 120))):
        plays = position.legal_plays(draw(st.integers(1, 6)), draw(st.integers(1, 6)))
        position = plays[draw(st.integers(0, len(plays) - 1))].position
        if position.is_game_over():
            break
    return position


dice = st.integers(1, 6)


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_checkers_are_conserved(position, d1, d2):
    for play in position.legal_plays(d1, d2):
        after = play.position
        assert sum(after.player) == 15 and sum(after.opponent) == 15
        # hits only ever send the opponent's checkers to the bar
        assert after.player[BAR] - position.opponent[BAR] == play.hits


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_pips_fall_by_exactly_the_dice_played(position, d1, d2):
    before_mine, before_theirs = position.pip_counts()
    for play in position.legal_plays(d1, d2):
        theirs_after, mine_after = play.position.pip_counts()
        moved = sum(source - dest for source, dest, _ in play.moves)
        assert before_mine - mine_after == moved
        bore_off = any(dest == 0 for _, dest, _ in play.moves)
        if d1 == d2:
            assert moved == d1 * play.dice_used or (bore_off and moved < d1 * play.dice_used)
        elif play.dice_used == 2:
            assert moved == d1 + d2 or (bore_off and moved < d1 + d2)
        elif play.dice_used == 1:
            assert moved in (d1, d2) or (bore_off and moved < max(d1, d2))
        # each hit checker goes back to the bar: 25 pips for it, minus what it had left
        assert theirs_after >= before_theirs


@settings(max_examples=300, deadline=None)
@given(positions())
def test_position_id_round_trips(position):
    assert Position.from_position_id(position.position_id()) == position


@settings(max_examples=200, deadline=None)
@given(positions(), dice, dice)
def test_notation_names_its_own_play(position, d1, d2):
    roll = Roll(d1, d2)
    for play in position.legal_plays(roll):
        assert position.play(play.notation, roll) == play
