"""The nodes of an AWS Batch multi-node parallel job as "containers" on this machine (needs root).

Each node is a network namespace of tests/cli/two_hosts.py (its own address on a veth, its own
hostname) and its own mount namespace in which one folder, the same path on every node
(`self.mount`), shows that node's private root: HOME, TMPDIR and the image's /usr/local/bin
(shardrun and the generated entrypoint) live there. So the nodes see the same paths, as containers
of one image do, but share no file: a file one node writes there the other never sees.

mpirun on the main node reaches the other node the way it would reach a container's sshd: the
rsh agent (`ssh-node`, in every node's bin folder; OMPI_MCA_plm_rsh_agent names it) enters that
node's namespaces (nsenter into its entrypoint's mount, UTS and network namespaces) with a login
shell's environment (HOME, PATH), not the container's variables: sshd gives no more.

stop() kills every process of a node (the container's and what the agent started on it); TwoHosts
removes the namespaces, the veth and its /etc/hosts lines.
"""
import os
import signal
import subprocess

from cloud_servers import kill_processes_with_env, kill_until_gone
from harness import SHARDRUN, clean_env

LOGIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# ssh HOST COMMAND...: the command words are joined and read by a shell on the node, as sshd does.
AGENT = r'''#!/bin/bash
while [[ $1 == -* ]]; do shift; done
host=$1
shift
case $host in
{cases}
*) echo "ssh-node: no node at $host" >&2; exit 255 ;;
esac
pid=$(cat "$pidfile") || exit 255
exec nsenter -t "$pid" -m -u -n env -i HOME={mount}/home PATH={mount}/usr-local-bin:{login_path} \
    SHARDRUN_TEST_MACHINE="$machine" bash -c "$*"
'''


def _is_node_process(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return any(entry.startswith(b"SHARDRUN_TEST_MACHINE=") for entry in f.read().split(b"\0"))
    except OSError:
        return False


class ContainerNodes:
    def __init__(self, hosts, root, entrypoint):
        """hosts: an entered two_hosts.TwoHosts; root: a scratch folder; entrypoint: the generated text."""
        self.hosts = hosts
        self.mount = os.path.join(root, "node")  # empty here; each node mounts its own root on it
        os.makedirs(self.mount)
        self.roots = [os.path.join(root, f"node{i}-root") for i in range(len(hosts.hosts))]
        self.pidfiles = [os.path.join(root, f"node{i}.pid") for i in range(len(hosts.hosts))]
        self.procs = {}
        cases = "\n".join(f"{address}) pidfile={pidfile}; machine={name} ;;"
                          for address, pidfile, name in zip(hosts.addresses, self.pidfiles, hosts.hosts))
        agent = AGENT.format(cases=cases, mount=self.mount, login_path=LOGIN_PATH)
        for node_root in self.roots:
            bin_dir = os.path.join(node_root, "usr-local-bin")
            for sub in ("home", "tmp", "usr-local-bin"):
                os.makedirs(os.path.join(node_root, sub))
            os.symlink(SHARDRUN, os.path.join(bin_dir, "shardrun"))
            for name, text in (("shardrun-entrypoint", entrypoint), ("ssh-node", agent)):
                with open(os.path.join(bin_dir, name), "w") as f:
                    f.write(text)
                os.chmod(os.path.join(bin_dir, name), 0o755)

    def address(self, node):
        return self.hosts.addresses[node]

    def start(self, node, command, variables, mpiexec):
        """The node's container: `command` as PID 1 with the job's and the service's `variables`."""
        name = self.hosts.hosts[node]
        env = clean_env({**variables, "HOME": f"{self.mount}/home", "TMPDIR": f"{self.mount}/tmp",
                         "PATH": f"{self.mount}/usr-local-bin:{LOGIN_PATH}", "SHARDRUN_MPIRUN": mpiexec,
                         # the image's ENV: root may run mpirun, and mpirun's "ssh" is the agent above
                         "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                         "OMPI_MCA_plm_rsh_agent": f"{self.mount}/usr-local-bin/ssh-node",
                         "SHARDRUN_TEST_MACHINE": name})
        script = 'hostname "$0" && mount --bind "$1" "$2" && echo $$ > "$3" && shift 3 && exec "$@"'
        argv = ["ip", "netns", "exec", name, "unshare", "--uts", "--mount", "--propagation", "private",
                "bash", "-c", script, name, self.roots[node], self.mount, self.pidfiles[node], *command]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        self.procs[node] = proc
        return proc

    def finish(self, node, timeout):
        proc = self.procs[node]
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err

    def kill(self, node):
        """The node is lost (a host failure, a spot reclaim without warning): SIGKILL to all of it, that is to
        every process of its network namespace that is a node's (it has a SHARDRUN_TEST_MACHINE: the
        ranks there carry the main node's, which mpirun forwards) until none is left; a server the test
        runs in that namespace is spared."""
        name = self.hosts.hosts[node]
        kill_until_gone(lambda: [pid for pid in self._namespace_pids(name) if _is_node_process(pid)],
                        f"processes of {name}")
        kill_processes_with_env(f"SHARDRUN_TEST_MACHINE={name}")

    @staticmethod
    def _namespace_pids(name):
        proc = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
        return [int(pid) for pid in proc.stdout.split()]

    def stop(self):
        for node, proc in self.procs.items():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            self.kill(node)
            proc.communicate()
        self.procs = {}
