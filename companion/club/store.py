"""Where the server keeps the club's matches: every journal line of every board as received (with its sequence
number, so a line is stored once however often it is sent), the matches' names, flags and results, and a log of
refused messages. SQLite by default (one file, WAL mode), PostgreSQL with a postgresql:// URL; SQLAlchemy Core,
so both run the same statements.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from companion.errors import ClubError

meta = sa.MetaData()
matches = sa.Table(
    "club_matches", meta,
    sa.Column("event", sa.String(32), primary_key=True),
    sa.Column("board", sa.String(40), primary_key=True),  # a board name (32) and an earlier match's `~k`
    sa.Column("header", sa.Text, nullable=False),
    sa.Column("last_n", sa.Integer, nullable=False),
    sa.Column("label", sa.Text, nullable=False, default=""),
    sa.Column("result", sa.Text, nullable=False, default=""),
    sa.Column("disagreements", sa.Text, nullable=False, default="[]"),
    sa.Column("updated", sa.Float, nullable=False),
)
entries = sa.Table(
    "club_entries", meta,
    sa.Column("event", sa.String(32), primary_key=True),
    sa.Column("board", sa.String(40), primary_key=True),  # a board name (32) and an earlier match's `~k`
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("line", sa.Text, nullable=False),
    sa.Column("received", sa.Float, nullable=False),
)
events = sa.Table(
    "club_events", meta,
    sa.Column("event", sa.String(32), primary_key=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("started", sa.Float, nullable=False),
)
refused = sa.Table(
    "club_refused", meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("time", sa.Float, nullable=False),
    sa.Column("topic", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
)


_MOVE = (matches.update()
         .where(matches.c.event == sa.bindparam("e"), matches.c.board == sa.bindparam("b"),
                matches.c.last_n == sa.bindparam("prev"))
         .values(last_n=sa.bindparam("new"), updated=sa.bindparam("t")))


@dataclass(frozen=True, slots=True)
class StoredMatch:
    event: str
    board: str
    header: dict[str, Any]
    last_n: int
    label: str
    result: str
    disagreements: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Line:
    """One journal line to store: its board, number, content, and the server referee's disagreement if any."""

    board: str
    n: int
    line: dict[str, Any]
    disagreement: str | None = None


def database_url(db: str) -> str:
    """A file name or URL as the user gives it, as SQLAlchemy wants it."""
    if db.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if "://" in db:
        return db
    return f"sqlite:///{Path(db).expanduser()}"


