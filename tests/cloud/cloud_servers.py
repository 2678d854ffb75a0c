"""Local object storage for the cloud tests: moto's S3 server and gcp-storage-emulator on loopback,
from the venv scripts/install-deps makes (SHARDRUN_CLOUDENV, default /opt/shardrun-cloudenv).
Each server runs in its own process group and is stopped (SIGKILL to the group) by stop(),
which the tests register as a cleanup before anything else can fail."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

CLOUDENV = os.environ.get("SHARDRUN_CLOUDENV", "/opt/shardrun-cloudenv")
AWS = "/usr/bin/aws"  # Debian's awscli (the first `aws` on PATH may be another one)
SKIP = 77  # ctest SKIP_RETURN_CODE


def skip_unless_available():
    """Exits 77 with the reason when a part these tests need is not installed."""
    needed = [os.path.join(CLOUDENV, "bin", "moto_server"), os.path.join(CLOUDENV, "bin", "gcp-storage-emulator"),
              "/usr/bin/rclone", AWS]
    missing = [path for path in needed if not os.path.exists(path)]
    if missing:
        print("SKIPPED: not installed: " + ", ".join(missing) + " (scripts/install-deps installs them)")
        sys.exit(SKIP)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def processes_with_env(entry):
    """Pids whose environment holds `entry` (NAME=value): what this test's runs started, rclone included."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if entry.encode() in f.read().split(b"\0"):
                    pids.append(int(pid))
        except OSError:
            pass
    return pids


def kill_until_gone(find_pids, what):
    """SIGKILL to every pid find_pids() returns until it returns none (30 s at most; `what` names them)."""
    deadline = time.time() + 30
    while pids := find_pids():
        if time.time() > deadline:
            raise AssertionError(f"{what} survived SIGKILL: {pids}")
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def kill_processes_with_env(entry):
    """SIGKILL to every process whose environment holds `entry` until none is left (30 s at most):
    what a stopped run or element started, rclone and task processes included."""
    kill_until_gone(lambda: processes_with_env(entry), f"processes with {entry}")


def listening(port, wrap=()):
    """Whether 127.0.0.1:port accepts a connection (inside the network namespace `wrap` enters, when given)."""
    if not wrap:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False
    probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1).close()"
    return subprocess.run([*wrap, sys.executable, "-c", probe], capture_output=True).returncode == 0


class Server:
    """argv in its own process group; `wrap` (a command prefix such as `ip netns exec NS`) runs it in a
    network namespace, `host` is the address the clients use (127.0.0.1 by default); `env` adds variables."""

    def __init__(self, argv, port, log, wrap=(), host="127.0.0.1", env=None):
        self.port = port
        self.host = host
        self.log = open(log, "w")
        self.proc = subprocess.Popen([*wrap, *argv], stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
                                     env=None if env is None else {**os.environ, **env})
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{argv[0]} exited {self.proc.returncode}; see {log}")
            if listening(port, wrap):
                return
            time.sleep(0.1)
        self.stop()
        raise AssertionError(f"{argv[0]} did not listen on {port} within 60 s")

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()


class S3:
    """moto's S3 server with one bucket; env() is what shardrun (and aws) need to reach it. With `wrap`
    (entering a network namespace) and `host` (its address there), the server listens on every address
    of that namespace and the test's own aws calls run inside it.
    checks_keys: moto checks every request's key (INITIAL_NO_AUTH_ACTION_COUNT; the bucket is made by the
    one unchecked request), so no key is valid: what a wrong key meets on AWS (InvalidAccessKeyId)."""

    def __init__(self, work, bucket="shardrun-test", wrap=(), host="127.0.0.1", checks_keys=False):
        port = free_port()
        self.wrap = list(wrap)
        self.server = Server([os.path.join(CLOUDENV, "bin", "moto_server"), "-H", host if not wrap else "0.0.0.0",
                              "-p", str(port)], port, os.path.join(work, "moto.log"), self.wrap, host,
                             env={"INITIAL_NO_AUTH_ACTION_COUNT": "1"} if checks_keys else None)
        self.bucket = bucket
        try:
            self.aws("s3api", "create-bucket", "--bucket", bucket)
        except BaseException:
            self.server.stop()
            raise

    def stop(self):
        self.server.stop()

    def env(self):
        return {"AWS_ENDPOINT_URL": self.server.url, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_DEFAULT_REGION": "us-east-1"}

    def url(self, key):
        return f"s3://{self.bucket}/{key}"

    def aws(self, *args):
        env = dict(os.environ, **self.env())
        env.pop("AWS_CA_BUNDLE", None)
        proc = subprocess.run([*self.wrap, AWS, "--endpoint-url", self.server.url, *args], capture_output=True, text=True, env=env,
                              timeout=120)
        if proc.returncode != 0:
            raise AssertionError(f"aws {' '.join(args)}: {proc.stderr}")
        return proc.stdout

    def keys(self, prefix):
        out = self.aws("s3api", "list-objects-v2", "--bucket", self.bucket, "--prefix", prefix)
        return sorted(item["Key"] for item in (json.loads(out) if out.strip() else {}).get("Contents", []))

    def get(self, key, path):
        self.aws("s3", "cp", f"s3://{self.bucket}/{key}", path)

    def put(self, path, key):
        self.aws("s3", "cp", path, f"s3://{self.bucket}/{key}")


class GCS:
    """gcp-storage-emulator (in memory) with one bucket, read back through its JSON API."""

    def __init__(self, work, bucket="shardrun-test"):
        port = free_port()
        self.server = Server([os.path.join(CLOUDENV, "bin", "gcp-storage-emulator"), "start", "--host", "127.0.0.1",
                              "--port", str(port), "--in-memory", "--default-bucket", bucket],
                             port, os.path.join(work, "gcs.log"))
        self.bucket = bucket

    def stop(self):
        self.server.stop()

    def env(self):
        return {"STORAGE_EMULATOR_HOST": self.server.url}

    def url(self, key):
        return f"gs://{self.bucket}/{key}"

    def keys(self, prefix):
        query = urllib.parse.urlencode({"prefix": prefix})
        with urllib.request.urlopen(f"{self.server.url}/storage/v1/b/{self.bucket}/o?{query}", timeout=60) as response:
            return sorted(item["name"] for item in json.load(response).get("items", []))

    def put_text(self, key, text):
        query = urllib.parse.urlencode({"uploadType": "media", "name": key})
        request = urllib.request.Request(f"{self.server.url}/upload/storage/v1/b/{self.bucket}/o?{query}",
                                         data=text.encode(), method="POST",
                                         headers={"Content-Type": "application/octet-stream"})
        urllib.request.urlopen(request, timeout=60).close()

    def get(self, key, path):
        name = urllib.parse.quote(key, safe="")
        with urllib.request.urlopen(f"{self.server.url}/download/storage/v1/b/{self.bucket}/o/{name}?alt=media",
                                    timeout=60) as response, open(path, "wb") as f:
            f.write(response.read())

    def put(self, path, key):
        """One simple upload (uploadType=media): rclone's resumable one gets a 308 the emulator ends it with."""
        with open(path, "rb") as f:
            data = f.read()
        query = urllib.parse.urlencode({"uploadType": "media", "name": key})
        request = urllib.request.Request(f"{self.server.url}/upload/storage/v1/b/{self.bucket}/o?{query}", data=data,
                                         method="POST", headers={"Content-Type": "application/octet-stream"})
        with urllib.request.urlopen(request, timeout=300) as response:
            response.read()
