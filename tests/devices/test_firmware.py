"""The firmware: its C core's host tests, the fairness of its dice, and the built AVR firmware run in simavr,
its serial output read by the Python parser and fed to the referee."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from companion.devices.protocol import Hello, LineParser, RollMessage, State
from companion.devices.simulator import fair_die
from companion.referee import DiceReading, OpeningRoll, Referee

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
# chi-square critical values at p = 0.001 (a fair die fails this once in a thousand runs; the seeds are fixed)
CRITICAL = {5: 20.515, 35: 66.619}


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


@pytest.fixture(scope="module")
def host_tests(tmp_path_factory) -> Path:
    binary = tmp_path_factory.mktemp("firmware") / "test_core"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-o", str(binary),
                    str(FIRMWARE / "tests" / "test_core.c"), str(FIRMWARE / "core" / "dicecup_core.c")], check=True)
    return binary


def test_the_c_core_passes_its_host_tests(host_tests):
    result = subprocess.run([str(host_tests), str(FIRMWARE / "tests" / "vectors.tsv")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "all core tests passed" in result.stdout


def test_the_firmware_dice_are_fair(host_tests):
    out = subprocess.run([str(host_tests), "--draws", "200000", "20261121"], capture_output=True, text=True,
                         check=True).stdout
    faces = [int(x) for x in re.search(r"faces (.*)", out).group(1).split()]
    pairs = [int(x) for x in re.search(r"pairs (.*)", out).group(1).split()]
    assert sum(faces) == 400_000 and sum(pairs) == 200_000
    assert chi_square(faces) < CRITICAL[5], faces
    assert chi_square(pairs) < CRITICAL[35], pairs


def test_the_chi_square_test_can_fail():
    # the mapping the firmware must never use: a byte modulo 6 favours 1-4 (43 byte values) over 5-6 (42)
    rng = random.Random(1)
    counts = [0] * 6
    for _ in range(2_000_000):
        counts[rng.getrandbits(8) % 6] += 1
    assert chi_square(counts) > CRITICAL[5]


def test_the_software_cup_dice_are_fair():
    rng = random.Random(5)
    faces, pairs = [0] * 6, [0] * 36
    for _ in range(100_000):
        a, b = fair_die(lambda: rng.getrandbits(8)), fair_die(lambda: rng.getrandbits(8))
        faces[a - 1] += 1
        faces[b - 1] += 1
        pairs[(a - 1) * 6 + b - 1] += 1
    assert chi_square(faces) < CRITICAL[5] and chi_square(pairs) < CRITICAL[35]


@pytest.fixture(scope="module")
def selftest_elf(tmp_path_factory) -> Path:
    if shutil.which("avr-gcc") is None or not Path("/usr/share/arduino/Arduino.mk").exists():
        pytest.fail("the AVR toolchain is missing: apt-get install gcc-avr avr-libc arduino-core-avr arduino-mk "
                    "simavr (.ci/run does this)")
    build = tmp_path_factory.mktemp("avr-build")
    subprocess.run(["make", "-s", "-C", str(FIRMWARE / "dicecup"), "SELFTEST=1", f"OBJDIR={build}"], check=True,
                   capture_output=True)
    elf = next(build.glob("*.elf"))
    return elf


def test_the_sketch_builds_for_the_uno(tmp_path):
    if shutil.which("avr-gcc") is None:
        pytest.fail("the AVR toolchain is missing (see firmware/README.md)")
    result = subprocess.run(["make", "-s", "-C", str(FIRMWARE / "dicecup"), f"OBJDIR={tmp_path}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert list(tmp_path.glob("*.hex"))


def _uart_text(output: bytes) -> bytes:
    """simavr prints the UART's lines in colour and shows each newline as a '.'"""
    return re.sub(rb"\x1b\[[0-9;]*m", b"", output)


def test_the_avr_firmware_in_simavr_sends_a_roll_the_referee_takes(selftest_elf):
    # simavr runs the firmware faster than real time (boot, the shake and a roll in well under 3 s of wall clock
    # on an idle machine); it runs until stopped, so its output is read until the roll has come, or 60 s
    process = subprocess.Popen(["simavr", "-m", "atmega328p", "-f", "16000000", str(selftest_elf)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = b""
    deadline = time.monotonic() + 60
    try:
        os.set_blocking(process.stdout.fileno(), False)
        while b"ROLL" not in _uart_text(output) and time.monotonic() < deadline and process.poll() is None:
            output += process.stdout.read() or b""
            time.sleep(0.05)
        assert b"ROLL" in _uart_text(output), "no roll from the firmware in 60 s of simavr"
        time.sleep(0.2)  # the rest of the roll's line
        output += process.stdout.read() or b""
    finally:
        process.kill()
        output += process.communicate()[0] or b""
    text = _uart_text(output)
    lines = [line[:-1] + b"\n" for line in text.splitlines() if line.endswith(b".")]
    messages = [m for line in lines for m in LineParser().feed(line)]
    assert isinstance(messages[0], Hello) and messages[0].protocol == 1
    assert [m.state for m in messages if isinstance(m, State)][:3] == ["shaking", "settling", "idle"]
    roll = next(m for m in messages if isinstance(m, RollMessage))
    assert roll.sequence == 1
    events = Referee().observe(DiceReading(roll.dice, sequence=roll.sequence))
    assert any(isinstance(e, OpeningRoll) and e.dice == roll.dice for e in events)
