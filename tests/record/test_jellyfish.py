import pytest

from companion.errors import MatchFileError
from companion.record.jellyfish import ActionKind, parse_match_text, read_match_file
from tests.conftest import MATCHES, match_files

SMALL = """; [Site "Test"]

3 point match

 Game 1
 Alice Smith : 0                 Bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def test_reads_every_real_file():
    records = [read_match_file(p) for p in match_files()]
    assert len(records) == 123  # plus one .sgf: 124 records in all
    assert sum(len(r.games) for r in records) > 350


def test_columns_players_names_with_spaces_and_cube_actions():
    record = parse_match_text(SMALL)
    assert record.length == 3 and record.players == ("Alice Smith", "Bob")
    kinds = [(a.player, a.kind) for a in record.games[0].actions]
    assert kinds == [(0, ActionKind.ROLL), (1, ActionKind.ROLL), (0, ActionKind.DOUBLE), (1, ActionKind.DROP),
                     (0, ActionKind.WIN)]


def test_crlf_bom_and_studio_unplayed_rolls():
    text = "\ufeff" + SMALL.replace("\n", "\r\n").replace("64: 24/18 13/9", "64: ????")
    record = parse_match_text(text)
    assert record.games[0].actions[1].kind is ActionKind.UNPLAYED


def test_galaxy_money_game_header():
    record = read_match_file(MATCHES / "bglab__match4143206.txt")
    assert record.length == 0  # "16 point match" from Galaxy: a money game with Jacoby


@pytest.mark.parametrize(
    "text, why",
    [
        ("hello\n", "line 1"),
        ("3 point match\n", "no games"),
        (" Game 1\n Alice : 0     Bob : 0\n  1) 31: 8/5 6/5\n", "no 'N point match'"),
        ("3 point match\n Game 1\n  1) 31: 8/5 6/5\n", "score line"),
        ("3 point match\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5 what\n", "cannot read"),
    ],
)
def test_bad_files_say_where_and_why(text, why):
    with pytest.raises(MatchFileError, match=why):
        parse_match_text(text, source="x.mat")


def test_truncated_real_file_is_an_error_or_an_unfinished_match(tmp_path):
    source = (MATCHES / "bglab__match10090396.txt").read_text()
    cut = tmp_path / "cut.mat"
    cut.write_text(source[: len(source) // 2] + "  99) 6")
    with pytest.raises(MatchFileError, match="cut.mat, line"):
        read_match_file(cut)


def test_unreadable_path():
    with pytest.raises(MatchFileError, match="cannot read"):
        read_match_file("/no/such/file.mat")
