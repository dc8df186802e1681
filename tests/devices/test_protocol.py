"""The dice cup protocol: golden vectors shared with the C tests, round trips, and a parser that noise cannot fool."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.devices.protocol import (
    Ack,
    Error,
    Heartbeat,
    Hello,
    LineParser,
    RollMessage,
    State,
    crc16,
    encode,
    frame,
)

VECTORS = Path(__file__).resolve().parents[2] / "firmware" / "tests" / "vectors.tsv"


def vectors() -> list[tuple[str, str]]:
    rows = []
    for line in VECTORS.read_text().splitlines():
        if line and not line.startswith("#"):
            body, framed = line.split("\t")
            rows.append((body, framed))
    return rows


def test_crc_check_value():
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("body, framed", vectors())
def test_golden_vectors(body, framed):
    assert frame(body) == framed.encode() + b"\n"


MESSAGES = [
    Hello(1, "1.0.0", "0000BEEF", "12345678"),
    Heartbeat(4294967295, "settling"),
    State("cocked"),
    RollMessage(65535, (6, 1)),
    Error(3, "level switch stuck"),
    Ack(17),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_round_trip(message):
    assert list(LineParser().feed(encode(message))) == [message]


def test_lines_split_anywhere_and_crlf_are_read():
    data = b"".join(encode(m) for m in MESSAGES).replace(b"\n", b"\r\n")
    parser = LineParser()
    got = []
    for i in range(0, len(data), 3):
        got += parser.feed(data[i:i + 3])
    assert got == MESSAGES and parser.rejected == 0


@pytest.mark.parametrize("bad", [
    b"ROLL 1 7 1*", b"ROLL 0 1 1", b"ROLL 1 1", b"ROLL -1 1 1", b"STATE dancing", b"HELLO 1 x 12 34",
    b"ROLL 1 \xff 1",
])
def test_wrong_fields_are_rejected_even_with_a_good_crc(bad):
    body = bad.split(b"*")[0]
    parser = LineParser()
    assert list(parser.feed(body + b"*%04X\n" % crc16(body))) == [] and parser.rejected == 1


def test_a_million_random_and_garbled_bytes_make_no_false_roll():
    rng = random.Random(20261121)
    parser = LineParser()
    good = [encode(RollMessage(rng.randint(1, 65535), (rng.randint(1, 6), rng.randint(1, 6)))) for _ in range(2000)]
    sent_rolls: list[RollMessage] = []
    chunks = []
    total = 0
    while total < 1_000_000:
        choice = rng.random()
        if choice < 0.4:  # pure noise, sometimes with newlines
            chunk = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
        elif choice < 0.8:  # a real roll line with one to three bytes garbled
            original = rng.choice(good)
            line = bytearray(original)
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(line) - 1)
                line[i] = (line[i] ^ (1 << rng.randrange(8))) or 1
            chunk = b"\n" + bytes(line)
            if bytes(line) == original:  # two flips of the same bit cancelled out: an intact line after all
                sent_rolls.append(next(iter(LineParser().feed(chunk))))
        elif choice < 0.9:  # a line cut short by a reset
            line = rng.choice(good)
            chunk = line[: rng.randrange(1, len(line) - 1)]
        else:  # an intact line, which must come through
            chunk = b"\n" + rng.choice(good)
            sent_rolls.append(next(iter(LineParser().feed(chunk))))
        chunks.append(chunk)
        total += len(chunk)
    received = [m for chunk in chunks for m in parser.feed(chunk) if isinstance(m, RollMessage)]
    # every roll received is one that was sent intact, and none was invented
    assert set(received) <= set(sent_rolls)
    assert len(received) >= 0.9 * len(sent_rolls)
    assert parser.rejected > 1000
