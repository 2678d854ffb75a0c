"""Two "hosts" on one machine for the end-to-end tests (needs root).

    with TwoHosts() as hosts:
        proc = hosts.run_mpi(4, ["info", "--json"])

Each host is a network namespace with its own hostname (`unshare --uts`), joined to the other by
a veth pair on a private /24; both names are added to /etc/hosts. Open MPI launches the remote
daemon through an rsh agent that enters the other namespace, exactly as ssh would enter another
machine. The filesystem is shared, so output written by either host is visible to both.

Cleanup deletes the namespaces, ends the processes left in them, removes its temporary folder and
restores /etc/hosts exactly, also on an exception, SIGINT, SIGTERM or SIGHUP. What an earlier run
killed outright left behind (namespaces, /etc/hosts lines, folder; its pid is gone) is removed on
the next setup; only names with this module's prefix are touched.
"""
import atexit
import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile

from harness import MPIEXEC, SHARDRUN, clean_env

PREFIX = "srth"                    # every namespace and hostname this module creates starts with it
HOSTS_FILE = "/etc/hosts"
_TAG = "# shardrun-two-hosts pid="
_NAME = re.compile(rf"^{PREFIX}(\d+)[ab]$")
_DIR_PREFIX = "shardrun-test-twohosts-"     # + pid: the agent script and the hostfile
_FORWARDED = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "PATH")

# AGENT [options] HOST COMMAND...: like ssh, the command words are joined by spaces and read by a
# shell on the "host" (Open MPI quotes them for that), here inside HOST's network namespace with
# HOST as the hostname.
AGENT = r'''#!/bin/bash
while [[ $1 == -* ]]; do shift; done
host=$1
shift
exec ip netns exec "$host" unshare --uts bash -c 'hostname "$0" || exit 1; eval "$1"' "$host" "$*"
'''


class SetupError(RuntimeError):
    pass


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ip(*args, check=True):
    proc = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SetupError(f"`ip {' '.join(args)}` failed: {proc.stderr.strip()}")
    return proc


