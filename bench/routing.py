"""Games through a real nginx on ``server/deploy/nginx.conf``: does each game's every
socket land on one node, the node ``bench/affinity.py``'s ``Ring`` (the rule
``bench/capacity.py``'s routed configuration uses) says, and does a game whose node
goes away carry on on the other?

Starts a private Redis, two nodes and nginx (Debian's ``nginx-light``; the deployed
configuration with the nodes' loopback addresses written in for ``node1:8000`` and
``node2:8000``, ``affinity.Nginx``), plays paced games with one spectator each through
nginx for a while (``bench/loadgen.py``'s clients: the game is created, joined and
watched through nginx, as browsers do), then reads nginx's log of where each request
went. Then the fail-over: a game on the first node's share, its node stopped, its
player reconnecting through nginx to the other node and moving on.

    .venv/bin/python bench/routing.py            # about a minute

Last line JSON: games, sockets, games_split (games per node), games_on_one_node,
ring_agrees (sockets whose node is the one ``Ring`` names), failover_ok.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import loadgen  # noqa: E402
from affinity import Nginx, Ring, installed  # noqa: E402
from relay_cluster import Redis  # noqa: E402

from protocol.client import GameConnection, Kondavo  # noqa: E402


async def moves(players: list[GameConnection], count: int) -> None:
    """``count`` moves, each by whichever player is to move, each seen by both."""
    for _ in range(count):
        for _ in range(500):
            mover = next((p for p in players if p.my_turn), None)
            if mover is not None:
                break
            await asyncio.sleep(0.02)
        else:
            raise TimeoutError("nobody to move")
        await mover.move(mover.legal[0])
        done = len(mover.moves)
        for player in players:
            await player.until(lambda c, done=done: len(c.moves) == done)


async def failover(nginx: Nginx, nodes: list[loadgen.Server], ring: Ring) -> tuple[bool, str]:
    """A game on node 1's share through nginx; node 1 stopped; White reconnects through
    nginx and both go on playing. Node 1 is left stopped."""
    k = Kondavo(nginx.url)
    while True:
        white = await k.create(variant="english", color="white", clock=None)
        if ring(white.game) == 0:
            break
    black = await k.join(white.game, invite=white.invite)
    async with k.connect(black) as b:
        a = await k.connect(white)
        await moves([a, b], 4)
        before = list(a.moves)
        nodes[0].stop()  # its sockets close; nginx finds node 1 refusing
        await a.until(lambda c: c.close_code is not None)
        await b.until(lambda c: c.close_code is not None)
        await a.close()
    async with k.connect(white) as a2, k.connect(black) as b2:
        resumed = a2.moves == before and b2.moves == before
        await moves([a2, b2], 2)
        stored = await k.game(white.game)
        resumed = resumed and len(stored["moves"]) == len(before) + 2
    seen = [r for r in nginx.routes() if r[0] == f"/ws/games/{white.game}"]
    return resumed, ", ".join(f"{up} {status}" for _, _, up, status in seen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds per move per game")
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    if installed() is None:
        print("nginx is not installed (apt-get install nginx-light): nothing to check")
        return 1
    loadgen.raise_open_files()
    redis = Redis()
    nodes: list[loadgen.Server] = []
    nginx = None
    try:
        nodes = [loadgen.start_kondavo(redis.url) for _ in range(2)]
        addresses = [n.url.split("://")[1] for n in nodes]
        ring = Ring(addresses)
        nginx = Nginx(addresses, loadgen.free_port())
        print(nginx.checked.replace("\n", "; "))
        cpu = [n.cpu_seconds() for n in nodes]
        began = time.monotonic()
        run = asyncio.run(loadgen.play([nginx.url], args.games, 1, args.seconds, args.pace, 3.0))
        spent = [n.cpu_seconds() - c for n, c in zip(nodes, cpu, strict=True)]
        print(
            f"{args.games} games through nginx at a move per {args.pace:g} s, 1 spectator "
            f"each: {run['moves'] / run['elapsed']:.0f} moves/s relayed in the window, "
            f"relay p99 {loadgen.quantile(run['latencies'], 0.99) * 1000:.1f} ms; node CPU "
            f"over the whole run ({time.monotonic() - began:.0f} s): "
            + ", ".join(f"node {i + 1} {s:.1f} s" for i, s in enumerate(spent))
        )
        by_game: dict[str, set[str]] = defaultdict(set)
        sockets = agree = 0
        for path, game, upstream, _status in nginx.routes():
            if not path.startswith("/ws/games/"):
                continue
            sockets += 1
            by_game[game].add(upstream)
            agree += upstream == addresses[ring(game)]
        one_node = sum(1 for ups in by_game.values() if len(ups) == 1)
        split = [sum(1 for ups in by_game.values() if ups == {a}) for a in addresses]
        print(
            f"nginx sent {sockets} game sockets of {len(by_game)} games: {one_node} games "
            f"had all their sockets on one node (games per node {split[0]} / {split[1]}); "
            f"{agree} of {sockets} sockets went to the node Ring names"
        )
        resumed, seen = asyncio.run(failover(nginx, nodes, ring))
        print(
            f"fail-over: node 1 stopped under a game of its share; the players reconnected "
            f"through nginx and {'went on' if resumed else 'did NOT go on'} "
            f"(the game's sockets as nginx logged them: {seen})"
        )
        ok = one_node == len(by_game) and agree == sockets and resumed and sockets > 0
        print(
            json.dumps(
                {
                    "games": len(by_game),
                    "sockets": sockets,
                    "games_split": split,
                    "games_on_one_node": one_node,
                    "ring_agrees": agree,
                    "failover_ok": resumed,
                }
            )
        )
        return 0 if ok else 1
    finally:
        if nginx is not None:
            nginx.stop()
        for node in nodes:
            node.stop()
        redis.stop()


if __name__ == "__main__":
    sys.exit(main())
