"""N "hosts" on one machine (needs root): two_hosts.py's TwoHosts grown past two.

    with NamespaceHosts(4, slots=2) as hosts:
        proc = hosts.run_mpi(8, ["run", "job.yaml"])

Each host is a network namespace with its own hostname, as in two_hosts.py; instead of one veth
pair they are joined by a bridge in a further "switch" namespace (one veth per host, its peer
on the bridge), on a private /24. /etc/hosts is left alone: Open MPI reaches each host through
the rsh agent (by namespace name) and its daemons by address, so no name needs to resolve.

Cleanup (TwoHosts.close) deletes every namespace it made (the veths and the bridge go with
them), ends the processes left in them and removes its folder; a run killed outright leaves
names with this module's prefix and a dead pid, which the next setup removes.
"""
import os
import re
import tempfile

from two_hosts import AGENT, _DIR_PREFIX, TwoHosts, _ip, _namespaces, _pid_alive

PREFIX = "srend"                   # every namespace, veth and bridge this module creates starts with it
_NAME = re.compile(rf"^{PREFIX}(\d+)[hs]\d*$")


class NamespaceHosts(TwoHosts):
    """Context manager: `count` namespaces-as-hosts with `slots` MPI slots each, on one bridge."""

    def __init__(self, count, slots=2):
        super().__init__(slots=slots, edit_hosts_file=False)
        pid = self.pid
        # 15 characters at most (interface names): srend + pid (<= 7) + h/p + index (<= 2).
        self.hosts = tuple(f"{PREFIX}{pid}h{i}" for i in range(count))
        self.switch = f"{PREFIX}{pid}s"
        net = f"10.232.{pid % 250}"
        self.addresses = tuple(f"{net}.{i + 1}" for i in range(count))
        self.subnet = f"{net}.0/24"

    def _remove_stale(self):
        for name in _namespaces():
            m = _NAME.match(name)
            if m and (int(m.group(1)) == self.pid or not _pid_alive(int(m.group(1)))):
                self._delete_namespace(name)
        super()._remove_stale()   # TwoHosts' own leftovers and helper folders, as before

    def _create(self):
        self.dir = tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{self.pid}-")
        _ip("netns", "add", self.switch)
        self._created.append(self.switch)
        bridge = f"{PREFIX}{self.pid}b"
        _ip("-n", self.switch, "link", "add", bridge, "type", "bridge")
        _ip("-n", self.switch, "link", "set", bridge, "up")
        for i, (name, address) in enumerate(zip(self.hosts, self.addresses)):
            _ip("netns", "add", name)
            self._created.append(name)
            port = f"{PREFIX}{self.pid}p{i}"
            _ip("link", "add", name, "netns", name, "type", "veth", "peer", "name", port, "netns", self.switch)
            _ip("-n", self.switch, "link", "set", port, "master", bridge)
            _ip("-n", self.switch, "link", "set", port, "up")
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", name)
            _ip("-n", name, "link", "set", name, "up")
            _ip("-n", name, "link", "set", "lo", "up")
        self.agent = os.path.join(self.dir, "rsh-agent")
        with open(self.agent, "w") as f:
            f.write(AGENT)
        os.chmod(self.agent, 0o755)
        self.hostfile = os.path.join(self.dir, "hostfile")
        with open(self.hostfile, "w") as f:
            f.write("".join(f"{name} slots={self.slots}\n" for name in self.hosts))
        self._wait_for_link()   # the first host reaches the second: the bridge forwards

