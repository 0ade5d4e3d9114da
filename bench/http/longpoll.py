#!/usr/bin/env python3
"""Long-poll figures of `delayq serve` (standard library only; bench/http.sh runs it).

lateness: messages sent one a request at RATE a second, each due DELAY_MIN..DELAY_MAX ms after
          its send, while POLLERS long-polls wait on the queue; each delivery's lateness is the
          time it reached this client minus its due time (one machine, one clock), and the
          server's own (delivered_ms - due_ms, Redis clock). Early deliveries are counted.
idle:     CONNECTIONS long-polls with nothing due, all held at once; the server's RSS and the
          Redis commands per second while they wait.

usage: longpoll.py lateness URL [--messages N --rate R --pollers P]
       longpoll.py idle URL --serve-pid PID --redis-port PORT [--connections N --window S]
The token is read from DELAYQ_TOKEN when set.
"""
import argparse
import asyncio
import json
import os
import random
import resource
import socket
import statistics
import time
import urllib.parse


class Http:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.token = os.environ.get("DELAYQ_TOKEN", "")

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, path, body):
        data = json.dumps(body).encode()
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n")
        if self.token:
            head += f"Authorization: Bearer {self.token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return status, json.loads(payload) if payload else None

    def close(self):
        self.writer.close()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def lateness(args):
    queue = f"/v1/queues/lateness-{os.getpid()}"
    client_ms, server_ms, early = [], [], 0
    done = asyncio.Event()

    async def poller():
        nonlocal early
        http = Http(args.url)
        await http.open()
        while not done.is_set():
            status, body = await http.post(queue + "/leases",
                                           {"max": 100, "wait": "2s", "visibility": "30s"})
            now = time.time() * 1000
            assert status == 200, (status, body)
            leases = []
            for d in body["deliveries"]:
                client_ms.append(now - d["due_ms"])
                server_ms.append(d["delivered_ms"] - d["due_ms"])
                if now < d["due_ms"] or d["delivered_ms"] < d["due_ms"]:
                    early += 1
                leases.append(d["lease"])
            if leases:
                status, body = await http.post(queue + "/ack", {"leases": leases})
                assert status == 200 and all(r["status"] == "ok" for r in body["results"]), body
            if len(client_ms) >= args.messages:
                done.set()
        http.close()

    async def sender():
        http = Http(args.url)
        await http.open()
        start = time.monotonic()
        for i in range(args.messages):
            await asyncio.sleep(max(0.0, start + i / args.rate - time.monotonic()))
            delay = random.randint(args.delay_min, args.delay_max)
            status, body = await http.post(queue + "/messages",
                                           {"payload": f"m{i}", "delay": delay})
            assert status == 201, (status, body)
        http.close()

    await asyncio.gather(sender(), *(poller() for _ in range(args.pollers)))
    print(f"long-poll lateness, {args.messages} messages at {args.rate}/s, {args.pollers} pollers: "
          f"p50 {percentile(client_ms, 50):.1f} ms, p99 {percentile(client_ms, 99):.1f} ms, "
          f"max {max(client_ms):.1f} ms at the client; server (Redis clock) p50 "
          f"{percentile(server_ms, 50):.0f} / p99 {percentile(server_ms, 99):.0f} / max "
          f"{max(server_ms):.0f} ms; early {early}")


def redis_commands(port):
    """total_commands_processed, read with one INFO (which counts itself)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"INFO stats\r\n")
        data = b""
        while b"total_commands_processed" not in data or not data.endswith(b"\r\n"):
            data += s.recv(65536)
    for line in data.decode().splitlines():
        if line.startswith("total_commands_processed:"):
            return int(line.split(":")[1])
    raise RuntimeError("no total_commands_processed in INFO")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def idle(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    queue = f"/v1/queues/idle-{os.getpid()}"
    rss_before = rss_mib(args.serve_pid)
    conns = []
    for _ in range(args.connections):
        http = Http(args.url)
        await http.open()
        conns.append(http)
    body = {"max": 1, "wait": "60s"}
    polls = [asyncio.ensure_future(c.post(queue + "/leases", body)) for c in conns]
    await asyncio.sleep(5)  # every request written and parked in the server
    pending = sum(not p.done() for p in polls)
    start_cmds, start = redis_commands(args.redis_port), time.monotonic()
    await asyncio.sleep(args.window)
    end_cmds, end = redis_commands(args.redis_port), time.monotonic()
    rss = rss_mib(args.serve_pid)
    still = sum(not p.done() for p in polls)
    per_second = (end_cmds - start_cmds - 1) / (end - start)  # less the first INFO
    print(f"idle long-polls: {still} of {args.connections} held (after 5 s: {pending}); server "
          f"RSS {rss:.0f} MiB (before {rss_before:.0f}); Redis {per_second:.2f} commands/s over "
          f"{end - start:.0f} s")
    for p in polls:
        p.cancel()
    for c in conns:
        c.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["lateness", "idle"])
    p.add_argument("url")
    p.add_argument("--messages", type=int, default=5000)
    p.add_argument("--rate", type=float, default=500)
    p.add_argument("--pollers", type=int, default=4)
    p.add_argument("--delay-min", type=int, default=50)
    p.add_argument("--delay-max", type=int, default=500)
    p.add_argument("--serve-pid", type=int)
    p.add_argument("--redis-port", type=int)
    p.add_argument("--connections", type=int, default=10000)
    p.add_argument("--window", type=float, default=30)
    args = p.parse_args()
    asyncio.run(lateness(args) if args.mode == "lateness" else idle(args))


if __name__ == "__main__":
    main()
