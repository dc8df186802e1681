"""The README's examples and the command line behave as documented."""

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from tests.conftest import MATCHES

ROOT = Path(__file__).resolve().parents[1]


def test_readme_examples_run():
    text = (ROOT / "README.md").read_text()
    block = text.split("```python", 1)[1].split("```", 1)[0]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block, {}, "README", "README.md", 0)
    result = doctest.DocTestRunner().run(test)
    assert result.failed == 0 and result.attempted >= 5


def test_module_docstrings_doctests():
    import companion.rules
    import companion.rules.position

    for module in (companion.rules, companion.rules.position):
        assert doctest.testmod(module).failed == 0


def test_help_lists_commands_and_each_has_help(capsys):
    assert main([]) == 0
    listed = capsys.readouterr().out
    assert "check" in listed and "dicecup" in listed
    out = subprocess.run([sys.executable, "-m", "companion.cli", "check", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "Exit status" in out.stdout
    out = subprocess.run([sys.executable, "-m", "companion.cli", "dicecup", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--simulate" in out.stdout


def test_dicecup_simulate_prints_rolls():
    out = subprocess.run([sys.executable, "-m", "companion.cli", "dicecup", "--simulate", "--rolls", "2",
                          "--seed", "3", "--seconds", "20"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rolls = [line for line in out.stdout.splitlines() if line.startswith("roll ")]
    assert [r.split(":")[0] for r in rolls] == ["roll 1", "roll 2"]
    assert "dice cup connected" in out.stdout


def test_check_exit_codes_and_json(tmp_path, capsys):
    good = MATCHES / "gbf__test.mat"
    assert main(["check", str(good)]) == 0
    assert "legal" in capsys.readouterr().out
    bad = tmp_path / "bad.mat"
    bad.write_text((MATCHES / "bglab__match10090396.txt").read_text().replace("43: 13/9 24/21", "43: 13/9 24/20", 1))
    assert main(["check", "--json", str(bad)]) == 1
    report = json.loads(capsys.readouterr().out)
    finding = report["files"][0]["findings"][0]
    assert finding["game"] == 1 and finding["kind"] == "illegal-play" and finding["player"] == "lasse"
    assert main(["check", str(tmp_path / "missing.mat")]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err


def test_readme_main_command_runs_the_demo():
    text = (ROOT / "README.md").read_text()
    first = text.split("```sh", 1)[1].split("```", 1)[0]
    assert first.strip().endswith("companion demo")
    out = subprocess.run([sys.executable, "-m", "companion.cli", "demo", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "no camera" in out.stdout


def test_a_mistyped_command_is_told_the_nearest_one(capsys):
    """`companion demmo` listed all fifteen commands, the one meant among them, with no hint which."""
    with pytest.raises(SystemExit) as stopped:
        main(["demmo"])
    assert stopped.value.code == 2
    assert "no command 'demmo': did you mean 'demo'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["zzz"])
    err = capsys.readouterr().err
    assert "no command 'zzz'" in err and "did you mean" not in err and "companion --help" in err
