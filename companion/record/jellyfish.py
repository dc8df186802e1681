"""Reading and writing Jellyfish match files (`.mat`, `.txt`), as GNU Backgammon, XG, Galaxy and Studio write them.

Reading gives a `MatchRecord`: per game, the starting score and the actions in the order they happened,
each with its player (0 = the left column, "Player 1" in the header; 1 = the right column), line number and
move number. Nothing is judged here; `companion.record.audit` replays a record with the rules.

Quirks of real files that are accepted: the bar written `25`/`Bar`, off written `0`/`Off`, hits without `*`,
CRLF line ends and a byte-order mark, names with spaces, `dd: ????` for a roll left unplayed when the game
ended, Galaxy's `Losses N point` for a resignation, `N point match` headers of any length.
"""

from __future__ import annotations

import re
from pathlib import Path

from companion.errors import MatchFileError
from companion.record.model import Action, ActionKind, GameRecord, MatchRecord


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


# -- writing --------------------------------------------------------------------------------------------

_COLUMN = 28
"""Width of a player's column after the move number, as GNU Backgammon writes it."""


def format_match_text(record: MatchRecord) -> str:
    """The record as a Jellyfish `.mat` text that GNU Backgammon and eXtreme Gammon import.

    `.mat` cannot carry an illegal play that stood or a position set by hand: those raise
    `MatchFileError` (export such a match to `.sgf`)."""
    lines: list[str] = []
    for key, value in record.metadata.items():
        lines.append(f'; [{key} "{value}"]')
    if record.metadata:
        lines.append("")
    lines += [f" {record.length} point match", ""]
    for game in record.games:
        lines += _format_game(record, game)
    return "\n".join(lines) + "\n"


def _format_game(record: MatchRecord, game: GameRecord) -> list[str]:
    left = f" {record.players[0]} : {game.score[0]}"
    cells: list[list[str]] = []  # each numbered line: [left cell, right cell]
    slot = 0  # the next cell, counting left and right cells of every line in turn
    wins: list[tuple[int, str]] = []
    for action in game.actions:
        if action.kind is ActionKind.WIN:
            points = action.value or 1
            last = game is record.games[-1] and record.length and game.score[action.player] + points >= record.length
            text = f"Wins {points} point{'s' * (points != 1)}{' and the match' if last else ''}"
            if action.player == 1 and slot % 2 == 1 and len(cells) > slot // 2:
                cells[slot // 2][1] = " " + text  # beside the loser's last action, as GNU Backgammon writes it
            else:
                wins.append((action.player, text))
            continue
        text = _cell(action, record, game)
        if text is None:
            continue
        if slot % 2 != action.player:  # the other player's cell stays empty
            slot += 1
        while len(cells) <= slot // 2:
            cells.append(["", ""])
        cells[slot // 2][slot % 2] = text
        slot += 1
    # the right column starts where the right player's name does: wide enough for the longest left cell
    width = max([_COLUMN, len(left) - 4] + [len(a) + 2 for a, _ in cells])
    out = [f" Game {game.number}", f"{left:<{5 + width}}{record.players[1]} : {game.score[1]}"]
    for number, (a, b) in enumerate(cells, start=1):
        out.append(f"{number:>3}) {a:<{width}}{b}")  # trailing blanks kept: gnubg reads a lone "Takes" wrongly without them
    for player, text in wins:
        out.append(" " * (6 if player == 0 else 5 + width + 1) + text)
    return out + ["", ""]


def _cell(action: Action, record: MatchRecord, game: GameRecord) -> str | None:
    kind = action.kind
    if kind is ActionKind.ROLL:
        d1, d2 = action.dice  # type: ignore[misc]
        return f"{d1}{d2}: {action.notation}"
    if kind is ActionKind.UNPLAYED:
        d1, d2 = action.dice  # type: ignore[misc]
        return f"{d1}{d2}: ????"
    if kind is ActionKind.DOUBLE:
        return f" Doubles => {action.value}"
    if kind is ActionKind.BEAVER:
        return f" Beavers => {action.value}"
    if kind is ActionKind.TAKE:
        return " Takes"
    if kind is ActionKind.DROP:
        return " Drops"
    if kind is ActionKind.RESIGN:
        return None  # Jellyfish has no resignation line: the `Wins` line after it says what was won
    what = "an illegal play stood" if kind is ActionKind.STOOD else "the position was set by hand"
    raise MatchFileError(f"game {game.number}: {what}, which a .mat file cannot carry; export to .sgf instead")


def write_match_file(record: MatchRecord, path: str | Path) -> None:
    """Write `record` as `.mat`, atomically (a crash leaves the old file or the new one, never half)."""
    from companion.files import write_atomically

    write_atomically(Path(path), format_match_text(record))
