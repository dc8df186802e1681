"""Reading and writing Jellyfish match files (`.mat`, `.txt`), as GNU Backgammon, XG, Galaxy and Studio write them.

Reading gives a `MatchRecord`: per game, the starting score and the actions in the order they happened,
each with its player (0 = the left column, "Player 1" in the header; 1 = the right column), line number and
move number. Nothing is judged here; `companion.referee.audit` replays a record with the rules.

Quirks of real files that are accepted: the bar written `25`/`Bar`, off written `0`/`Off`, hits without `*`,
CRLF line ends and a byte-order mark, names with spaces, `dd: ????` for a roll left unplayed when the game
ended, Galaxy's `Losses N point` for a resignation, `N point match` headers of any length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from companion.errors import MatchFileError


class ActionKind(Enum):
    ROLL = "roll"
    """A roll and its play (the notation may be empty: no legal move)."""
    UNPLAYED = "unplayed"
    """`dd: ????`: rolled but not played because the game ended."""
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    WIN = "win"
    """`Wins N point(s) [and the match]`: N is not always what the game was worth (Galaxy)."""
    RESIGN = "resign"
    """`Losses N point`: the player resigned (Galaxy)."""


@dataclass(frozen=True, slots=True)
class Action:
    player: int
    kind: ActionKind
    line: int
    move: int
    dice: tuple[int, int] | None = None
    notation: str = ""
    value: int | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class GameRecord:
    number: int
    score: tuple[int, int]
    """Score at the start of the game, (left player, right player)."""
    actions: tuple[Action, ...]
    line: int


@dataclass(frozen=True, slots=True)
class MatchRecord:
    length: int
    """0 for money play."""
    players: tuple[str, str]
    games: tuple[GameRecord, ...]
    metadata: dict[str, str] = field(default_factory=dict)
    source: str = ""

    @property
    def crawford_rule(self) -> bool:
        return self.metadata.get("Crawford", "On").lower() != "off"

    @property
    def jacoby(self) -> bool:
        return self.length == 0


_META = re.compile(r'^;\s*\[(?P<key>[^"\]]+?)\s+"(?P<value>.*)"\]\s*$')
_LENGTH = re.compile(r"^\s*(?P<n>\d+)\s+point\s+match\s*$", re.I)
_GAME = re.compile(r"^\s*Game\s+(?P<n>\d+)\s*$", re.I)
_SCORE = re.compile(r"^\s*(?P<a>.+?)\s*:\s*(?P<sa>\d+)\s{2,}(?P<b>.+?)\s*:\s*(?P<sb>\d+)\s*$")
_MOVE = re.compile(r"^\s*(?P<n>\d+)\)(?P<rest>.*)$")
_ACTION = re.compile(
    r"(?P<roll>[1-6][1-6]):(?P<play>(?:\s*(?:(?:[0-9]+|bar|off)(?:/(?:[0-9]+|bar|off)\*?)+(?:\([1-4]\))?|cannot move|\?+))*)"
    r"|(?P<double>doubles\s*=>\s*(?P<dv>\d+))"
    r"|(?P<beaver>beavers\s*=>\s*(?P<bv>\d+))"
    r"|(?P<take>takes)"
    r"|(?P<drop>drops|passes)"
    r"|(?P<win>wins\s+(?P<wv>\d+)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<loss>losses\s+(?P<lv>\d+)\s+points?)",
    re.I,
)


def read_match_file(path: str | Path) -> MatchRecord:
    """Read a `.mat`/`.txt` file; raises `MatchFileError` with the file and line on anything unreadable."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise MatchFileError(f"cannot read {p}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return parse_match_text(text, source=str(p))


