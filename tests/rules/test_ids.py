"""Position ID, Match ID and XGID against GNU Backgammon's own encoder and parser, on 1,000 random states."""

import random

import pytest

from companion.errors import InvalidIdError
from companion.rules import GameState, MatchKey, MatchState, Phase, Position, Roll
from companion.rules.ids import decode_match_id, encode_match_id
from companion.rules.xgid import XgidState, format_xgid, parse_xgid
from tests.oracles.gnubg_oracle import quiet
from tests.oracles.samples import random_play_pairs


def random_states(seed: int, count: int):
    rng = random.Random(seed)
    positions = [p for p, _ in random_play_pairs(seed, count * 5)]
    for position in rng.sample(positions, count):
        length = rng.choice([0, 1, 3, 5, 7, 9, 11, 15, 25])
        # money play: gnubg's cubeinfo carries no session score, so its Match ID has 0-0 there
        score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
        crawford = length > 1 and (length - 1) in score and rng.random() < 0.5
        cube = 1 if crawford else rng.choice([1, 1, 2, 4, 8, 16, 32, 64])
        owner = None if cube == 1 else rng.choice([0, 1])
        dice_owner = rng.choice([0, 1])
        doubled = cube < 64 and not crawford and owner in (None, dice_owner) and rng.random() < 0.15
        dice = (0, 0) if doubled or rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))
        jacoby = not length and rng.random() < 0.5
        key = MatchKey(cube=cube, cube_owner=owner, dice_owner=dice_owner, crawford=crawford, game_state=1,
                       turn=1 - dice_owner if doubled else dice_owner, doubled=doubled, dice=dice,
                       match_length=length, score=score, jacoby=jacoby)
        yield position, key


STATES = list(random_states(1121, 1000))


def _gnubg_match_id(gnubg, key: MatchKey) -> str:
    gnubg.command(f"set jacoby {'on' if key.jacoby else 'off'}")
    cube_info = gnubg.cubeinfo(key.cube, -1 if key.cube_owner is None else key.cube_owner, key.dice_owner,
                               key.match_length, key.score, int(key.crawford), 0)
    cube_info["jacoby"] = int(key.jacoby)  # cubeinfo() takes it from the current match, not the setting
    pos_info = gnubg.posinfo(key.turn, key.resigned, int(key.doubled), key.game_state, key.dice)
    return gnubg.matchid(cube_info, pos_info)


def test_position_ids_equal_gnubgs_on_1000_positions():
    def run(gnubg):
        return [gnubg.positionid((p.opponent[1:26], p.player[1:26])) for p, _ in STATES]

    theirs = quiet(run)
    assert [p.position_id() for p, _ in STATES] == theirs


def test_match_ids_equal_gnubgs_on_1000_states():
    theirs = quiet(lambda gnubg: [_gnubg_match_id(gnubg, k) for _, k in STATES])
    ours = [encode_match_id(k) for _, k in STATES]
    mismatches = [(k, o, t) for (_, k), o, t in zip(STATES, ours, theirs) if o != t]
    assert not mismatches, mismatches[:3]


def test_match_ids_round_trip():
    for _, key in STATES:
        assert decode_match_id(encode_match_id(key)) == key


def _xgid_state(position: Position, key: MatchKey) -> XgidState:
    match = MatchState(
        length=key.match_length, score=key.score, cube=key.cube, cube_owner=key.cube_owner, crawford=key.crawford,
        post_crawford=key.match_length > 1 and not key.crawford and key.match_length - 1 in key.score,
        jacoby=key.jacoby,
    )
    dice = Roll(*key.dice) if key.dice != (0, 0) else None
    return XgidState(position, match, key.dice_owner, dice, key.doubled)


def test_gnubg_reads_our_xgids_as_the_same_state():
    # gnubg cannot load an XGID with a double pending; those are covered by the round trip below
    states = [(p, k) for p, k in STATES if not k.doubled]

    def run(gnubg):
        out = []
        for position, key in states:
            gnubg.command(f"set jacoby {'on' if key.jacoby else 'off'}")
            gnubg.setgnubgid(format_xgid(_xgid_state(position, key)))
            out.append(gnubg.gnubgid())
        return out

    theirs = quiet(run)
    ours = [f"{p.position_id()}:{encode_match_id(k)}" for p, k in states]
    mismatches = [(format_xgid(_xgid_state(p, k)), o, t) for (p, k), o, t in zip(states, ours, theirs) if o != t]
    assert not mismatches, mismatches[:3]
    assert len(states) > 800