def _namespaces():
    proc = _ip("netns", "list", check=False)
    return [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: ends the run like Ctrl-C (unittest stops), and the cleanup runs."""


def _raise_terminated(signum, frame):
    raise _Terminated(f"signal {signum}")


class TwoHosts:
    """Context manager: two namespaces-as-hosts with `slots` MPI slots each."""

    def __init__(self, slots=2, edit_hosts_file=True):
        """edit_hosts_file=False: the hosts are reached by address only and /etc/hosts (which other tests
        running at the same time may edit) is left alone."""
        pid = os.getpid()
        self.edit_hosts_file = edit_hosts_file
        self.pid = pid
        self.slots = slots
        self.hosts = (f"{PREFIX}{pid}a", f"{PREFIX}{pid}b")
        net = f"10.231.{pid % 250}"
        self.addresses = (f"{net}.1", f"{net}.2")
        self.subnet = f"{net}.0/24"
        self.dir = None
        self.agent = None
        self.hostfile = None
        self._hosts_original = None
        self._old_handlers = {}
        self._created = []

    # -- setup ---------------------------------------------------------------------------------
    def __enter__(self):
        self._check_prerequisites()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._old_handlers[sig] = signal.signal(sig, _raise_terminated)
        atexit.register(self.close)   # when an interrupt ends the interpreter before __exit__ runs
        try:
            self._remove_stale()
            self._create()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _check_prerequisites(self):
        if os.geteuid() != 0:
            raise SetupError("TwoHosts needs root (ip netns, veth, /etc/hosts); run the two-host test as root")
        for tool in ("ip", "unshare", "bash"):
            if shutil.which(tool) is None:
                raise SetupError(f"TwoHosts needs `{tool}` on PATH (iproute2 / util-linux)")

    def _remove_stale(self):
        """Deletes namespaces, /etc/hosts lines and helper folders of earlier runs whose process is gone."""
        for name in _namespaces():
            m = _NAME.match(name)
            if m and (int(m.group(1)) == self.pid or not _pid_alive(int(m.group(1)))):
                self._delete_namespace(name)
        for path in glob.glob(os.path.join(tempfile.gettempdir(), _DIR_PREFIX + "*")):
            m = re.match(r"(\d+)-", os.path.basename(path)[len(_DIR_PREFIX):])
            if m and (int(m.group(1)) == self.pid or not _pid_alive(int(m.group(1)))):
                shutil.rmtree(path, ignore_errors=True)
        if not self.edit_hosts_file:
            return
        with open(HOSTS_FILE) as f:
            text = f.read()
        kept = [line for line in text.splitlines(keepends=True) if not self._stale_hosts_line(line)]
        if "".join(kept) != text:
            with open(HOSTS_FILE, "w") as f:
                f.write("".join(kept))

    def _stale_hosts_line(self, line):
        if _TAG not in line:
            return False
        m = re.search(re.escape(_TAG) + r"(\d+)", line)
        return m is not None and (int(m.group(1)) == self.pid or not _pid_alive(int(m.group(1))))

    def _create(self):
        a, b = self.hosts
        self.dir = tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{self.pid}-")
        for name in self.hosts:
            _ip("netns", "add", name)
            self._created.append(name)
        # veth names are at most 15 characters: srth<pid>a is at most 12.
        _ip("link", "add", f"{a}", "netns", a, "type", "veth", "peer", "name", f"{b}", "netns", b)
        for name, address in zip(self.hosts, self.addresses):
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", name)
            _ip("-n", name, "link", "set", name, "up")
            _ip("-n", name, "link", "set", "lo", "up")

        if self.edit_hosts_file:
            self._add_hosts_lines()
        self.agent = os.path.join(self.dir, "rsh-agent")
        with open(self.agent, "w") as f:
            f.write(AGENT)
        os.chmod(self.agent, 0o755)
        self.hostfile = os.path.join(self.dir, "hostfile")
        with open(self.hostfile, "w") as f:
            f.write("".join(f"{name} slots={self.slots}\n" for name in self.hosts))
        self._wait_for_link()

    def _add_hosts_lines(self):
        with open(HOSTS_FILE) as f:
            self._hosts_original = f.read()
        lines = "".join(f"{address} {name}  {_TAG}{self.pid}\n" for name, address in zip(self.hosts, self.addresses))
        sep = "" if self._hosts_original.endswith("\n") or not self._hosts_original else "\n"
        with open(HOSTS_FILE, "w") as f:
            f.write(self._hosts_original + sep + lines)

    def _wait_for_link(self):
        """The veth may take a moment to come up; a TCP connect to a closed port answers once it has."""
        probe = ("import socket, sys, time\n"
                 "deadline = time.time() + 10\n"
                 "while True:\n"
                 "    try:\n"
                 "        socket.create_connection((sys.argv[1], 9), timeout=1).close(); break\n"
                 "    except ConnectionRefusedError: break\n"
                 "    except OSError:\n"
                 "        if time.time() > deadline: raise\n"
                 "        time.sleep(0.1)\n")
        proc = subprocess.run(["ip", "netns", "exec", self.hosts[0], "python3", "-c", probe, self.addresses[1]],
                              capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            raise SetupError(f"{self.hosts[0]} cannot reach {self.hosts[1]} over the veth: {proc.stderr.strip()}")

    # -- running -------------------------------------------------------------------------------
    def in_host(self, host):
        """The command prefix that runs a command on `host` (0 or 1) with its hostname."""
        name = self.hosts[host]
        return ["ip", "netns", "exec", name, "unshare", "--uts", "bash", "-c", 'hostname "$0" && exec "$@"', name]

    def mpirun_command(self, np, args, env=None, extra_mpi=()):
        forwarded = sorted(set(k for k in _FORWARDED if k in os.environ) | set((env or {}).keys()))
        return [*self.in_host(0), MPIEXEC,
                "--mca", "plm_rsh_agent", self.agent,
                "--hostfile", self.hostfile,
                "-np", str(np),
                "--mca", "oob_tcp_if_include", self.subnet,
                "--mca", "btl_tcp_if_include", self.subnet,
                *[x for k in forwarded for x in ("-x", k)],
                *extra_mpi,
                SHARDRUN, *args]

    def run_mpi(self, np, args, env=None, timeout=300, extra_mpi=(), cwd=None):
        """Runs `mpirun -np N shardrun ARGS` from the first host over both; returns the CompletedProcess."""
        cmd = self.mpirun_command(np, args, env, extra_mpi)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=clean_env(env), cwd=cwd, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._stop(proc)
            out, err = proc.communicate()
            raise subprocess.TimeoutExpired(cmd, timeout, output=out, stderr=err)
        except BaseException:
            self._stop(proc)
            proc.communicate()
            raise
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def _stop(self, proc):
        """SIGTERM to mpirun (it ends its ranks), SIGKILL after a grace, then whatever is left in the namespaces."""
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for name in self.hosts:
            self._kill_namespace_processes(name)

    # -- cleanup -------------------------------------------------------------------------------
    @staticmethod
    def _kill_namespace_processes(name):
        proc = _ip("netns", "pids", name, check=False)
        for pid in proc.stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass

    def _delete_namespace(self, name):
        self._kill_namespace_processes(name)
        _ip("netns", "del", name, check=False)

    def close(self):
        # A second SIGTERM (or Ctrl-C) must not cut the cleanup short; it is delivered afterwards.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        try:
            self._close()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def _close(self):
        errors = []
        try:
            if self._hosts_original is not None:
                with open(HOSTS_FILE, "w") as f:
                    f.write(self._hosts_original)
                self._hosts_original = None
        except OSError as e:
            errors.append(f"restoring {HOSTS_FILE}: {e}")
        for name in self._created:
            self._delete_namespace(name)      # the veth pair goes with them
        self._created = []
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        self._old_handlers = {}
        atexit.unregister(self.close)
        if errors:
            raise SetupError("; ".join(errors))
