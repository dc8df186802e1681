"""Hostile and broken messages: refused and logged, the server goes on, stored matches do not change; the
broker keeps a board to its own topics and turns away unknown users."""

from __future__ import annotations

import json
import time

import paho.mqtt.client as mqtt
import pytest

from companion.club.broker import BrokerConfig, LocalBroker, acl_text, free_port
from companion.club.publisher import Publisher
from companion.club.server import ClubServer
from companion.club.topics import MAX_PAYLOAD, SERVER_USER, ClubURL, JournalMessage, board_user
from companion.errors import ClubError

from .conftest import BOARDS, EVENT, journal_lines, listening_addresses, make_journal, wait_for


def _client(url: ClubURL, user: str, password: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"hostile-{user}-{time.time()}")
    client.username_pw_set(user, password)
    client.connect(url.host, url.port)
    client.loop_start()
    return client


@pytest.fixture
def stored_board(tmp_path, broker, url, store, demo_match):
    """Board 1 with the first 20 lines of a match stored, and the server running."""
    header, observations = demo_match
    journal = tmp_path / "board1.jsonl"
    board = make_journal(journal, header, observations[:20])
    server = ClubServer(store, url, password=broker.passwords[SERVER_USER]).start()
    wait_for(server.subscribed, what="the server subscribed")
    publisher = Publisher(board.journal, url, "1", password=broker.passwords[board_user("1")]).start()
    assert publisher.flush(20)
    publisher.stop()
    board.close()
    yield server, journal_lines(journal)
    server.stop()


def test_hostile_messages_are_refused_logged_and_change_nothing(broker, url, store, stored_board):
    server, lines = stored_board
    # (lines the server met before it had subscribed were refused out of sequence and sent again: not this test's)
    refused, duplicates, logged = server.stats["refused"], server.stats["duplicates"], len(store.refusals())
    before = store.lines(EVENT, "1")
    topic = f"club/{EVENT}/1/journal"
    client = _client(url, board_user("1"), broker.passwords[board_user("1")])
    next_line = dict(lines[5], n=len(lines))  # a real observation, but with a number that is not its own
    hostile = [
        b"\x00\xffgarbage",
        b"[1, 2, 3]",
        b"{" + b" " * (MAX_PAYLOAD + 10) + b"}",
        JournalMessage("1", len(lines) + 5, lines[5]).encode(),          # skips ahead: out of sequence
        JournalMessage("2", len(lines), lines[5]).encode(),              # says it is another board
        JournalMessage("1", len(lines), {"n": len(lines), "obs": {"type": "dice", "values": "xx"}}).encode(),
        JournalMessage("1", len(lines), {"n": len(lines), "obs": {"type": "nonsense"}}).encode(),
        JournalMessage("1", len(lines), next_line | {"n": 3}).encode(),  # a line that claims another number
    ]
    for payload in hostile:
        client.publish(topic, payload, qos=1).wait_for_publish(5)
    wait_for(lambda: server.stats["refused"] >= refused + len(hostile), what="every hostile message refused")
    client.publish(topic, JournalMessage("1", 3, lines[3]).encode(), qos=1).wait_for_publish(5)  # a replay
    wait_for(lambda: server.stats["duplicates"] >= duplicates + 1, what="the replay seen")
    reasons = [reason for _topic, reason in store.refusals()[logged:]]
    assert len(reasons) == len(hostile)
    assert any("not JSON" in r for r in reasons) and any("byte limit" in r for r in reasons)
    assert any("out of sequence" in r for r in reasons) and any("says it is board '2'" in r for r in reasons)
    assert store.lines(EVENT, "1") == before  # nothing stored changed
    assert server.summary("1")["n"] == len(lines) - 1
    client.loop_stop()
    client.disconnect()


def test_a_board_cannot_publish_as_another_board(broker, url, store, stored_board):
    server, lines = stored_board
    refused = server.stats["refused"]  # (the fixture's own, if its first lines came before the subscription)
    # board 2 has its own credentials, but the broker's ACL keeps it off board 1's topic (and board 3's)
    client = _client(url, board_user("2"), broker.passwords[board_user("2")])
    for board in ("1", "3"):
        client.publish(f"club/{EVENT}/{board}/journal", JournalMessage(board, len(lines) if board == "1" else 0,
                       lines[0] if board == "3" else lines[5] | {"n": len(lines)}).encode(), qos=1)
    # then its own header: the broker passes one client's messages on in order, so once this one is stored the
    # two before it would have been handled too, had the broker let them through
    client.publish(f"club/{EVENT}/2/journal", JournalMessage("2", 0, lines[0]).encode(), qos=1)
    wait_for(lambda: "2" in server.boards and server.stats["stored"] >= len(lines) + 1, what="board 2's own header")
    assert "3" not in server.boards and server.stats["refused"] == refused
    assert server.stats["stored"] == len(lines) + 1
    assert store.lines(EVENT, "1") == lines
    client.loop_stop()
    client.disconnect()


