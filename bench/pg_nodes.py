#!/usr/bin/env python3
"""sitefeed on sled or PostgreSQL, one node or several, against the mock news site.

Measures, per window: CPU per check (the sum of the nodes' process CPU divided by the
page GETs the site saw, 304s included), checks per second, the CPU of the PostgreSQL
server's processes in that window, and each node's RSS. Scratch goes to /tmp; every
process it starts is stopped by its PID; everything listens on 127.0.0.1.

The mock site is the mock news site of the bench harness (`mocksite.py`, pass its path
with --mocksite): this script runs one copy of it in a child process listening on
--hosts ports, so the watches are spread over that many hosts (a host is the unit the
nodes' leases share out). Every fetch is a new version (every check a full one).

    python3 bench/pg_nodes.py --mocksite $BENCH/mocksite.py --backend sled --nodes 1 --m 10000
    python3 bench/pg_nodes.py --mocksite $BENCH/mocksite.py --backend postgres --nodes 2 --m 10000 \
        --db postgres://postgres@127.0.0.1:5432

Needs psutil (`python3 -m venv /tmp/venv && /tmp/venv/bin/pip install psutil`) and, for
PostgreSQL, `psql` (the database `sitefeed_bench` is dropped and created for each run).
"""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

SF = os.path.abspath(os.environ.get("SITEFEED_BIN", "target/release/sitefeed"))
DBNAME = "sitefeed_bench"


def serve_site(mocksite, ports, pages):
    """The child: one mock site on every port of `ports` (one process, shared counters)."""
    import asyncio

    spec = importlib.util.spec_from_file_location("mocksite", mocksite)
    ms = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ms)
    a = argparse.Namespace(port=ports[0], pages=pages, items=100, seed="mocksite-1",
                           version_by="counter", period=60.0, counter_step=1, epoch=None,
                           etag=False, no_noise=False, mode="utf8", dump=None, dump_dir=None,
                           dump_version=0)
    site = ms.Site(a)

    async def run():
        servers = [await asyncio.start_server(lambda r, w: ms.serve_conn(site, r, w), "127.0.0.1", p,
                                              backlog=1024, limit=1 << 16) for p in ports]
        print(f"mock site on ports {ports[0]}..{ports[-1]}, pid {os.getpid()}", flush=True)
        await asyncio.gather(*(s.serve_forever() for s in servers))

    asyncio.run(run())


def get_json(url, data=None, timeout=30):
    req = urllib.request.Request(url, data=data, method="POST" if data else "GET",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body = r.read()
    return json.loads(body) if body else None


def wait_http(url, secs):
    t0 = time.time()
    while time.time() - t0 < secs:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.3)
    raise RuntimeError(f"{url} not up after {secs}s")


def stop(p, grace=15):
    """SIGTERM, then SIGKILL after `grace` s: only this PID."""
    if p is None or p.poll() is not None:
        return
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(5)


def psql(db_url, dbname, sql):
    out = subprocess.run(["psql", f"{db_url}/{dbname}", "-XAtq", "-c", sql],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"psql: {out.stderr.strip()}")
    return out.stdout.strip()


class Cpu:
    """CPU seconds (user + system) of processes; peak RSS per node by sampling."""

    def __init__(self, ps, pids):
        self.ps = ps
        self.procs = [ps.Process(p) for p in pids]
        self.peak = [0] * len(pids)
        self.halt = threading.Event()
        threading.Thread(target=self.sample, daemon=True).start()

    def cpu(self):
        total = 0.0
        for p in self.procs:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except self.ps.Error:
                pass
        return total

    def rss(self):
        out = []
        for p in self.procs:
            try:
                out.append(p.memory_info().rss)
            except self.ps.Error:
                out.append(0)
        return out

    def sample(self):
        while not self.halt.is_set():
            self.peak = [max(a, b) for a, b in zip(self.peak, self.rss())]
            self.halt.wait(0.25)


def pg_cpu(ps):
    """CPU seconds of every process named postgres (the server, its backends, its workers)."""
    total = 0.0
    for p in ps.process_iter(["name"]):
        if p.info["name"] == "postgres":
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except ps.Error:
                pass
    return total