def parse_match_text(text: str, source: str = "<text>") -> MatchRecord:
    metadata: dict[str, str] = {}
    length: int | None = None
    players: tuple[str, str] | None = None
    games: list[GameRecord] = []
    current: dict | None = None
    right_column = 0

    def fail(lineno: int, why: str) -> MatchFileError:
        return MatchFileError(f"{source}, line {lineno}: {why}")

    def close_game() -> None:
        nonlocal current
        if current is not None:
            games.append(GameRecord(current["number"], current["score"], tuple(current["actions"]), current["line"]))
        current = None

    lines = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").split("\n")
    for lineno, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            m = _META.match(stripped)
            if m:
                metadata[m.group("key").strip()] = m.group("value")
            continue
        if m := _LENGTH.match(line):
            length = int(m.group("n"))
            continue
        if m := _GAME.match(line):
            close_game()
            current = {"number": int(m.group("n")), "score": None, "actions": [], "line": lineno}
            continue
        if current is None:
            raise fail(lineno, f"expected a header, 'N point match' or 'Game N', found {stripped[:40]!r}")
        if current["score"] is None:
            m = _SCORE.match(line)
            if not m:
                raise fail(lineno, f"expected the score line 'Name : 0   Name : 0', found {stripped[:40]!r}")
            current["score"] = (int(m.group("sa")), int(m.group("sb")))
            names = (m.group("a").strip(), m.group("b").strip())
            players = players or names
            right_column = line.index(m.group("b"), m.end("sa"))
            continue
        m = _MOVE.match(line)
        if m:
            move = int(m.group("n"))
            body_start = m.start("rest")
            body = m.group("rest")
        else:
            # a result line without a move number ("      Wins 1 point")
            move = current["actions"][-1].move if current["actions"] else 0
            body_start = 0
            body = line
        _parse_body(body, body_start, right_column, lineno, move, current["actions"], fail)
    close_game()
    if length is None:
        raise MatchFileError(f"{source}: no 'N point match' line; is this a Jellyfish match file?")
    if not games:
        raise MatchFileError(f"{source}: no games found")
    if players is None:  # pragma: no cover - a game always has a score line
        raise MatchFileError(f"{source}: no player names found")
    # Galaxy writes single money games (played with the Jacoby rule) as "16 point match"
    money = length == 16 and metadata.get("Site", "") == "BackgammonGalaxy" and len(games) == 1
    return MatchRecord(0 if money else length, players, tuple(games), metadata, source)


def _parse_body(body: str, body_start: int, right_column: int, lineno: int, move: int, out: list, fail) -> None:
    pos = 0
    found_any = False
    while pos < len(body):
        if body[pos].isspace():
            pos += 1
            continue
        m = _ACTION.match(body, pos)
        if not m:
            raise fail(lineno, f"cannot read {body[pos:].strip()[:40]!r}")
        found_any = True
        column = body_start + m.start()
        player = 0 if column < right_column - 1 else 1
        out.append(_action(m, player, lineno, move))
        pos = m.end()
    if not found_any and body.strip():
        raise fail(lineno, f"cannot read {body.strip()[:40]!r}")


def _action(m: re.Match, player: int, lineno: int, move: int) -> Action:
    text = m.group(0).strip()
    if m.group("roll"):
        dice = (int(m.group("roll")[0]), int(m.group("roll")[1]))
        play = " ".join(m.group("play").split())
        if "?" in play:
            return Action(player, ActionKind.UNPLAYED, lineno, move, dice=dice, text=text)
        if play.lower() == "cannot move":
            play = ""
        return Action(player, ActionKind.ROLL, lineno, move, dice=dice, notation=play, text=text)
    if m.group("double"):
        return Action(player, ActionKind.DOUBLE, lineno, move, value=int(m.group("dv")), text=text)
    if m.group("beaver"):
        return Action(player, ActionKind.BEAVER, lineno, move, value=int(m.group("bv")), text=text)
    if m.group("take"):
        return Action(player, ActionKind.TAKE, lineno, move, text=text)
    if m.group("drop"):
        return Action(player, ActionKind.DROP, lineno, move, text=text)
    if m.group("win"):
        return Action(player, ActionKind.WIN, lineno, move, value=int(m.group("wv")), text=text)
    return Action(player, ActionKind.RESIGN, lineno, move, value=int(m.group("lv")), text=text)
