"""N /bin/true tasks through HyperQueue's Python API: a local server and one worker with 2
cores, each task's stdout and stderr in files under the working directory (HQ's default)."""
import sys

from hyperqueue import Job
from hyperqueue.cluster import LocalCluster, WorkerConfig

if __name__ == "__main__":
    tasks, workdir = int(sys.argv[1]), sys.argv[2]
    with LocalCluster(server_dir=workdir + "/server") as cluster:
        cluster.start_worker(WorkerConfig(cores=2))
        client = cluster.client()
        job = Job(default_workdir=workdir)
        for i in range(tasks):
            job.program(["/bin/true", str(i)])
        ok = client.wait_for_jobs([client.submit(job)], raise_on_error=False)
    sys.exit(0 if ok else 1)
