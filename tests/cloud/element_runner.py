"""How tests/cloud/cloud_jobs_test.py runs one array element (or the merge job) of the generated job files.

HostRunner (the default): the generated command on this host, in a fresh HOME/TMPDIR with the generated
entrypoint and this build's shardrun on PATH, as the image would have them.
ImageRunner (CLOUD_RUNNER=image): the command in a container of the image scripts/build-image makes from
these sources (`podman run --rm --network host`), with the variables the job files and the service set
and nothing mounted from the host: as on AWS Batch, the elements share only the bucket, which they reach
on 127.0.0.1 through the host's network. A spot stop is `podman kill --signal TERM` (what `docker stop`
sends PID 1, the entrypoint).

Both give start(name, command, variables) -> a handle, terminate(handle) (SIGTERM), finish(handle,
timeout) -> (returncode, out, err), and stop(handle), which the test registers as a cleanup: it kills
what is left (a container is removed with `podman rm -f`, also when the test failed)."""
import os
import signal
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cloud_servers import kill_processes_with_env  # noqa: E402
from harness import MPIEXEC, SHARDRUN, SOURCE_DIR, clean_env, scratch_dir  # noqa: E402

SKIP = 77  # ctest SKIP_RETURN_CODE


class HostRunner:
    """Each element on this host: its own HOME and TMPDIR, the image's shardrun and entrypoint on PATH."""

    def __init__(self, test, entrypoint):
        self.test = test
        self.entrypoint = entrypoint  # the text of the generated entrypoint

    def start(self, name, command, variables):
        root = scratch_dir(self.test)
        bin_dir = os.path.join(root, "usr-local-bin")
        for sub in ("home", "tmp", "usr-local-bin"):
            os.makedirs(os.path.join(root, sub))
        os.symlink(SHARDRUN, os.path.join(bin_dir, "shardrun"))
        path = os.path.join(bin_dir, "shardrun-entrypoint")
        with open(path, "w") as f:
            f.write(self.entrypoint)
        os.chmod(path, 0o755)
        # What the image's ENV sets (root may run mpirun; oversubscribing the test machine's 2 cores).
        env = clean_env({**variables, "HOME": os.path.join(root, "home"), "TMPDIR": os.path.join(root, "tmp"),
                         "SHARDRUN_MPIRUN": MPIEXEC, "OMPI_ALLOW_RUN_AS_ROOT": "1",
                         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1",
                         "SHARDRUN_TEST_MACHINE": name})  # finds this machine's processes at cleanup
        env["PATH"] = bin_dir + ":" + env.get("PATH", "/usr/bin:/bin")
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root,
                                start_new_session=True)
        return proc, name

    def terminate(self, handle):
        handle[0].send_signal(signal.SIGTERM)

    def finish(self, handle, timeout):
        out, err = handle[0].communicate(timeout=timeout)
        return handle[0].returncode, out, err

    def stop(self, handle):
        proc, name = handle
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        kill_processes_with_env(f"SHARDRUN_TEST_MACHINE={name}")


PODMAN = [os.path.join(SOURCE_DIR, "scripts", "podman-local")]


def image_or_skip():
    """The image of these sources (built now, or the one built from them before); exits 77 with the reason
    where no container can run here: not root, no podman, no Debian mirror for the base."""
    def skip(reason):
        print(f"SKIPPED: {reason}")
        sys.exit(SKIP)
    if os.geteuid() != 0:
        skip("the image route needs root (rootful podman, debootstrap)")
    if subprocess.run(["sh", "-c", "command -v podman"], capture_output=True).returncode != 0:
        skip("podman is missing; scripts/install-deps installs it")
    rootfs = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "minimal-rootfs")], capture_output=True, text=True)
    if rootfs.returncode != 0:
        skip("debootstrap could not make the Debian 12 base: " + rootfs.stdout + rootfs.stderr)
    start = time.time()
    build = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "build-image"), "--reuse"], capture_output=True,
                           text=True)
    if build.returncode != 0:
        raise SystemExit(f"scripts/build-image failed ({build.returncode}):\n{build.stdout}{build.stderr}")
    image = build.stdout.strip().splitlines()[-1]
    print(f"image {image} ready in {time.time() - start:.0f} s", flush=True)
    return image


class ImageRunner:
    """Each element a container of the image: nothing from the host but the variables and the network."""

    def __init__(self, test, image):
        self.test = test
        self.image = image

    def start(self, name, command, variables):
        container = f"shardrun-cloud-jobs-{name}-{uuid.uuid4().hex[:8]}"
        argv = [*PODMAN, "run", "--rm", "--network", "host", "--name", container]
        for key, value in variables.items():
            argv += ["-e", f"{key}={value}"]
        # Own process group: the podman client is killed with its group when the test gives up on it.
        proc = subprocess.Popen([*argv, self.image, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        return proc, container

    def running(self, container):
        proc = subprocess.run([*PODMAN, "container", "inspect", "--format", "{{.State.Running}}", container],
                              capture_output=True, text=True)
        return proc.returncode == 0 and proc.stdout.strip() == "true"

    def terminate(self, handle):
        proc, container = handle
        deadline = time.time() + 60  # the container may still be starting: `podman kill` needs it running
        while not self.running(container):
            self.test.assertIsNone(proc.poll(), f"container {container} ended before its SIGTERM")
            self.test.assertLess(time.time(), deadline, f"container {container} not running after 60 s")
            time.sleep(0.2)
        kill = subprocess.run([*PODMAN, "kill", "--signal", "TERM", container], capture_output=True, text=True)
        self.test.assertEqual(kill.returncode, 0, f"podman kill --signal TERM {container}: {kill.stderr}")

    def finish(self, handle, timeout):
        out, err = handle[0].communicate(timeout=timeout)
        return handle[0].returncode, out, err

    def stop(self, handle):
        proc, container = handle
        rm = subprocess.run([*PODMAN, "rm", "-f", "--ignore", container], capture_output=True, text=True)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        if rm.returncode != 0:
            raise AssertionError(f"podman rm -f {container}: {rm.stderr}")