def test_the_broker_refuses_wrong_passwords_and_anonymous_users(broker, url):
    for user, password in ((board_user("1"), "wrong"), (board_user("99"), "x"), (None, None)):
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if user:
            client.username_pw_set(user, password)
        reasons = []
        client.on_connect = lambda _c, _u, _f, reason, _p: reasons.append(reason)
        client.connect(url.host, url.port)
        client.loop_start()
        wait_for(lambda: reasons, what="the broker's answer")
        client.loop_stop()
        assert reasons[0].is_failure, user


def test_the_broker_listens_on_localhost_only(broker):
    conf = (broker.config.folder / "mosquitto.conf").read_text()
    assert f"listener {broker.config.port} 127.0.0.1" in conf and "allow_anonymous false" in conf
    assert listening_addresses(broker.config.port) == {"127.0.0.1"}  # what the kernel says, not only the file
    assert acl_text(EVENT, ("7",)).count("topic write") == 2  # the server's acks and board 7's own journal
    assert "topic write club/clubnight/7/journal" in acl_text(EVENT, ("7",))


def test_bad_names_and_urls_are_user_errors():
    for bad in ("http://x/e", "mqtt:///e", "mqtt://host/", "mqtt://host/a+b", "mqtt://host/#"):
        with pytest.raises(ClubError):
            ClubURL.parse(bad)
    assert ClubURL.parse("mqtts://u:p@h/ev") == ClubURL("h", 8883, "ev", True, "u", "p")
    assert json.loads(JournalMessage("1", 0, {}).encode())["board"] == "1"


def test_the_broker_listens_on_every_interface_only_when_asked(tmp_path):
    with LocalBroker(BrokerConfig(tmp_path / "open", EVENT, BOARDS, free_port(), listen="0.0.0.0")) as open_broker:
        assert listening_addresses(open_broker.config.port) == {"0.0.0.0"}
        assert open_broker.url().startswith("mqtt://127.0.0.1:")


def test_passwords_are_private_and_kept_across_restarts(tmp_path):
    config = BrokerConfig(tmp_path / "b", EVENT, BOARDS, free_port())
    first = LocalBroker(config).passwords
    again = LocalBroker(BrokerConfig(config.folder, EVENT, BOARDS + ("4",), config.port)).passwords
    assert {u: again[u] for u in first} == first and board_user("4") in again
    assert len(set(again.values())) == len(again)  # one password per board
    for name in ("credentials.json", "passwd"):
        assert (config.folder / name).stat().st_mode & 0o077 == 0
    assert first[board_user("1")] not in (config.folder / "passwd").read_text()  # hashed by mosquitto_passwd


def test_a_board_whose_events_differ_from_the_referee_is_flagged_not_trusted(tmp_path, store, demo_match):
    header, observations = demo_match
    journal = tmp_path / "liar.jsonl"
    make_journal(journal, header, observations[:12]).close()
    lines = journal_lines(journal)
    # the board claims a different verdict for line 6 than its observation gives
    played = next(n for n, line in enumerate(lines[1:], start=1) if line["events"])
    lines[played] = dict(lines[played], events=[{"type": "play", "text": "Player says: 24/1 (legal)"}])
    server = ClubServer(store, ClubURL.parse(f"mqtt://127.0.0.1/{EVENT}"))
    for n, line in enumerate(lines):
        assert server.handle(f"club/{EVENT}/4/journal", JournalMessage("4", n, line).encode()) == "stored"
    flags = server.summary("4")["flags"]
    assert len(flags) == 1 and flags[0].startswith(f"line {played}: the board said ['Player says")
    assert store.matches(EVENT)[0].disagreements == tuple(flags)  # kept, and shown again after a restart
    assert ClubServer(store, ClubURL.parse(f"mqtt://127.0.0.1/{EVENT}")).summary("4")["flags"] == flags
    # the server's own referee decides what the match is: board 4's match is the honest journal's
    for n, line in enumerate(journal_lines(journal)):
        server.handle(f"club/{EVENT}/5/journal", JournalMessage("5", n, line).encode())
    liar, honest = server.summary("4"), server.summary("5")
    assert liar["plays"] == honest["plays"] and liar["points"] == honest["points"] and honest["flags"] == []
