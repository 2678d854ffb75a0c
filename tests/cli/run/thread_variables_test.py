"""Issue 34, point 1 on a cluster node: under a plain `mpirun`, each exec task (and each worker) gets
OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS, NUMEXPR_NUM_THREADS and
SHARDRUN_CPU_THREADS = its rank's CPU share: the CPUs of the rank's affinity mask over the ranks of
its node that share them (at least 1), over slots_per_rank. Open MPI's binding decides the mask:
with --bind-to none every rank sees all CPUs and they split them; with the default binding (one core
per rank at np <= 2) a rank keeps its own core. A thread variable set by the job (exec.env) or the
environment wins, and then shardrun sets none of the others. Each task stores what it saw as results,
read back with h5py."""
import os
import unittest

from harness import SOURCE_DIR, run, scratch_dir
from jobs import h5py_module, write_job

TASKS = 4
# No braces: exec.argv's {name} are placeholders.
PROBE = ("import json, os; v = lambda n: int(os.environ.get(n, '0')); "
         "json.dump(dict(cpus=len(os.sched_getaffinity(0)), omp=v('OMP_NUM_THREADS'), mkl=v('MKL_NUM_THREADS'), "
         "openblas=v('OPENBLAS_NUM_THREADS'), blis=v('BLIS_NUM_THREADS'), numexpr=v('NUMEXPR_NUM_THREADS'), "
         "share=v('SHARDRUN_CPU_THREADS')), open(os.environ['SHARDRUN_RESULT'], 'w'))")
FIELDS = ("cpus", "omp", "mkl", "openblas", "blis", "numexpr", "share")
WORKER = """\
import json, os, sys
sys.path.insert(0, {scripts!r})
import shardrun_worker
v = lambda n: int(os.environ.get(n, '0'))
for task in shardrun_worker.tasks():
    with task:
        task.done({{'cpus': len(os.sched_getaffinity(0)), 'omp': v('OMP_NUM_THREADS'), 'mkl': v('MKL_NUM_THREADS'),
                   'openblas': v('OPENBLAS_NUM_THREADS'), 'blis': v('BLIS_NUM_THREADS'),
                   'numexpr': v('NUMEXPR_NUM_THREADS'), 'share': v('SHARDRUN_CPU_THREADS')}})
"""
MACHINE_CPUS = len(os.sched_getaffinity(0))
SCRIPTS = os.path.join(SOURCE_DIR, "scripts")


class ThreadVariablesTest(unittest.TestCase):
    def results(self, np, mpi=(), env=None, exec_lines="", top_lines="", worker=False):
        work = scratch_dir(self)
        if worker:
            program = os.path.join(work, "worker.py")
            with open(program, "w") as f:
                f.write(WORKER.format(scripts=SCRIPTS))
            argv = f"[python3, {program}]"
            exec_lines = "  mode: worker\n" + exec_lines
        else:
            argv = f'[python3, -c, "{PROBE}"]'
        fields = ", ".join(f"{field}: int64" for field in FIELDS)
        job = write_job(work, f"task: exec\nsweep: {{x: {list(range(TASKS))}}}\n{top_lines}"
                              f"output: {{path: {work}/t.h5}}\nexec:\n  argv: {argv}\n{exec_lines}  results: {{{fields}}}\n")
        proc = run(["run", job, "-q"], np=np, extra_mpi=mpi, env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with h5py_module().File(os.path.join(work, "t.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS)
            return [{field: int(f["results/" + field][i]) for field in FIELDS} for i in range(TASKS)]

    def check(self, rows, cpus, threads):
        for row in rows:
            self.assertEqual(row["cpus"], cpus, row)
            self.assertEqual([row[name] for name in ("omp", "mkl", "openblas", "blis", "numexpr", "share")],
                             [threads] * 6, row)

    def test_one_unbound_rank_gets_every_cpu(self):
        self.check(self.results(1, ["--bind-to", "none"]), MACHINE_CPUS, MACHINE_CPUS)

    def test_two_unbound_ranks_split_the_cpus(self):
        self.check(self.results(2, ["--bind-to", "none"]), MACHINE_CPUS, max(1, MACHINE_CPUS // 2))

    def test_ranks_bound_to_a_core_keep_their_core(self):
        # Open MPI's default binding at np <= 2 is one core per rank: a task's threads are its rank's cores.
        rows = self.results(2, ["--bind-to", "core"])
        for row in rows:
            self.assertEqual(row["omp"], row["cpus"], row)
            self.assertEqual(row["share"], row["cpus"], row)

    def test_slots_split_the_rank_share(self):
        self.check(self.results(1, ["--bind-to", "none"], top_lines="slots_per_rank: 2\n"), MACHINE_CPUS,
                   max(1, MACHINE_CPUS // 2))

    def test_a_worker_gets_the_same_variables(self):
        self.check(self.results(1, ["--bind-to", "none"], worker=True), MACHINE_CPUS, MACHINE_CPUS)

    def test_the_jobs_variable_wins_and_shardrun_sets_no_other(self):
        rows = self.results(1, ["--bind-to", "none"], exec_lines="  env: {OMP_NUM_THREADS: '3'}\n")
        for row in rows:
            self.assertEqual((row["omp"], row["mkl"], row["openblas"], row["share"]), (3, 0, 0, MACHINE_CPUS), row)

    def test_the_environments_variable_wins_and_shardrun_sets_no_other(self):
        rows = self.results(1, ["--bind-to", "none"], env={"OPENBLAS_NUM_THREADS": "5"})
        for row in rows:
            self.assertEqual((row["omp"], row["mkl"], row["openblas"], row["share"]), (0, 0, 5, MACHINE_CPUS), row)


if __name__ == "__main__":
    unittest.main(verbosity=2)
