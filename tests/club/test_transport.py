"""A board's journal through a real Mosquitto to the server and its store: everything arrives, once, in order,
across a broker killed with -9, a server restarted and a board restarted."""

from __future__ import annotations

from companion.club.publisher import Publisher
from companion.club.server import ClubServer
from companion.club.store import Store
from companion.club.topics import SERVER_USER, board_user
from companion.record.journal import read_journal
from companion.record.recorder import Recorder

from .conftest import EVENT, journal_lines, make_journal, wait_for


def test_a_whole_match_arrives_once_and_is_refereed_again(tmp_path, broker, url, store, demo_match):
    header, observations = demo_match
    journal = tmp_path / "board1.jsonl"
    board = make_journal(journal, header, observations)
    server = ClubServer(store, url, password=broker.passwords[SERVER_USER]).start()
    wait_for(server.subscribed, what="the server subscribed")  # (a line before that is refused and sent again)
    publisher = Publisher(board.journal, url, "1", password=broker.passwords[board_user("1")]).start()
    try:
        assert publisher.flush(20), publisher.status()
        lines = journal_lines(journal)
        assert store.lines(EVENT, "1") == lines
        assert publisher.status().acked == len(lines) - 1
        summary = server.summary("1")
        assert summary["score"] == list(board.referee.match.score)
        assert summary["over"] and summary["winner"] == board.referee.match.winner()
        assert summary["flags"] == [] and server.stats["refused"] == 0
        assert summary["players"] == list(header.players)
    finally:
        publisher.stop()
        server.stop()
        board.close()
    kept = read_journal(journal)
    assert kept.acked == len(lines) - 1  # kept in the journal itself
    assert len(kept.observations) == len(observations)  # ... and the match reads as it was
    assert journal_lines(journal) == lines


def test_nothing_lost_or_doubled_across_kills_and_restarts(tmp_path, broker, url, demo_match):
    header, observations = demo_match
    journal = tmp_path / "board2.jsonl"
    third = len(observations) // 3
    board = make_journal(journal, header, observations[:third])
    db = str(tmp_path / "faults.db")
    store = Store(db)
    password = broker.passwords[board_user("2")]
    server = ClubServer(store, url, password=broker.passwords[SERVER_USER]).start()
    publisher = Publisher(board.journal, url, "2", password=password, resend_after=0.5).start()
    try:
        wait_for(lambda: store.last_n(EVENT, "2") >= 5, what="the first lines")
        broker.kill()  # kill -9 the broker while the board is sending
        for observation in observations[third:2 * third]:
            board.observe(observation)  # the match goes on while the link is down
            board.journal.append_hints(len(board.observations) % 2 == 0)  # the app's `h`, never sent: not an entry
        assert not publisher.status().connected or publisher.status().waiting > 0
        broker.start()
        wait_for(lambda: store.last_n(EVENT, "2") >= third, what="lines after the broker came back")
        wait_for(lambda: publisher.status().acked >= third, what="the server's acknowledgement")
        server.stop()  # the server goes away and a new one replays the store
        store.close()
        publisher.stop()  # ... and the board restarts too
        board.close()
        board = Recorder.resume(journal)
        acked = read_journal(journal).acked
        assert acked >= third  # the journal remembers how far the server had got
        for observation in observations[2 * third:]:
            board.observe(observation)
        store = Store(db)
        server = ClubServer(store, url, password=broker.passwords[SERVER_USER]).start()
        publisher = Publisher(board.journal, url, "2", password=password, resend_after=0.5)
        assert publisher.acked == acked  # sending resumes after it, not from the header
        publisher.start()
        assert publisher.flush(30), publisher.status()
        lines = journal_lines(journal)
        assert store.lines(EVENT, "2") == lines  # every line, once, in order
        assert server.summary("2")["score"] == list(board.referee.match.score)
        assert server.summary("2")["flags"] == []
    finally:
        publisher.stop()
        server.stop()
        store.close()
        board.close()


def test_status_counts_what_waits_while_offline(tmp_path, broker, url, demo_match):
    header, observations = demo_match
    journal = tmp_path / "board3.jsonl"
    board = make_journal(journal, header, observations[:10])
    broker.stop()
    publisher = Publisher(board.journal, url, "3", password=broker.passwords[board_user("3")]).start()
    try:
        wait_for(lambda: publisher.status().waiting == 11, what="the journal read")
        status = publisher.status()
        assert not status.connected and status.text() == "club: offline, 11 waiting"  # the header and 10 entries
    finally:
        publisher.stop()
        board.close()


def test_flush_waits_for_the_lines_written_just_before_it(tmp_path, broker, url, store, demo_match):
    header, observations = demo_match
    journal = tmp_path / "board1.jsonl"
    board = make_journal(journal, header, observations[:5])
    server = ClubServer(store, url, password=broker.passwords[SERVER_USER]).start()
    # a publisher that looks at its journal rarely: flush itself must make it look
    publisher = Publisher(board.journal, url, "1", password=broker.passwords[board_user("1")], poll=30).start()
    try:
        assert publisher.flush(20)
        for observation in observations[5:9]:
            board.observe(observation)
        assert publisher.flush(20), publisher.status()
        assert store.lines(EVENT, "1") == journal_lines(journal) and len(journal_lines(journal)) == 10
    finally:
        publisher.stop()
        server.stop()
        board.close()