class Store:
    def __init__(self, db: str) -> None:
        url = database_url(db)
        try:
            if url.startswith("sqlite"):
                self.engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
                sa.event.listen(self.engine, "connect", _sqlite_pragmas)
            else:
                self.engine = sa.create_engine(url, pool_pre_ping=True)
            meta.create_all(self.engine)
        except SQLAlchemyError as exc:
            shown = sa.engine.make_url(url).render_as_string(hide_password=True)  # the message goes to a log
            raise ClubError(f"cannot open the database {shown}: {exc.__class__.__name__}: "
                            f"{str(exc).replace(db, shown)[:200]}") from exc

    def add(self, event: str, board: str, n: int, line: dict[str, Any], disagreement: str | None = None) -> bool:
        """Store line `n` of a board if it is the next one (0 = the header); False if it is not (nothing changes).
        The line and the match's last number change in one transaction."""
        now = time.time()
        with self.engine.begin() as c:
            row = c.execute(sa.select(matches.c.last_n, matches.c.disagreements)
                            .where(matches.c.event == event, matches.c.board == board)).first()
            last = -1 if row is None else row.last_n
            if n != last + 1:
                return False
            if n == 0:
                c.execute(matches.insert().values(event=event, board=board, header=json.dumps(line), last_n=0,
                                                  label="", result="", disagreements="[]", updated=now))
            else:
                values: dict[str, Any] = {"last_n": n, "updated": now}
                if disagreement:
                    values["disagreements"] = json.dumps(json.loads(row.disagreements) + [disagreement])
                c.execute(matches.update().where(matches.c.event == event, matches.c.board == board,
                                                 matches.c.last_n == last).values(**values))
            c.execute(entries.insert().values(event=event, board=board, n=n, line=json.dumps(line), received=now))
        return True

    def add_lines(self, event: str, lines: list[Line], refusals: list[tuple[str, str]] = (),
                  renames: list[tuple[str, str]] = ()) -> None:
        """Store lines (each the next of its board, in order) and log refusals, all in one transaction; raises
        ClubError, storing nothing, if a line is not the next one of its board. `renames` (old, new) move matches
        first, with their lines (a board's match making way for its next one)."""
        if not lines and not refusals and not renames:
            return
        now = time.time()
        by_board: dict[str, list[Line]] = {}
        for line in lines:
            by_board.setdefault(line.board, []).append(line)
        with self.engine.begin() as c:
            for old, new in renames:
                for table in (matches, entries):
                    c.execute(table.update().where(table.c.event == event, table.c.board == old).values(board=new))
            # one query for the batch's boards and one statement for their new numbers: a batch holds lines of
            # up to a few hundred boards, and building a statement per board cost more than the disk
            known = {r.board: r for r in c.execute(
                sa.select(matches.c.board, matches.c.last_n, matches.c.disagreements)
                .where(matches.c.event == event, matches.c.board.in_(list(by_board))))}
            moves = []
            for board, group in by_board.items():
                row = known.get(board)
                last = -1 if row is None else row.last_n
                if [line.n for line in group] != list(range(last + 1, last + 1 + len(group))):
                    raise ClubError(f"board {board}: lines {group[0].n}..{group[-1].n} do not follow line {last}")
                flags = [line.disagreement for line in group if line.disagreement]
                if group[0].n == 0:
                    c.execute(matches.insert().values(event=event, board=board, header=json.dumps(group[0].line),
                                                      last_n=group[-1].n, label="", result="",
                                                      disagreements=json.dumps(flags), updated=now))
                    continue
                moves.append({"e": event, "b": board, "prev": last, "new": group[-1].n, "t": now})
                if flags:
                    c.execute(matches.update().where(matches.c.event == event, matches.c.board == board)
                              .values(disagreements=json.dumps(json.loads(row.disagreements) + flags)))
            if moves:
                c.execute(_MOVE, moves)
            if lines:
                c.execute(entries.insert(), [{"event": event, "board": line.board, "n": line.n,
                                              "line": json.dumps(line.line), "received": now} for line in lines])
            if refusals:
                c.execute(refused.insert(), [{"time": now, "topic": t[:200], "reason": r[:500]} for t, r in refusals])

    def last_n(self, event: str, board: str) -> int:
        with self.engine.connect() as c:
            value = c.execute(sa.select(matches.c.last_n).where(matches.c.event == event,
                                                                matches.c.board == board)).scalar()
        return -1 if value is None else int(value)

    def lines(self, event: str, board: str) -> list[dict[str, Any]]:
        """Every stored line of a board's match, header first, in order."""
        with self.engine.connect() as c:
            rows = c.execute(sa.select(entries.c.line).where(entries.c.event == event, entries.c.board == board)
                             .order_by(entries.c.n)).all()
        return [json.loads(r.line) for r in rows]

    def matches(self, event: str | None = None) -> list[StoredMatch]:
        query = sa.select(matches).order_by(matches.c.event, matches.c.board)
        if event is not None:
            query = query.where(matches.c.event == event)
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return [StoredMatch(r.event, r.board, json.loads(r.header), r.last_n, r.label, r.result,
                            tuple(json.loads(r.disagreements))) for r in rows]

    def set_label(self, event: str, board: str, label: str) -> bool:
        return self._update(event, board, label=label)

    def set_result(self, event: str, board: str, result: str) -> bool:
        return self._update(event, board, result=result)

    def _update(self, event: str, board: str, **values: Any) -> bool:
        with self.engine.begin() as c:
            done = c.execute(matches.update().where(matches.c.event == event, matches.c.board == board)
                             .values(**values)).rowcount
        return bool(done)

    def start_event(self, event: str, title: str) -> None:
        """The director opens (or renames) the event: its title heads the page."""
        with self.engine.begin() as c:
            done = c.execute(events.update().where(events.c.event == event).values(title=title)).rowcount
            if not done:
                c.execute(events.insert().values(event=event, title=title, started=time.time()))

    def event_title(self, event: str) -> str | None:
        with self.engine.connect() as c:
            return c.execute(sa.select(events.c.title).where(events.c.event == event)).scalar()

    def refuse(self, topic: str, reason: str) -> None:
        with self.engine.begin() as c:
            c.execute(refused.insert().values(time=time.time(), topic=topic[:200], reason=reason[:500]))

    def refusals(self) -> list[tuple[str, str]]:
        with self.engine.connect() as c:
            return [(r.topic, r.reason) for r in c.execute(sa.select(refused).order_by(refused.c.id)).all()]

    def close(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers (the web page) never wait for the writer
    # FULL: a line is on disk before the server acknowledges it, or a board would never send it again
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()