def node_config(i, a):
    listen = 8181 + i
    conc = a.concurrency // a.nodes
    return f"""[server]
listen = "127.0.0.1:{listen}"
base_url = "http://127.0.0.1:{listen}"
[storage]
path = "{a.scratch}/node{i}/data"
[fetch]
per_host_delay_ms = 0
per_host_concurrency = 32
global_concurrency = {conc}
respect_robots = false
allow_private_addresses = true
retries = 0
[schedule]
strategy = "fixed"
initial_interval = "1s"
min_interval = "1s"
max_interval = "1d"
"""


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mocksite", required=True, help="path of the mock site's mocksite.py")
    ap.add_argument("--backend", choices=["sled", "postgres"], default="sled")
    ap.add_argument("--nodes", type=int, default=1)
    ap.add_argument("--m", type=int, default=10000, help="watches")
    ap.add_argument("--hosts", type=int, default=64, help="ports of the mock site (hosts)")
    ap.add_argument("--site-port", type=int, default=9100, help="first port of the mock site")
    ap.add_argument("--concurrency", type=int, default=64,
                    help="checks at once in the whole cluster (split over the nodes)")
    ap.add_argument("--db", default="postgres://postgres@127.0.0.1:5432", help="server URL, no database")
    ap.add_argument("--warmup", type=float, default=20)
    ap.add_argument("--window", type=float, default=20)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--scratch", default="/tmp/sfpgbench")
    ap.add_argument("--out", default=None)
    ap.add_argument("--serve-site", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    ports = list(range(a.site_port, a.site_port + a.hosts))
    if a.serve_site:
        serve_site(a.mocksite, ports, a.m)
        return
    if a.backend == "sled" and a.nodes != 1:
        sys.exit("sled is one node: --nodes 1")
    import psutil

    shutil.rmtree(a.scratch, ignore_errors=True)
    os.makedirs(a.scratch)
    res = {"backend": a.backend, "nodes": a.nodes, "m": a.m, "hosts": a.hosts,
           "concurrency_per_node": a.concurrency // a.nodes, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if a.backend == "postgres":
        psql(a.db, "postgres", f"DROP DATABASE IF EXISTS {DBNAME}")
        psql(a.db, "postgres", f"CREATE DATABASE {DBNAME}")
    site = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve-site", "--mocksite", a.mocksite,
                             "--m", str(a.m), "--hosts", str(a.hosts), "--site-port", str(a.site_port)],
                            stdout=open(f"{a.scratch}/site.log", "w"), stderr=subprocess.STDOUT)
    stats_url = f"http://127.0.0.1:{a.site_port}/stats"
    nodes = []
    try:
        wait_http(stats_url, 30)
        for i in range(a.nodes):
            os.makedirs(f"{a.scratch}/node{i}")
            cfg = f"{a.scratch}/node{i}/sitefeed.toml"
            with open(cfg, "w") as f:
                f.write(node_config(i, a))
            env = dict(os.environ, SITEFEED_CONFIG=cfg, SITEFEED_DATA=f"{a.scratch}/node{i}/data", RUST_LOG="warn")
            if a.backend == "postgres":
                env.update(SITEFEED_STORAGE_BACKEND="postgres", SITEFEED_DATABASE_URL=f"{a.db}/{DBNAME}")
            nodes.append(subprocess.Popen([SF, "serve"], env=env, cwd=f"{a.scratch}/node{i}",
                                          stdout=open(f"{a.scratch}/node{i}/log", "w"), stderr=subprocess.STDOUT))
        for i in range(a.nodes):
            wait_http(f"http://127.0.0.1:{8181 + i}/healthz", 60)
        cpu = Cpu(psutil, [n.pid for n in nodes])
        t0 = time.time()

        def add(k):
            body = json.dumps({"url": f"http://127.0.0.1:{ports[k % a.hosts]}/site/{k}/"}).encode()
            # Spread the adds over the nodes, as a load balancer would.
            return get_json(f"http://127.0.0.1:{8181 + k % a.nodes}/api/watches", data=body).get("id")

        with ThreadPoolExecutor(8) as ex:
            ids = list(ex.map(add, range(a.m)))
        res["add_s"] = round(time.time() - t0, 1)
        res["added"] = sum(1 for i in ids if i)
        time.sleep(a.warmup)
        wins = []
        for _ in range(a.windows):
            c0, p0, s0, t0 = cpu.cpu(), pg_cpu(psutil), get_json(stats_url), time.time()
            time.sleep(a.window)
            c1, p1, s1, t1 = cpu.cpu(), pg_cpu(psutil), get_json(stats_url), time.time()
            checks = (s1["page_gets"] - s0["page_gets"]) + (s1["page_304"] - s0["page_304"])
            w = {"secs": round(t1 - t0, 1), "checks": checks, "checks_per_s": round(checks / (t1 - t0), 1),
                 "cpu_ms_per_check": round(1000 * (c1 - c0) / max(checks, 1), 2),
                 "pg_cpu_ms_per_check": round(1000 * (p1 - p0) / max(checks, 1), 2),
                 "pg_cpu_util": round((p1 - p0) / (t1 - t0), 2),
                 "rss_mb": [round(r / 2**20) for r in cpu.rss()], "loadavg": os.getloadavg()[0]}
            wins.append(w)
            print(json.dumps(w), flush=True)
        res["windows"] = wins
        res["peak_rss_mb"] = [round(r / 2**20) for r in cpu.peak]
        for k in ("cpu_ms_per_check", "checks_per_s", "pg_cpu_ms_per_check"):
            xs = [w[k] for w in wins]
            res[k] = [min(xs), median(xs), max(xs)]
        if a.backend == "postgres":
            res["watches_checked"] = psql(a.db, DBNAME,
                                          "SELECT count(*) FILTER (WHERE (state->>'checks')::int8 > 0) || ' of ' || count(*) FROM watches")
            res["db_mb"] = round(int(psql(a.db, DBNAME, f"SELECT pg_database_size('{DBNAME}')")) / 2**20)
        cpu.halt.set()
    finally:
        for n in nodes:
            stop(n)
        stop(site)
    print(json.dumps(res, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
