#!/usr/bin/env python3
"""One member of a shardrun exec group (see exec-group.yaml); standard library only.

RANK 0 listens on MASTER_PORT (all addresses), RANK 1 connects to MASTER_ADDR:MASTER_PORT,
retrying until RENDEZVOUS_TIMEOUT seconds (default 60) have passed. Each sends one JSON line
{rank, value, task_id, world_size} with value = SHARDRUN_TASK_ID * 10 + RANK, reads the peer's,
checks that both belong to the same task, and writes to $SHARDRUN_RESULT:
    {"task_id", "rank", "world_size", "peer_rank", "peer_value", "peer_task_id"}
"""
import json
import os
import socket
import sys
import time


def need(name):
    value = os.environ.get(name)
    if value is None:
        sys.exit(f"rendezvous.py: {name} is not set; run this under shardrun with gpus_per_task: 2")
    return value


def listen(port, deadline):
    if socket.has_dualstack_ipv6():
        try:
            server = socket.create_server(("", port), family=socket.AF_INET6, dualstack_ipv6=True)
        except OSError:
            server = socket.create_server(("", port))
    else:
        server = socket.create_server(("", port))
    with server:
        server.settimeout(max(0.1, deadline - time.time()))
        try:
            conn, _ = server.accept()
        except socket.timeout:
            sys.exit(f"rendezvous.py: rank 0: no peer connected to port {port} in time")
    return conn


def connect(addr, port, deadline):
    while True:
        try:
            return socket.create_connection((addr, port), timeout=max(0.1, deadline - time.time()))
        except OSError as e:
            if time.time() > deadline:
                sys.exit(f"rendezvous.py: cannot connect to {addr}:{port}: {e}")
            time.sleep(0.05)


def main():
    rank = int(need("RANK"))
    world_size = int(need("WORLD_SIZE"))
    addr = need("MASTER_ADDR")
    port = int(need("MASTER_PORT"))
    task_id = int(need("SHARDRUN_TASK_ID"))
    result_path = need("SHARDRUN_RESULT")
    if world_size != 2 or rank not in (0, 1):
        sys.exit(f"rendezvous.py: expects a group of 2, got RANK={rank} WORLD_SIZE={world_size}")
    deadline = time.time() + float(os.environ.get("RENDEZVOUS_TIMEOUT", "60"))

    conn = listen(port, deadline) if rank == 0 else connect(addr, port, deadline)
    with conn:
        conn.settimeout(max(0.1, deadline - time.time()))
        mine = {"rank": rank, "value": task_id * 10 + rank, "task_id": task_id, "world_size": world_size}
        conn.sendall((json.dumps(mine) + "\n").encode())
        with conn.makefile("r") as stream:
            line = stream.readline()
    if not line:
        sys.exit("rendezvous.py: the peer closed the connection without sending its value")
    peer = json.loads(line)
    if peer["task_id"] != task_id or peer["rank"] == rank:
        sys.exit(f"rendezvous.py: rank {rank} of task {task_id} met the wrong peer: {peer}")

    with open(result_path, "w") as f:
        json.dump({"task_id": task_id, "rank": rank, "world_size": world_size, "peer_rank": peer["rank"],
                   "peer_value": peer["value"], "peer_task_id": peer["task_id"]}, f)
    print(f"task {task_id} rank {rank}/{world_size} on {socket.gethostname()}: "
          f"met rank {peer['rank']} via {addr}:{port}, its value {peer['value']}")


if __name__ == "__main__":
    main()
