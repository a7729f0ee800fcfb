"""``python -m engine``: output formats and bad input (exit 2, one line on stderr)."""

import json
import os
import subprocess
import sys

import pytest


def run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


# perft counts in C where the accelerator is built, in Python with KONDAVO_ENGINE=python.
@pytest.mark.parametrize("engine", ["default", "python"])
def test_perft_prints_one_line_per_depth(engine):
    env = {**os.environ, "KONDAVO_ENGINE": "python"} if engine == "python" else None
    out = run("perft", "international", "4", env=env)
    assert out.returncode == 0
    lines = [line.split() for line in out.stdout.splitlines()]
    assert [(int(d), int(n)) for d, n, _ in lines] == [(1, 9), (2, 81), (3, 658), (4, 4265)]
    assert all(float(s) >= 0 for _, _, s in lines)


def test_perft_keep_duplicates_and_fen():
    out = run("perft", "russian", "1", "--fen", "W:Wb6:Bc7,f6", "--keep-duplicates")
    assert out.stdout.split()[:2] == ["1", "2"]


@pytest.mark.parametrize("engine", ["default", "python"])
def test_divide_lists_each_move_and_the_total(engine):
    env = {**os.environ, "KONDAVO_ENGINE": "python"} if engine == "python" else None
    out = run("divide", "english", "2", env=env)
    lines = out.stdout.splitlines()
    assert len(lines) == 8 and lines[-1] == "total 49"


def test_legal_prints_moves_in_notation_and_as_json():
    out = run("legal", "brazilian", "B:Wc5,e5,c3:Bd6")
    assert out.stdout.split() == ["d6xb4xd2"]
    out = run("legal", "italian", "W:WK22:BK18,10,19,K11", "--json")
    assert json.loads(out.stdout) == [
        {
            "notation": "22x13x6x15x22",
            "path": ["22", "13", "6", "15", "22"],
            "captured": ["18", "10", "11", "19"],
        }
    ]


def test_variants_lists_all_seven():
    out = run("variants")
    assert [line.split()[0] for line in out.stdout.splitlines()] == [
        "english",
        "international",
        "brazilian",
        "russian",
        "spanish",
        "italian",
        "turkish",
    ]


@pytest.mark.parametrize(
    "args, says",
    [
        (["perft", "chess", "3"], "unknown rule set"),
        (["perft", "english", "x"], "depth"),
        (["perft", "english", "-1"], "depth"),
        (["legal", "english", "W:W99:B1"], "not a square"),
        (["divide", "english", "0"], "at least 1"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_on_stderr(args, says):
    out = run(*args)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert says in out.stderr
