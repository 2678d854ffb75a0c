"""N "hosts" on one machine for the end-to-end tests (needs root): TwoHosts (two_hosts.py) for
more than two.

    with NHosts(4, slots=2) as hosts:
        proc = hosts.run_mpi(8, ["run", job])

Each host is a network namespace with its own hostname, as in TwoHosts; a veth pair joins each to
a bridge in one more namespace (the "switch"), so no device is made in the machine's own network
namespace and deleting the namespaces removes every link and the bridge. Hosts are reached by
address: /etc/hosts is left alone (other tests may edit it at the same time), and the hostfile
names the addresses. Cleanup is TwoHosts's (namespaces, their processes, the helper folder, also
on an exception or a signal, and what a killed earlier run left behind); only names with this
module's prefix are touched.
"""
import os
import re

import two_hosts
from two_hosts import TwoHosts, _ip, _namespaces, _pid_alive

# Every namespace this module creates starts with it (letters only; SHARDRUN_NHOSTS_PREFIX keeps
# the namespaces of engineers sharing one machine apart).
PREFIX = os.environ.get("SHARDRUN_NHOSTS_PREFIX", "srnd")
_NAME = re.compile(rf"^{PREFIX}(\d+)[a-z]$")
_SWITCH = "s"                         # the bridge's namespace: PREFIX + pid + "s"


class NHosts(TwoHosts):
    """Context manager: `count` (2..18) namespaces-as-hosts with `slots` MPI slots each."""

    def __init__(self, count, slots=2):
        super().__init__(slots=slots, edit_hosts_file=False)
        if not 2 <= count <= 18:
            raise ValueError("NHosts: 2 to 18 hosts")
        pid = self.pid
        # Letters a.. for hosts; "s" is the switch, so hosts stop before it.
        self.names = tuple(f"{PREFIX}{pid}{chr(ord('a') + k)}" for k in range(count))
        self.switch = f"{PREFIX}{pid}{_SWITCH}"
        net = f"10.232.{pid % 250}"
        self.addresses = tuple(f"{net}.{k + 1}" for k in range(count))
        self.subnet = f"{net}.0/24"
        # run_mpi and in_host address hosts by namespace name; hostnames are the same names.
        self.hosts = self.names

    def _remove_stale(self):
        for name in _namespaces():
            m = _NAME.match(name)
            if m and (int(m.group(1)) == self.pid or not _pid_alive(int(m.group(1)))):
                self._delete_namespace(name)
        super()._remove_stale()

    def _create(self):
        import tempfile
        self.dir = tempfile.mkdtemp(prefix=f"{two_hosts._DIR_PREFIX}{self.pid}-")
        _ip("netns", "add", self.switch)
        self._created.append(self.switch)
        bridge = f"{PREFIX}{self.pid}br"
        _ip("-n", self.switch, "link", "add", bridge, "type", "bridge")
        _ip("-n", self.switch, "link", "set", bridge, "up")
        for name, address in zip(self.names, self.addresses):
            _ip("netns", "add", name)
            self._created.append(name)
            port = f"{name}p"     # at most 15 characters: srnd + 7-digit pid + letter + p
            _ip("link", "add", name, "netns", name, "type", "veth", "peer", "name", port, "netns", self.switch)
            _ip("-n", self.switch, "link", "set", port, "master", bridge)
            _ip("-n", self.switch, "link", "set", port, "up")
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", name)
            _ip("-n", name, "link", "set", name, "up")
            _ip("-n", name, "link", "set", "lo", "up")
        self.agent = os.path.join(self.dir, "rsh-agent")
        with open(self.agent, "w") as f:
            f.write(_AGENT)
        os.chmod(self.agent, 0o755)
        self.hostfile = os.path.join(self.dir, "hostfile")
        with open(self.hostfile, "w") as f:
            f.write("".join(f"{address} slots={self.slots}\n" for address in self.addresses))
        self._wait_for_link()

    def in_host(self, host):
        name = self.names[host]
        return ["ip", "netns", "exec", name, "unshare", "--uts", "bash", "-c", 'hostname "$0" && exec "$@"', name]


# Like TwoHosts's agent, but mpirun names hosts by address (no /etc/hosts lines): the address's
# last number picks the namespace, and the hostname is the namespace's name.
_AGENT = r'''#!/bin/bash
while [[ $1 == -* ]]; do shift; done
address=$1
shift
index=${address##*.}
letters=abcdefghijklmnopqr
host=PREFIXPID${letters:$((index - 1)):1}
exec ip netns exec "$host" unshare --uts bash -c 'hostname "$0" || exit 1; eval "$1"' "$host" "$*"
'''.replace("PREFIXPID", f"{PREFIX}{os.getpid()}")
