"""``python -m dumbbell``: the command line.

Guarded, because the worker processes of ``--executor dask`` (spawned by
multiprocessing) import the main module again and must not rerun the command.
A plain ``dumbbell run`` starts without click (:mod:`dumbbell.entry`).
"""

from .entry import main

if __name__ == "__main__":
    main()
