"""Capacity (issue 34): CPU seconds per 1,000 relayed moves, for every process.

Throughput on this 2-core machine, shared by the nodes, Redis and the load generator,
cannot show what a node or a Redis carries on a machine of its own; CPU time per move
can, as it does not depend on how many cores were free. So this runs the workloads of
``bench/load.py`` (with ``bench/loadgen.py``'s clients) and charges each process's CPU
time (user + system, all threads, from /proc) to the moves relayed meanwhile:

- paced: G games at a move every P seconds each, one spectator each, from two client
  processes (``bench/load.py``'s paced run);
- saturated: N games moving as fast as they are relayed, one spectator each, from one
  client process (``bench/load.py``'s throughput run).

A relayed move is a move the opponent received within the window; each was fanned out
to both players and the spectator. Configurations: one node on the memory store (for
reference: a single node needs no Redis), one node on Redis, two nodes on one Redis
twice, and two nodes on a Redis Cluster of three masters
(``tests/server/redis_server.py``'s). Every Redis is private, on a free loopback port.
The two ways two nodes on one Redis are used:

- routed (as deployed): each game's sockets, players and spectator alike, and its join
  on the node its id hashes to, by the rule of ``server/deploy/nginx.conf``'s
  ``hash $game_id consistent`` (nginx's ketama ring over the nodes' ``host:port``,
  ``bench/affinity.py``'s ``Ring``; ``bench/routing.py`` checks it against a real
  nginx). The games split about evenly over the nodes, and only a game's own node
  receives its moves. This is ``share_cost_ratio``.
- crossing (the worst case, a router with no affinity): White on node 1, Black on node
  2, spectators in turn, so every move crosses Redis and both nodes receive it, catch
  the game up and decode its record. This is ``share_cost_ratio_crossing``.

A node's CPU per move rises as its rate falls (fewer messages per socket read, per
pipelined Redis write and per round of the event loop), and each of two routed nodes
carries half the moves. So one node on Redis also plays half the games ("half the
games"): two routed nodes against it is ``share_cost_ratio_equal_rate``, the cost of
sharing at equal load per node, beside the issue's ratio at equal total load.

The four configurations on one Redis run in turn within each round and workload (one
node, one node with half the games, routed, crossing), their nodes all started at the
beginning, so that other work on the machine, which changes from minute to minute,
falls on each alike.

From the paced figures it derives the capacity model: moves/s one node carries per core
at 80% CPU, moves/s one Redis core carries, nodes per Redis core, concurrent games per
node at a move every 5-10 s per game (with two nodes routed). Targets, as ratios of
this one run: two nodes' total CPU per move at most 1.15x one node's (routed); one Redis
core carries at least 4 node cores; the cluster's keys within 20% of even over its
masters.

``--pin``: the nodes on CPU 0, Redis and the load generator on CPU 1 (every thread,
as ``taskset -a`` does). It did not steady anything on the 2-core machine shared with
other work: with a load average of 20, the generator and Redis on one core could not
even set up the paced games in ten minutes. The figures in the README are unpinned.
How busy the whole machine was (all processes, from /proc/stat) is printed beside
every run: other work on the machine changes throughput
and latency, much less the CPU time per move.

    .venv/bin/python bench/capacity.py --quick     # about 6 minutes (--rounds 2: 10)
    .venv/bin/python bench/capacity.py             # bench/load.py's paced size, 3 rounds

The last line is one JSON object: node_cpu_ms_per_move_1, node_cpu_ms_per_move_2 (two
nodes routed), share_cost_ratio (routed), share_cost_ratio_equal_rate,
share_cost_ratio_crossing,
redis_cpu_ms_per_move, node_cores_per_redis_core, cluster_spread.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import shutil
import signal
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# The private Redis Cluster the tests start: one way to make one, not two.
sys.path.insert(0, str(HERE.parent / "tests" / "server"))

import loadgen  # noqa: E402
from relay_cluster import Redis  # noqa: E402

NODE_CPU, OTHER_CPU = 0, 1  # --pin
BUSY = 0.8  # the CPU share a node or a Redis is planned at


@dataclass
class Proc:
    """A process whose CPU time is charged to the moves: a node, a Redis master."""

    name: str
    pid: int

    def cpu_seconds(self) -> float:
        return loadgen.cpu_seconds(self.pid)


class Machine:
    """Every process of the machine: busy CPU seconds (all cores) from /proc/stat."""

    def cpu_seconds(self) -> float:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:9]]
        user, nice, system, _idle, _iowait, irq, softirq, steal = fields
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def pin(pid: int, cpu: int) -> None:
    """Every thread of ``pid`` on ``cpu`` (threads made later inherit it)."""
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(task), {cpu})


@dataclass
class Workload:
    name: str
    games: int
    pace: float  # seconds per move per game; 0: as fast as relayed
    seconds: float

    def describe(self) -> str:
        if self.pace:
            return f"paced, {self.games} games at a move per {self.pace:g} s, 1 spectator each"
        return f"saturated, {self.games} games, 1 spectator each"

    def run(self, urls: list[str], routed: bool) -> dict:
        if self.pace:  # two client processes, as bench/load.py's paced run
            halves = [self.games // 2, self.games - self.games // 2]
            return loadgen.merged(
                loadgen.in_processes(
                    "play", [(urls, n, 1, self.seconds, self.pace, 5.0, routed) for n in halves]
                )
            )
        (run,) = loadgen.in_processes(
            "play", [(urls, self.games, 1, self.seconds, 0.0, 3.0, routed)]
        )
        return run


def measure(
    label: str,
    nodes: list[loadgen.Server],
    stores: list[Proc],
    workload: Workload,
    routed: bool = False,
) -> dict:
    """One workload against running nodes: CPU ms per relayed move of every process."""
    procs = [Proc(f"node {i + 1}", n.process.pid) for i, n in enumerate(nodes)] + stores
    samplers = [loadgen.CpuSampler([p]) for p in procs]
    machine = loadgen.CpuSampler([Machine()])
    rss_before = sum(n.rss_bytes() for n in nodes)
    try:
        run = workload.run([n.url for n in nodes], routed)
    finally:
        for sampler in [*samplers, machine]:
            sampler.stop()
    moves_per_s = run["moves"] / run["elapsed"]
    per_move = {
        p.name: s.share(run["window"]) / moves_per_s * 1000
        for p, s in zip(procs, samplers, strict=True)
    }
    nodes_ms = sum(v for k, v in per_move.items() if k.startswith("node"))
    store_ms = sum(v for k, v in per_move.items() if not k.startswith("node"))
    client_ms = run["client_cpu"] / moves_per_s * 1000
    machine_cores = machine.share(run["window"])
    ours = sum(s.share(run["window"]) for s in samplers) + run["client_cpu"]
    result = {
        "label": label,
        "workload": workload.name,
        "moves_per_s": moves_per_s,
        "per_move": per_move,
        "nodes_ms": nodes_ms,
        "store_ms": store_ms,
        "client_ms": client_ms,
        "node_busy": [s.share(run["window"]) for s in samplers[: len(nodes)]],
        "relay_p99_ms": loadgen.quantile(run["latencies"], 0.99) * 1000,
        "rss_growth_kib_per_game": (sum(n.rss_bytes() for n in nodes) - rss_before)
        / 1024
        / workload.games,
        "machine_cores": machine_cores,
        "others_cores": max(0.0, machine_cores - ours),
    }
    parts = ", ".join(f"{k} {v:.3f}" for k, v in per_move.items())
    print(
        f"{label} | {workload.describe()}: {moves_per_s:.0f} moves/s, relay p99 "
        f"{result['relay_p99_ms']:.1f} ms\n"
        f"    CPU ms per move: {parts}; nodes {nodes_ms:.3f}"
        + (f", store {store_ms:.3f}" if stores else "")
        + f", load generator {client_ms:.3f}\n"
        f"    machine busy {machine_cores:.2f} of {os.cpu_count()} cores, "
        f"{result['others_cores']:.2f} of them other work",
        flush=True,
    )
    return result


def measure_idle(
    label: str, nodes: list[loadgen.Server], stores: list[Proc], seconds: float
) -> dict[str, float]:
    """Each process's CPU share with no game at all: what it costs before any move (the
    timekeeper's and the lobby's rounds, and on Redis their calls)."""
    procs = [Proc(f"node {i + 1}", n.process.pid) for i, n in enumerate(nodes)] + stores
    samplers = [loadgen.CpuSampler([p]) for p in procs]
    window = (time.monotonic(), time.monotonic() + seconds)
    time.sleep(seconds + 0.3)
    for sampler in samplers:
        sampler.stop()
    idle = {p.name: s.share(window) for p, s in zip(procs, samplers, strict=True)}
    print(
        f"{label} | idle, no games: "
        + ", ".join(f"{k} {v:.1%} of a core" for k, v in idle.items()),
        flush=True,
    )
    return idle


def median_of(results: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in results)


@dataclass
class Config:
    """Nodes measured together: one node, two routed, two crossing, two on a cluster."""

    name: str
    label: str
    redis_url: str | None
    count: int
    routed: bool = False
    # The share of each workload's games it plays: 0.5 gives one node the rate each of
    # two routed nodes carries.
    games_share: float = 1.0


def run_configs(
    configs: list[Config],
    stores: list[Proc],
    workloads: list[Workload],
    rounds: int,
    pinned: bool,
    idle_s: float,
    between: Any = None,
) -> dict[str, dict[str, dict]]:
    """Start every configuration's nodes, measure each idle, then run every workload
    ``rounds`` times, the configurations taking turns within each round and workload
    (so what other work on the machine does to the figures falls on each alike, and a
    ratio compares runs minutes apart at most); per configuration and workload, the
    medians of its rounds (and the rounds). ``between``: called before each run (the
    Redis is emptied: games left by the run before would have their timers ticked by
    whichever nodes are measured next)."""
    started: dict[str, list[loadgen.Server]] = {}
    try:
        for config in configs:
            started[config.name] = [
                loadgen.start_kondavo(config.redis_url) for _ in range(config.count)
            ]
            if pinned:
                for node in started[config.name]:
                    pin(node.process.pid, NODE_CPU)
        time.sleep(1.0)  # started: their imports and first rounds are not idling
        out: dict[str, dict[str, dict]] = {
            c.name: {"idle": measure_idle(c.label, started[c.name], stores, idle_s)}
            for c in configs
        }
        runs: dict[tuple[str, str], list[dict]] = {}
        for n in range(rounds):
            for workload in workloads:
                for config in configs:
                    if between is not None:
                        between()
                    label = config.label + (f", round {n + 1}" if rounds > 1 else "")
                    games = round(workload.games * config.games_share)
                    runs.setdefault((config.name, workload.name), []).append(
                        measure(
                            label,
                            started[config.name],
                            stores,
                            dataclasses.replace(workload, games=games),
                            config.routed,
                        )
                    )
        for (name, workload_name), each in runs.items():
            out[name][workload_name] = {
                "nodes_ms": median_of(each, "nodes_ms"),
                "store_ms": median_of(each, "store_ms"),
                "client_ms": median_of(each, "client_ms"),
                "moves_per_s": median_of(each, "moves_per_s"),
                "rss_kib_per_game": each[0]["rss_growth_kib_per_game"],
                "others_cores": median_of(each, "others_cores"),
                "runs": each,
            }
        return out
    finally:
        for nodes in started.values():
            for node in nodes:
                node.stop()


def spread(counts: list[int]) -> float:
    """How far the fullest or emptiest master is from an even share (0.1: 10%)."""
    mean = sum(counts) / len(counts)
    return max(abs(c / mean - 1) for c in counts) if mean else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller, under 10 minutes")
    parser.add_argument("--paced-games", type=int)
    parser.add_argument("--pace", type=float, help="seconds per move per game")
    parser.add_argument("--games", type=int, default=100, help="saturated games")
    parser.add_argument("--seconds", type=float, help="measured window per run")
    parser.add_argument("--rounds", type=int, help="runs per workload (median taken)")
    parser.add_argument(
        "--pin", action="store_true", help="nodes on CPU 0; Redis and the load generator on CPU 1"
    )
    args = parser.parse_args()
    # Stopped (SIGTERM): the finally clauses stop the nodes and the Redis servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    quick = args.quick
    # --quick keeps bench/load.py's move rate (1,000 moves/s) with half its sockets.
    paced_games = args.paced_games or (1000 if quick else 2000)
    pace = args.pace or (1.0 if quick else 2.0)
    seconds = args.seconds or (12.0 if quick else 30.0)
    rounds = args.rounds or (1 if quick else 3)
    idle_s = 5.0 if quick else 10.0
    pinned = args.pin and (os.cpu_count() or 1) > 1
    if pinned:
        pin(os.getpid(), OTHER_CPU)  # this process is the load generator; its children too
    loadgen.raise_open_files()
    workloads = [
        Workload("paced", paced_games, pace, seconds),
        Workload("saturated", args.games, 0.0, seconds * 0.6),
    ]
    began, load_before = time.monotonic(), os.getloadavg()
    pinning = (
        "pinned: nodes on CPU 0, Redis and the load generator on CPU 1" if pinned else "not pinned"
    )
    print(
        f"cores {os.cpu_count()}, {'quick' if quick else 'full'} run, {rounds} round(s) per "
        f"workload, {pinning}; load average {load_before[0]:.2f} before",
        flush=True,
    )
    if not (shutil.which("redis-server") or Path("/usr/bin/redis-server").exists()):
        print("redis-server is not installed: nothing to measure")
        return 1

    results: dict[str, dict[str, dict]] = {}
    results.update(
        run_configs(
            [Config("memory", "memory store, 1 node", None, 1)],
            [],
            workloads,
            rounds,
            pinned,
            idle_s,
        )
    )
    redis = Redis()
    try:
        if pinned:
            pin(redis.process.pid, OTHER_CPU)
        stores = [Proc("redis", redis.process.pid)]
        results.update(
            run_configs(
                [
                    Config("redis1", "redis, 1 node", redis.url, 1),
                    Config(
                        "redis1half", "redis, 1 node, half the games", redis.url, 1, games_share=0.5
                    ),
                    Config("redis2", "redis, 2 nodes, routed by game id", redis.url, 2, True),
                    Config("redis2x", "redis, 2 nodes, crossing", redis.url, 2),
                ],
                stores,
                workloads,
                rounds,
                pinned,
                idle_s,
                redis.flush,
            )
        )
    finally:
        redis.stop()

    from redis_server import RedisClusterServers

    cluster = RedisClusterServers().start()
    try:
        if pinned:
            for process in cluster.processes:
                pin(process.pid, OTHER_CPU)
        masters = [Proc(f"master {i + 1}", p.pid) for i, p in enumerate(cluster.processes)]
        results.update(
            run_configs(
                [Config("cluster", "redis cluster (3 masters), 2 nodes", cluster.url, 2)],
                masters,
                workloads,
                rounds,
                pinned,
                idle_s,
            )
        )
        keys = [client.dbsize() for client in cluster.clients()]
    finally:
        cluster.cleanup()

    # ----------------------------------------------------------------- the model
    p = {name: r["paced"] for name, r in results.items()}
    s = {name: r["saturated"] for name, r in results.items()}
    node_1, node_2 = p["redis1"]["nodes_ms"], p["redis2"]["nodes_ms"]
    node_2x = p["redis2x"]["nodes_ms"]
    redis_ms = p["redis2"]["store_ms"]
    share_cost = node_2 / node_1
    share_cost_crossing = node_2x / node_1
    # The same ratio at equal load per node: two routed nodes against one node carrying
    # what each of them carries (half the games). What is left is what sharing itself
    # costs; the rest of share_cost_ratio is a node's CPU per move rising as its rate falls.
    node_half = p["redis1half"]["nodes_ms"]
    share_cost_equal_rate = node_2 / node_half
    # Per node core: a node is one process, one core, planned at 80% of it. A move costs
    # node_2 CPU ms over the nodes together, wherever its sockets are.
    node_moves = BUSY * 1000 / node_2
    memory_moves = BUSY * 1000 / p["memory"]["nodes_ms"]
    redis_moves = BUSY * 1000 / redis_ms
    cores_per_redis = node_2 / redis_ms
    cluster_ms = p["cluster"]["store_ms"]
    cluster_spread = spread(keys)

    print()
    print(f"CPU ms per relayed move (= CPU s per 1,000 moves), medians of {rounds} round(s):")
    print(
        f"  {'configuration':<36} {'workload':<10} {'moves/s':>8} {'nodes':>7} "
        f"{'redis':>7} {'loadgen':>8}"
    )
    names = {
        "memory": "memory store, 1 node",
        "redis1": "redis, 1 node",
        "redis1half": "redis, 1 node, half the games",
        "redis2": "redis, 2 nodes, routed",
        "redis2x": "redis, 2 nodes, crossing",
        "cluster": "cluster (3 masters), 2 nodes",
    }
    for name, label in names.items():
        for workload in ("paced", "saturated"):
            r = results[name][workload]
            store = f"{r['store_ms']:.3f}" if name != "memory" else "-"
            print(
                f"  {label:<36} {workload:<10} {r['moves_per_s']:>8.0f} "
                f"{r['nodes_ms']:>7.3f} {store:>7} {r['client_ms']:>8.3f}"
            )
    print(
        f"  cluster keys per master: {' / '.join(map(str, keys))} "
        f"(spread {cluster_spread:.1%} from even)"
    )
    print(
        f"  saturated: two nodes' CPU per move "
        f"{s['redis2']['nodes_ms'] / s['redis1']['nodes_ms']:.2f}x one node's routed "
        f"({s['redis2']['nodes_ms'] / s['redis1half']['nodes_ms']:.2f}x one node's with half "
        f"the games), "
        f"{s['redis2x']['nodes_ms'] / s['redis1']['nodes_ms']:.2f}x crossing; one Redis "
        f"core carries {s['redis2']['nodes_ms'] / s['redis2']['store_ms']:.1f} node cores"
    )
    print()
    print(f"Capacity model (paced figures; a node or a Redis core planned at {BUSY:.0%} CPU):")
    print(f"  one node (one process, one core), nodes sharing Redis: {node_moves:,.0f} moves/s")
    print(f"  one node on the memory store (no Redis):               {memory_moves:,.0f} moves/s")
    print(f"  one Redis core:                                         {redis_moves:,.0f} moves/s")
    print(f"  hence one Redis core serves {cores_per_redis:.1f} node cores")
    print(
        f"  Redis Cluster: {cluster_ms:.3f} ms per move over its 3 masters "
        f"({cluster_ms / redis_ms:.2f}x one Redis: every PUBLISH crosses the cluster bus)"
    )
    for every in (5, 10):
        print(
            f"  at a move every {every} s per game: {node_moves * every:,.0f} games per node, "
            f"{redis_moves * every:,.0f} games per Redis core"
        )
    for games in (10_000, 100_000):
        rate = games / 5
        print(
            f"  {games:,} games at a move every 5 s ({rate:,.0f} moves/s): "
            f"{math.ceil(rate / node_moves)} nodes, {math.ceil(rate / redis_moves)} Redis "
            f"core(s)"
        )
    idle = results["redis2"]["idle"]
    print(
        f"  idle, no games (in the per-move figures above at the paced rate): nodes "
        f"{idle['node 1']:.1%} and {idle['node 2']:.1%} of a core, Redis {idle['redis']:.1%}"
    )
    rss = p["redis2"]["rss_kib_per_game"]
    print(
        f"  memory: a node grew by about {rss:.0f} KiB per paced game (3 sockets) in its first run"
    )
    print()
    load_after = os.getloadavg()
    print(
        f"two nodes' total CPU per move {share_cost:.2f}x one node's routed by game id "
        f"(target <= 1.15), {share_cost_equal_rate:.2f}x one node carrying half the games "
        f"(equal load per node), {share_cost_crossing:.2f}x crossing (no affinity); one "
        f"Redis core carries {cores_per_redis:.1f} node cores (target >= 4); cluster keys "
        f"{cluster_spread:.1%} from even (target <= 20%); load average {load_before[0]:.2f} "
        f"before, {load_after[0]:.2f} after; took {time.monotonic() - began:.0f} s",
        flush=True,
    )
    print(
        json.dumps(
            {
                "node_cpu_ms_per_move_1": round(node_1, 4),
                "node_cpu_ms_per_move_2": round(node_2, 4),
                "share_cost_ratio": round(share_cost, 3),
                "share_cost_ratio_equal_rate": round(share_cost_equal_rate, 3),
                "share_cost_ratio_crossing": round(share_cost_crossing, 3),
                "redis_cpu_ms_per_move": round(redis_ms, 4),
                "node_cores_per_redis_core": round(cores_per_redis, 2),
                "cluster_spread": round(cluster_spread, 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
