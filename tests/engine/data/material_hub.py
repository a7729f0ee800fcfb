"""A stand-in hub engine for tests of bench/field.py's judge: it speaks the part of
Scan 2.0's hub dialect the judge uses and scores a position by material alone (a man
100, a king 300, for the side to move), printed as Scan prints its info lines."""

import sys

position = ""
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "hub":
        print("wait", flush=True)
    elif words[0] == "init":
        print("ready", flush=True)
    elif words[0] == "pos":
        position = words[1]
    elif words[0] == "analyse":
        board = position[1:]
        white = board.count("w") * 100 + board.count("W") * 300
        black = board.count("b") * 100 + board.count("B") * 300
        score = white - black if position[0] == "w" else black - white
        print(f"info 12 14.0 {score} 1000 0.01 1.0 ", flush=True)
        print("move 32-28", flush=True)
    elif words[0] == "quit":
        break
