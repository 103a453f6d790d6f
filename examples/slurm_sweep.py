"""Reproduce E3 (lossy-cc) at paper scale on a SLURM cluster, through Dask.

dask-jobqueue submits SLURM jobs that each start Dask workers; dumbbell's
sweep engine sends them one simulation at a time and writes every result
into the store on the machine running this script (the workers need no
shared file system, only dumbbell installed in the same environment, the
one `--python` names). Kill this script at any moment and start it again:
the runs already in the store are not computed again.

    pip install 'dumbbell[slurm]'
    python examples/slurm_sweep.py --jobs 10 --cores 32 --memory 64GB \\
        --walltime 02:00:00 --queue normal --account mylab
    python examples/slurm_sweep.py --dry-run     # print the SLURM job script only

The same from the shell, with a scheduler you started yourself:
    dumbbell reproduce lossy-cc --scale paper --executor dask --scheduler tcp://HOST:8786
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=4, help="SLURM jobs (each one node's worth of workers)")
    ap.add_argument("--cores", type=int, default=16, help="cores per job: one single-threaded worker each")
    ap.add_argument("--memory", default="32GB", help="memory per job")
    ap.add_argument("--walltime", default="02:00:00")
    ap.add_argument("--queue", default=None, help="SLURM partition")
    ap.add_argument("--account", default=None)
    ap.add_argument("--python", default=sys.executable, help="the Python the workers run (with dumbbell installed)")
    ap.add_argument("--experiment", default="lossy-cc")
    ap.add_argument("--scale", default="paper")
    ap.add_argument("--store", type=Path, default=Path("dumbbell-results"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--dry-run", action="store_true", help="print the job script and exit")
    args = ap.parse_args(argv)

    from dask_jobqueue import SLURMCluster

    cluster = SLURMCluster(
        cores=args.cores,
        processes=args.cores,  # one single-threaded worker per core: one simulation each
        memory=args.memory,
        walltime=args.walltime,
        queue=args.queue,
        account=args.account,
        python=args.python,
        scheduler_options={"dashboard_address": None},
    )
    try:
        if args.dry_run:
            print(cluster.job_script())
            return 0
        cluster.scale(jobs=args.jobs)

        from dumbbell import experiments
        from dumbbell.sweep import RichDisplay, using

        module = experiments.get(args.experiment)
        out = args.out or Path("out") / args.experiment
        with using(store=args.store, executor="dask", scheduler=cluster, display=RichDisplay()):
            result = module.run(scale=args.scale, progress=lambda m: print(m, file=sys.stderr))
        result.write(out)
        module.figures(result, out)
        print(module.report(result), file=sys.stderr)
        return 0
    finally:
        cluster.close()


if __name__ == "__main__":
    raise SystemExit(main())
