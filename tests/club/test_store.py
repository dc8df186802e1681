"""The store, the same statements on SQLite (WAL) and on a real PostgreSQL started for the tests: each line once
and in order, a wrong number changes nothing, results and labels kept, the server rebuilt from it after a restart;
and a whole match through Mosquitto into PostgreSQL."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from companion.club.publisher import Publisher
from companion.club.server import ClubServer
from companion.club.store import Line, Store
from companion.club.topics import SERVER_USER, ClubURL, board_user
from companion.errors import ClubError

from .conftest import EVENT, feed, journal_lines, make_journal


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request, tmp_path):
    if request.param == "sqlite":
        store = Store(str(tmp_path / "club.db"))
    else:
        store = Store(request.getfixturevalue("postgres_url"))
    yield store
    store.close()


@pytest.fixture
def match_lines(tmp_path, demo_match):
    header, observations = demo_match
    make_journal(tmp_path / "j.jsonl", header, observations[:40]).close()
    return journal_lines(tmp_path / "j.jsonl")


def test_each_line_is_stored_once_and_in_order(any_store):
    event = f"e{uuid.uuid4().hex[:12]}"  # the PostgreSQL server is shared by the session's tests
    assert any_store.add(event, "1", 0, {"players": ["a", "b"]})
    assert not any_store.add(event, "1", 0, {"players": ["x", "y"]})  # the header again
    assert not any_store.add(event, "1", 2, {"n": 2})  # skips a line
    assert any_store.add(event, "1", 1, {"n": 1}, disagreement="line 1: they differ")
    assert not any_store.add(event, "1", 1, {"n": 1, "other": True})  # a replay with other content
    assert any_store.lines(event, "1") == [{"players": ["a", "b"]}, {"n": 1}]
    assert any_store.last_n(event, "1") == 1 and any_store.last_n(event, "2") == -1
    assert any_store.set_label(event, "1", "Top") and any_store.set_result(event, "1", "0")
    assert not any_store.set_label(event, "9", "none")
    stored = any_store.matches(event)[0]
    assert (stored.label, stored.result, stored.disagreements) == ("Top", "0", ("line 1: they differ",))
    any_store.start_event(event, "Club night")
    any_store.start_event(event, "Club night, round 2")
    assert any_store.event_title(event) == "Club night, round 2"
    any_store.refuse("club/x/1/journal", "garbage")
    assert ("club/x/1/journal", "garbage") in any_store.refusals()


def test_a_restarted_server_is_where_it_was(any_store, match_lines):
    url = ClubURL.parse(f"mqtt://127.0.0.1/e{uuid.uuid4().hex[:12]}")
    first = ClubServer(any_store, url)
    feed(first, "4", match_lines)
    first.set_label("4", "Window")
    again = ClubServer(any_store, url)  # replays every stored line through a new referee
    assert again.summary("4") == first.summary("4") | {"updated": again.summary("4")["updated"]}
    assert again.handle(f"club/{url.event}/4/journal", b"garbage").startswith("refused")
    assert again.summary("4")["n"] == len(match_lines) - 1


def test_sqlite_runs_in_wal_mode(tmp_path):
    store = Store(str(tmp_path / "wal.db"))
    with store.engine.connect() as c:
        assert c.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
    store.close()


def test_a_database_that_cannot_be_opened_is_a_user_error(tmp_path):
    with pytest.raises(ClubError, match="cannot open the database"):
        Store("postgresql://nobody:wrong@127.0.0.1:1/none")
    with pytest.raises(ClubError, match="cannot open the database"):
        Store(str(tmp_path / "no-such-folder" / "club.db"))


def test_a_match_through_mosquitto_into_postgresql(tmp_path, broker, url, postgres_url, demo_match):
    header, observations = demo_match
    journal = tmp_path / "pg.jsonl"
    board = make_journal(journal, header, observations)
    store = Store(postgres_url)
    server = ClubServer(store, url, password=broker.passwords[SERVER_USER]).start()
    publisher = Publisher(board.journal, url, "2", password=broker.passwords[board_user("2")]).start()
    try:
        assert publisher.flush(30), publisher.status()
        assert store.lines(EVENT, "2") == journal_lines(journal)
        assert server.summary("2")["over"] and server.summary("2")["flags"] == []
    finally:
        publisher.stop()
        server.stop()
        board.close()
        with store.engine.begin() as c:  # the server outlives this test: leave the event as it was found
            for table in ("club_entries", "club_matches"):
                c.execute(sa.text(f"DELETE FROM {table} WHERE event = :e"), {"e": EVENT})
        store.close()


def test_a_batch_is_stored_whole_or_not_at_all(any_store):
    event = f"e{uuid.uuid4().hex[:12]}"
    any_store.add_lines(event, [Line("1", 0, {"h": 1}), Line("1", 1, {"n": 1}), Line("2", 0, {"h": 2})],
                        [("club/x/9/journal", "garbage")])
    with pytest.raises(ClubError, match="do not follow"):
        any_store.add_lines(event, [Line("3", 0, {"h": 3}), Line("2", 1, {"n": 1}), Line("1", 3, {"n": 3})],
                            [("club/x/9/journal", "more garbage")])
    assert any_store.lines(event, "1") == [{"h": 1}, {"n": 1}] and any_store.lines(event, "2") == [{"h": 2}]
    assert any_store.last_n(event, "3") == -1 and any_store.last_n(event, "1") == 1
    assert ("club/x/9/journal", "more garbage") not in any_store.refusals()
