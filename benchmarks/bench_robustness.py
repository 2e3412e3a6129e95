"""Robustness benchmark (issue 12): fuzzed inputs through the CLI, kill -9 during ingest, concurrent processes.

Sections (``--only`` picks some; default all):

``fuzz``
    ``--n`` generated inputs (default 1,000; seeded, reproducible): byte mutations of the inputs of
    ``../shared/cases/robustness`` and the MinerU fixtures, structure-aware content lists with
    hostile values, zips of them (corrupt ones too), and the large cases of the issue rebuilt
    (10 MB of graded text, a 20x50 grid of ``colspan=1000 rowspan=1000`` cells, 1 MB zip bombs,
    1e9 page numbers, 100,000-deep nesting). Each input runs ``structaware units --json`` in its own
    process (forked from a process that has imported the CLI, so 1,000 runs take minutes, not an
    hour) with a ``--timeout`` and an address-space cap of 2 GB; the parent reads each child's peak
    RSS from ``wait4``. Outcome per input: units (exit 0), one typed error line (exit 2,
    ``error: <file>: <field>: ...``), crash (a traceback, a signal or any other exit), hang (timeout).
``kill``
    ``--moments`` ingests of 4 documents (``tests/robust_worker.py``: real Qdrant Edge, a tiny hash
    dense model), each killed with SIGKILL just before or after a random one of its engine write
    operations (upsert batches, payload markers, deletes, flushes; the worker kills itself there,
    ``ROBUST_KILL_AT``, so every kill lands mid-write), alternately into a new folder and over an
    index holding an older edition of the same files. After each kill every visible document must
    be one whole edition, each file once; then one more ingest must reach the state of a clean
    ingest with no hidden point left.
``concurrent``
    Two ingests started together into a new folder; an ingest with query processes running
    meanwhile; an ingest while two reader processes keep the index open (one idle, one querying
    back to back); two ``structaware query`` processes (the real CLI and default model) at once.

Run::

    nice -n 10 .venv/bin/python benchmarks/bench_robustness.py --n 1000 --moments 20
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
ROBUSTNESS = SHARED / "cases" / "robustness"
WORKER = REPO / "tests" / "robust_worker.py"
AS_LIMIT = 2 * 1024**3

# -------------------------------------------------------------------------------------------
# fuzz
# -------------------------------------------------------------------------------------------


def _seeds() -> list[tuple[str, bytes]]:
    files = (
        sorted(p for p in ROBUSTNESS.iterdir() if p.suffix in (".json", ".zip", ".pdf")) if ROBUSTNESS.is_dir() else []
    )
    fixtures = REPO / "tests" / "fixtures"
    files += sorted(p for p in fixtures.rglob("*.json") if p.stat().st_size < 300_000)
    return [(p.name, p.read_bytes()) for p in files]


HOSTILE = [b"[", b"{", b"]", b'"', b"\\ud800", b"99999999999999999999999", b"1e400", b"Infinity", b"NaN", b"\xff",
           b"\x00", b"-1", b"1000000000", b'"rowspan=1000 colspan=1000"', b"null", b"[[[[[[[[[[", b"\xef\xbb\xbf"]  # fmt: skip


def _mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not buf:
            break
        at = rng.randrange(len(buf))
        op = rng.choice(["flip", "delete", "dup", "truncate", "insert", "insert"])
        if op == "flip":
            buf[at] = rng.randrange(256)
        elif op == "delete":
            del buf[at : at + rng.randint(1, 32)]
        elif op == "dup":
            buf[at:at] = buf[at : at + rng.randint(1, 64)] * rng.randint(1, 200)
        elif op == "truncate":
            del buf[at:]
        else:
            buf[at:at] = rng.choice(HOSTILE)
    return bytes(buf)


def _hostile_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(10 if depth < 3 else 7)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 1, 2**31, 2**63 - 1, -(2**63), 10**12, 10**9])
    if kind == 2:
        return rng.choice([0.5, -0.0, 1e308, -1e308, 1e-308])
    if kind in (3, 4, 5, 6):
        return rng.choice(["", "text", "\ud800", "Grade A (strong)", "<table><tr><td>1</td></tr></table>", "x" * 5000])
    if kind == 7:
        return [_hostile_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["text", "bbox", "page_idx", "type"]): _hostile_value(rng, depth + 1) for _ in range(2)}


def _structured(rng: random.Random) -> bytes:
    types = ["text", "title", "table", "image", "list", "equation", "code", "header", "discarded", "weird"]
    fields = ["text", "text_level", "page_idx", "bbox", "table_body", "table_caption", "img_path", "list_items"]
    items = []
    for _ in range(rng.randint(1, 8)):
        item = {"type": rng.choice(types), "text": f"item {rng.random()}", "page_idx": rng.randint(0, 5)}
        for key in rng.sample(fields, rng.randint(0, 4)):
            item[key] = _hostile_value(rng)
        items.append(item)
    text = json.dumps(items, allow_nan=True)
    if rng.random() < 0.5:
        lit = rng.choice(["1" + "0" * 5000, "1e400", "Infinity", "NaN", "1000000000000"])
        text = text.replace('"page_idx": 0', f'"page_idx": {lit}', 1)
    return rng.choice(["", "\ufeff", " " * 10_000]).encode() + text.encode("utf-8", "surrogatepass")


def _zip(rng: random.Random, members: list[tuple[str, bytes]], corrupt: bool) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as zf:
        for name, data in members:
            zf.writestr(name, data)
    raw = bytearray(out.getvalue())
    if corrupt and raw:
        raw[rng.randrange(len(raw))] ^= 0xFF
    return bytes(raw)


def _large_cases() -> list[tuple[str, bytes]]:
    """The large inputs of the issue, rebuilt."""
    graded = "Recommendation 1: offer treatment (Grade A, strong recommendation). " * 150_000  # ~10 MB
    big_text = json.dumps([{"type": "text", "text": "1 Guideline", "text_level": 1, "page_idx": 0},
                           {"type": "text", "text": graded, "page_idx": 0}]).encode()  # fmt: skip
    row = "<tr>" + '<td colspan="1000" rowspan="1000">x</td>' * 50 + "</tr>"
    grid = json.dumps([{"type": "text", "text": "Doses", "page_idx": 0},
                       {"type": "table", "table_body": "<table>" + row * 20 + "</table>", "page_idx": 0}]).encode()  # fmt: skip
    bomb_member = b"[" + b" " * (1024**3 - 2) + b"]"  # compresses to ~1 MB
    bombs = io.BytesIO()
    with zipfile.ZipFile(bombs, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("a/x_content_list.json", bomb_member)
        zf.writestr("b/y_content_list.json", bomb_member)
    pages = json.dumps([{"type": "text", "text": "late", "page_idx": 10**9}]).encode()
    deep = b"[" * 100_000 + b"]" * 100_000
    return [("graded_10mb.json", big_text), ("span_grid.json", grid), ("zip_bombs.zip", bombs.getvalue()),
            ("page_1e9.json", pages), ("deep_100000.json", deep)]  # fmt: skip


def generate(n: int, seed: int) -> list[tuple[str, bytes]]:
    """``n`` inputs: the large cases, every seed as is, then mutations / structured / zips."""
    rng = random.Random(seed)
    seeds = _seeds()
    out = _large_cases() + list(seeds)
    while len(out) < n:
        r = rng.random()
        if r < 0.5:
            name, data = rng.choice(seeds)
            out.append((f"mut{len(out)}{Path(name).suffix}", _mutate(rng, data)))
        elif r < 0.85:
            out.append((f"gen{len(out)}.json", _structured(rng)))
        else:
            members = [(rng.choice(["a.json", "auto/x_content_list.json", "m/middle.json"]), _structured(rng))]
            out.append((f"zip{len(out)}.zip", _zip(rng, members, corrupt=rng.random() < 0.4)))
    return out[:n]


def _run_child(path: Path, timeout: float) -> dict:
    """Fork, run ``structaware units --json PATH`` in the child; classify, with the child's peak RSS."""
    from structaware_retrievers import cli

    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(err_r)
        os.dup2(err_w, 2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
        try:
            rv = cli.app(["units", "--json", str(path)], standalone_mode=False)
            code = rv if isinstance(rv, int) else 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # noqa: BLE001 - a crash is what this benchmark counts
            import traceback

            traceback.print_exception(exc)
            code = 99
        try:
            sys.stdout.flush()
        except Exception:  # noqa: BLE001 - output that cannot be written is a crash too
            code = 98
        os._exit(code)
    os.close(err_w)
    t0 = time.monotonic()
    status = None
    rusage = None
    while True:
        wpid, status, rusage = os.wait4(pid, os.WNOHANG)
        if wpid:
            break
        if time.monotonic() - t0 > timeout:
            os.kill(pid, signal.SIGKILL)
            _, status, rusage = os.wait4(pid, 0)
            os.close(err_r)
            return {"outcome": "hang", "seconds": timeout, "rss_mb": rusage.ru_maxrss / 1024}
        time.sleep(0.005)
    stderr = b""
    while chunk := os.read(err_r, 65536):
        stderr += chunk
    os.close(err_r)
    seconds = time.monotonic() - t0
    rss = rusage.ru_maxrss / 1024
    text = stderr.decode("utf-8", "replace")
    if os.WIFSIGNALED(status):
        outcome = f"crash (signal {os.WTERMSIG(status)})"
    else:
        code = os.WEXITSTATUS(status)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if code == 0 and "Traceback" not in text:
            outcome = "units"
        elif code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and str(path) in lines[0]:
            outcome = "typed error"
        else:
            outcome = f"crash (exit {code})"
    return {"outcome": outcome, "seconds": seconds, "rss_mb": rss, "stderr": text[-400:]}


def bench_fuzz(n: int, seed: int, timeout: float) -> dict:
    from structaware_retrievers import cli  # noqa: F401 - imported once, before forking

    inputs = generate(n, seed)
    results = []
    with tempfile.TemporaryDirectory(prefix="sa-fuzz-") as tmp:
        for i, (name, data) in enumerate(inputs):
            p = Path(tmp) / f"{i:05d}_{name}"
            p.write_bytes(data)
            r = _run_child(p, timeout)
            r["input"] = name
            results.append(r)
            p.unlink()
            if r["outcome"] not in ("units", "typed error"):
                print(f"  {name}: {r['outcome']} {r.get('stderr', '')[-300:]}", file=sys.stderr)
    counts: dict[str, int] = {}
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    worst_rss = max(results, key=lambda r: r["rss_mb"])
    slowest = max(results, key=lambda r: r["seconds"])
    return {
        "inputs": len(results),
        "outcomes": counts,
        "crashes": sum(v for k, v in counts.items() if k.startswith("crash")),
        "hangs": counts.get("hang", 0),
        "peak_rss_mb": round(worst_rss["rss_mb"], 1),
        "peak_rss_input": worst_rss["input"],
        "over_1gb": sum(r["rss_mb"] > 1024 for r in results),
        "slowest_s": round(slowest["seconds"], 2),
        "slowest_input": slowest["input"],
        "large_cases": {r["input"]: (r["outcome"], round(r["seconds"], 2), round(r["rss_mb"], 1)) for r in results[:5]},
    }


# -------------------------------------------------------------------------------------------
# kill -9 and concurrency
# -------------------------------------------------------------------------------------------


def _corpus(folder: Path, n_docs: int = 6, edition: str = "") -> list[Path]:
    """``n_docs`` MinerU content lists of 300 + 60 i table rows (several 256-point upsert batches
    each); ``edition`` changes every row, so a second edition at the same paths replaces the first."""
    paths = []
    for i in range(n_docs):
        rows = "".join(f"<tr><td>condition {k * 7 + i}{edition}</td><td>drug {k % 13}</td><td>{k % 5 + 1} mg</td></tr>"
                       for k in range(300 + 60 * i))  # fmt: skip
        items = [{"type": "text", "text": f"Guideline {i}{edition}", "text_level": 1, "page_idx": 0},
                 {"type": "table", "table_caption": [f"Table {i}"], "page_idx": 1,
                  "table_body": f"<table><tr><th>Condition</th><th>Drug</th><th>Dose</th></tr>{rows}</table>"}]  # fmt: skip
        p = folder / f"guideline{i}_content_list.json"
        p.write_text(json.dumps(items), encoding="utf-8")
        paths.append(p)
    return paths


def _worker(*args: str, env: dict | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(WORKER.parent), **(env or {})}
    return subprocess.Popen([sys.executable, str(WORKER), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)  # fmt: skip


def _state(index: Path, hidden: bool = False) -> dict[str, list[str]]:
    proc = _worker("state", str(index), *(["--hidden"] if hidden else []))
    out, err = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(err)
    return json.loads(out.strip().splitlines()[-1])


def _write_ops(index: Path, paths: list[Path]) -> tuple[int, float]:
    """Engine write operations of one ingest (``ROBUST_COUNT_OPS``) and its wall time."""
    t0 = time.monotonic()
    proc = _worker("ingest", str(index), *map(str, paths), env={"ROBUST_COUNT_OPS": "1"})
    _, err = proc.communicate(timeout=1200)
    if proc.returncode != 0:
        raise RuntimeError(err)
    ops = json.loads(next(ln for ln in err.splitlines() if ln.startswith("{")))
    return int(ops["write"]), time.monotonic() - t0


def bench_kill(moments: int, seed: int) -> dict:
    """``moments`` ingests killed with SIGKILL at a random engine write operation (the worker kills
    itself there: ``ROBUST_KILL_AT``), half into a new folder, half over an index holding an older
    edition of the same files (so the replace path is hit: superseded points, rollback). After
    each kill every visible document must be one whole edition, each file once; then one more
    ingest must reach the state of a clean ingest, with no hidden point left."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="sa-kill-") as tmp:
        tmp_path = Path(tmp)
        docs = tmp_path / "docs"
        docs.mkdir()
        old_paths = _corpus(docs, 4, edition=" (2019)")
        old_index = tmp_path / "old"
        _worker("ingest", str(old_index), *map(str, old_paths)).communicate(timeout=1200)
        old = _state(old_index)
        paths = _corpus(docs, 4)  # the new edition, same paths
        ops = {"new folder": _write_ops(tmp_path / "clean", paths)}
        clean = _state(tmp_path / "clean")
        scratch = tmp_path / "scratch"
        subprocess.run(["cp", "-a", "--sparse=always", str(old_index), str(scratch)], check=True)
        ops["over the 2019 edition"] = _write_ops(scratch, paths)
        trials = []
        for m in range(moments):
            kind = "new folder" if m % 2 == 0 else "over the 2019 edition"
            index = tmp_path / f"ix{m}"
            if kind != "new folder":
                subprocess.run(["cp", "-a", "--sparse=always", str(old_index), str(index)], check=True)
            at = f"{rng.choice(['before', 'after'])}:write:{rng.randint(1, ops[kind][0])}"
            proc = _worker("ingest", str(index), *map(str, paths), env={"ROBUST_KILL_AT": at})
            _, err = proc.communicate(timeout=1200)
            killed = proc.returncode == -signal.SIGKILL
            phase = next(
                (ln.split("killing at ", 1)[1] for ln in err.splitlines() if "killing at " in ln), "not reached"
            )
            exists = (index / "structaware" / "collection.json").is_file()
            seen = _state(index) if exists else {}
            hidden = sum(map(len, _state(index, hidden=True).values())) - sum(map(len, seen.values())) if exists else 0
            half = sum(ids not in (clean.get(d), old.get(d)) for d, ids in seen.items())
            sources = [d["source"] for d in _documents(index)] if exists else []
            dup = sum(len(ids) - len(set(ids)) for ids in seen.values()) + len(sources) - len(set(sources))
            final = _worker("ingest", str(index), *map(str, paths))
            final.communicate(timeout=1200)
            all_points = sum(map(len, _state(index, hidden=True).values()))
            same = _state(index) == clean and all_points == sum(map(len, clean.values()))
            trials.append({"kind": kind, "kill_at": at, "killed": killed, "phase": phase,
                           "visible": {"new": sum(d in clean for d in seen), "old": sum(d in old for d in seen)},
                           "hidden_points_after_kill": hidden, "half_present": half, "duplicates": dup,
                           "next_ingest_equals_clean": same})  # fmt: skip
            print(
                f"  kill {m + 1}/{moments} ({kind}) {phase}: visible {trials[-1]['visible']}, hidden {hidden},"
                f" half {half}, dup {dup}, next ingest == clean: {same}",
                file=sys.stderr,
                flush=True,
            )
            shutil.rmtree(index, ignore_errors=True)
    return {
        "documents": len(paths),
        "units": sum(map(len, clean.values())),
        "write_ops_and_seconds_of_an_ingest": {k: [v[0], round(v[1], 1)] for k, v in ops.items()},
        "kills": moments,
        "killed_mid_write": sum(t["killed"] for t in trials),
        "half_present_documents": sum(t["half_present"] for t in trials),
        "duplicates": sum(t["duplicates"] for t in trials),
        "next_ingest_equals_clean": sum(t["next_ingest_equals_clean"] for t in trials),
        "trials": trials,
    }


def _documents(index: Path) -> list[dict]:
    proc = _worker("documents", str(index))
    out, err = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(err)
    return json.loads(out.strip().splitlines()[-1])


def bench_concurrent() -> dict:
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="sa-conc-") as tmp:
        tmp_path = Path(tmp)
        paths = _corpus(tmp_path)
        clean_proc = _worker("ingest", str(tmp_path / "clean"), *map(str, paths))
        clean_proc.communicate(timeout=1200)
        clean = _state(tmp_path / "clean")
        # two ingests at once into a new folder
        procs = [_worker("ingest", str(tmp_path / "two"), *map(str, paths)),
                 _worker("ingest", str(tmp_path / "two"), *map(str, reversed(paths)))]  # fmt: skip
        codes = [p.communicate(timeout=1200) and p.returncode for p in procs]
        out["two_ingests"] = {"exit_codes": codes, "state_equals_clean": _state(tmp_path / "two") == clean}
        # an ingest with queries meanwhile
        index = tmp_path / "iq"
        _worker("ingest", str(index), str(paths[0])).communicate(timeout=600)
        writer = _worker("ingest", str(index), *map(str, paths))
        answered = failed = 0
        while writer.poll() is None:
            q = _worker("query", str(index), "treat condition with drug")
            o, _ = q.communicate(timeout=1200)
            answered += q.returncode == 0 and o.strip() == "5"
            failed += not (q.returncode == 0 and o.strip() == "5")
        out["ingest_with_queries"] = {"ingest_exit": writer.returncode, "queries_answered": answered,
                                      "queries_failed": failed, "state_equals_clean": _state(index) == clean}  # fmt: skip
        # a writer while two readers keep the index open: one idle, one querying back to back
        index = tmp_path / "ir"
        _worker("ingest", str(index), str(paths[0])).communicate(timeout=600)
        readers = []
        for how in ("idle", "loop"):
            r = subprocess.Popen([sys.executable, str(WORKER), "reader", str(index), how], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": str(WORKER.parent)})  # fmt: skip
            r.stdout.readline()  # "ready 5": the index is open in the reader
            readers.append(r)
        t0 = time.monotonic()
        writer = _worker("ingest", str(index), *map(str, paths), env={"STRUCTAWARE_LOCK_TIMEOUT": "120"})
        writer.communicate(timeout=1200)
        seconds = time.monotonic() - t0
        finals = [r.communicate(input="", timeout=1200)[0].split() for r in readers]
        out["writer_with_open_readers"] = {
            "ingest_exit": writer.returncode, "ingest_seconds": round(seconds, 1),
            "idle_reader": " ".join(finals[0]), "looping_reader": " ".join(finals[1]),
            "state_equals_clean": _state(index) == clean}  # fmt: skip
        # two `structaware query` processes (real CLI, default model) at once
        cli_index = tmp_path / "cli"
        fixture = REPO / "tests" / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
        exe = str(Path(sys.executable).with_name("structaware"))
        subprocess.run([exe, "ingest", str(fixture), "--index", str(cli_index), "--no-progress"], check=True,
                       capture_output=True)  # fmt: skip
        qs = [subprocess.Popen([exe, "query", "table", "--index", str(cli_index), "-k", "3"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]  # fmt: skip
        res = [q.communicate(timeout=600) for q in qs]
        out["two_cli_queries"] = {"exit_codes": [q.returncode for q in qs],
                                  "both_answered": all(q.returncode == 0 and o.startswith("1.") for q, (o, _) in zip(qs, res))}  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="fuzz,kill,concurrent")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--moments", type=int, default=20)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    report: dict = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}  # fmt: skip
    only = set(args.only.split(","))
    if "fuzz" in only:
        report["fuzz"] = bench_fuzz(args.n, args.seed, args.timeout)
        print(json.dumps(report["fuzz"], indent=1), flush=True)
    if "kill" in only:
        report["kill"] = bench_kill(args.moments, args.seed)
        print(json.dumps(report["kill"], indent=1), flush=True)
    if "concurrent" in only:
        report["concurrent"] = bench_concurrent()
        print(json.dumps(report["concurrent"], indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