def test_xgids_round_trip():
    for position, key in STATES:
        state = _xgid_state(position, key)
        assert parse_xgid(format_xgid(state)) == state


def test_starting_position_xgid_is_the_well_known_one():
    assert Position.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10") == Position.start()
    game = GameState.new(MatchState.match_to(7)).opening_roll(5, 2)
    assert game.xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:-1:52:0:0:0:7:10"

    def run(gnubg):
        gnubg.setgnubgid(game.xgid())
        return gnubg.gnubgid()

    assert game.gnubg_id() == quiet(run)


def test_game_state_round_trips_through_both_id_kinds():
    for position, key in STATES[:200]:
        game = GameState.from_gnubg_id(position.position_id(), encode_match_id(key))
        assert game.match_id() == encode_match_id(key)
        assert GameState.from_xgid(game.xgid()).gnubg_id() == game.gnubg_id()
        if game.phase is Phase.DOUBLED:
            assert game.turn == key.turn


@pytest.mark.parametrize(
    "bad",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "////////////////", "4HPwATDgc/ABMA=", 42],
)
def test_malformed_position_ids_are_rejected_clearly(bad):
    with pytest.raises(InvalidIdError, match="Position ID|string"):
        Position.from_position_id(bad)


def test_a_malformed_id_says_how_long_it_is_and_which_character_is_wrong():
    """A 13-character Position ID was told "it has 14 characters", the length it should have had."""
    with pytest.raises(InvalidIdError, match="a Position ID has 14 characters, this has 13"):
        Position.from_position_id("4HPwATDgc/ABM")
    with pytest.raises(InvalidIdError, match=r"'!' \(character 5\) is not one of"):
        Position.from_position_id("4HPw!TDgc/ABMA")
    with pytest.raises(InvalidIdError, match="Position ID:Match ID pair; give the Position ID alone"):
        Position.from_position_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    with pytest.raises(InvalidIdError, match="a Match ID has 12 characters, this has 13"):
        decode_match_id("cAkAAAAAAAAAA")


def test_position_id_with_too_many_checkers_is_rejected():
    with pytest.raises(InvalidIdError, match="Position ID"):
        Position.from_position_id("//////////////")
    with pytest.raises(InvalidIdError, match="16 checkers"):
        Position.from_position_id("//8AAAAAAAAAAA")


@pytest.mark.parametrize(
    "bad, why",
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0", "fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10", "dice"),
        ("XGID=-b----P-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "15"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "must be a whole number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:9:0:0:7:10", "impossible"),
    ],
)
def test_malformed_xgids_are_rejected_clearly(bad, why):
    with pytest.raises(InvalidIdError, match=why):
        parse_xgid(bad)


def test_a_malformed_xgid_is_told_what_is_wrong_in_words():
    """A position part a character short said it "has 26 characters"; a letter where a number goes showed Python's
    own `invalid literal for int()`."""
    with pytest.raises(InvalidIdError, match=r"must be 26 characters, each '-', A-P or a-p \(it is 25\)"):
        parse_xgid("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:7:10")
    with pytest.raises(InvalidIdError, match=r"field 2 \('a'\) must be a whole number") as error:
        parse_xgid("XGID=-b----E-C---eE---c-e----B-:a:0:1:00:0:0:0:7:10")
    assert "invalid literal" not in str(error.value)
    for field in ("--1", "²", " 7"):  # no int() error escapes, and a Unicode digit is no number here
        with pytest.raises(InvalidIdError, match="must be a whole number"):
            parse_xgid(f"XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:{field}:10")
    # counted from 1, as the Position ID's messages count, and named by what it stands for
    with pytest.raises(InvalidIdError, match=r"character 25 of the position part \(the bottom player's 24-point\) "
                                             "is 'Z'"):
        parse_xgid("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:7:10")
    with pytest.raises(InvalidIdError, match=r"character 1 of the position part \(the top player's bar\) is '\?'"):
        parse_xgid("XGID=?b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10")
    with pytest.raises(InvalidIdError, match="character 26 of the position part is the bottom player's bar; top"):
        parse_xgid("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:7:10")
    assert parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:-1:52:0:0:0:7:10")  # a negative field stays a number
    # a trainee's 999999999999-point match crashed the engine with a traceback: past gnubg's 64 it is refused
    with pytest.raises(InvalidIdError, match="the match length field is 0 \\(money\\) to 64 points"):
        parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:999999999999:10")
    assert parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:64:10").match.length == 64
    from companion import cli
    from companion.rules.match import MAX_MATCH_LENGTH

    assert cli.MAX_LENGTH == MAX_MATCH_LENGTH  # the CLI's copy (it starts without the rules) says the same
