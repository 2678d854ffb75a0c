"""Stand-ins for Slurm's commands, to run the generated scripts in bash without a cluster. Each logs
its arguments in the work folder. srun runs until SIGTERM and then exits $FAKE_DRAIN_EXIT (3 unless
set: shardrun's exit after a drain). squeue answers `-o %L` from $FAKE_TIME_LEFT ("40_1=1:00 40_2=0:30")
as squeue filters -j: an element's own name lists that element, the array's id every element."""
import os
import stat


def fake_slurm(work, pmix=True):
    """The folder of srun, scancel, scontrol and squeue stand-ins (put it first on PATH)."""
    bin_dir = os.path.join(work, "fakebin")
    os.makedirs(bin_dir)
    scripts = {
        "srun": f"""if [ "$1" = --mpi=list ]; then echo "srun: MPI types are..."; {'echo "srun: pmix"' if pmix else ''}
                     exit 0; fi
                    trap 'exit ${{FAKE_DRAIN_EXIT:-3}}' TERM
                    # srun.pid appears whole and only once the trap is set (the test waits for it).
                    echo "$*" > {work}/srun.args; echo $$ > {work}/srun.pid.tmp; mv {work}/srun.pid.tmp {work}/srun.pid
                    [ -n "${{FAKE_HOLD:-}}" ] && {{ while :; do sleep 0.1; done; }}
                    exit 0""",
        "scancel": f'echo "$*" > {work}/scancel.args; kill -TERM $(cat {work}/srun.pid)',
        "scontrol": f'echo "$*" > {work}/scontrol.args',
        # No steps left (-s lists nothing); -o %L: the time left of the jobs -j names.
        "squeue": f"""echo "$*" >> {work}/squeue.args
                      case " $* " in *" -s "*) exit 0;; esac
                      case " $* " in *" -o %L "*) ;; *) exit 0;; esac
                      job=$(echo " $* " | sed -n 's/.* -j \\([^ ]*\\) .*/\\1/p')
                      for entry in ${{FAKE_TIME_LEFT:-}}; do
                          name=${{entry%%=*}}
                          [ "$name" = "$job" ] || [ "${{name%%_*}}" = "$job" ] && echo "${{entry#*=}}"
                      done
                      exit 0""",
    }
    for name, body in scripts.items():
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write("#!/bin/bash\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return bin_dir
