"""hetune's side of the search benchmark (issue 25, item 2): every strategy of a hetune build
replays each recorded space (`hetune tune SPEC --replay T4 --budget B --seed S`), R seeds
each, and each run's evaluations, in the order they were made, become one trace line in the
format kt_sim.py --score reads (see its docstring): the same scoring, the same table as
Kernel Tuner's strategies.

usage: hetune_traces.py --hetune BIN [--seeds R] [--budget B] [--strategies S,S,..]
                        --out TRACES.jsonl T4[:T1] [T4[:T1] ...]

Each T4 file NAME-DEVICE.T4.json.gz has its T1 input NAME.T1.json beside it (or T4:T1),
which `hetune import-kt` turns into the spec. Every run uses a database of its own (what a
replay stores is not replayed again). The strategies default to those `hetune tune --help`
lists. Prints each run's real time and the mean, for the goal of 400 evaluations in <= 1 s.
"""
import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time


def strategies_of(hetune):
    text = subprocess.run([hetune, "tune", "--help"], capture_output=True, text=True).stdout
    m = re.search(r"--strategy S\s+the search strategy of tuning: (.*?);", text, re.S)
    if not m:
        sys.exit("hetune_traces: cannot read the strategies from hetune tune --help")
    words = re.sub(r"\(default\)|,| or ", " ", " ".join(m.group(1).split())).split()
    return [w for w in words if re.fullmatch(r"[a-z_]+", w)]


def t1_of(arg):
    if ":" in arg:
        return arg.split(":", 1)
    base = os.path.basename(arg)
    name = base.split("-")[0] if "-" in base else base.split(".")[0]
    return arg, os.path.join(os.path.dirname(arg), name + ".T1.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hetune", required=True)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--strategies")
    ap.add_argument("--out", required=True)
    ap.add_argument("spaces", nargs="+")
    a = ap.parse_args()
    strategies = a.strategies.split(",") if a.strategies else strategies_of(a.hetune)
    version = subprocess.run([a.hetune, "--version"], capture_output=True,
                             text=True).stdout.split()[-1]
    walls = []
    with tempfile.TemporaryDirectory(prefix="hetune-search-") as tmp, open(a.out, "w") as out:
        for arg in a.spaces:
            t4, t1 = t1_of(arg)
            space = os.path.basename(t4).split(".T4")[0]
            spec = os.path.join(tmp, space + ".json")
            subprocess.run([a.hetune, "import-kt", t1, "-o", spec], check=True,
                           capture_output=True)
            for strat in strategies:
                if strat == "exhaustive":
                    continue  # its order is the space's: no seed, nothing to compare
                for seed in range(a.seeds):
                    db = os.path.join(tmp, "run.db")
                    for suffix in ("", "-wal", "-shm"):
                        if os.path.exists(db + suffix):
                            os.remove(db + suffix)
                    t0 = time.monotonic()
                    r = subprocess.run([a.hetune, "tune", spec, "--replay", t4, "--db", db,
                                        "--strategy", strat, "--seed", str(seed), "--budget",
                                        str(a.budget), "--json", "-q"],
                                       capture_output=True, text=True)
                    walls.append(time.monotonic() - t0)
                    if r.returncode not in (0, 1):
                        sys.exit(f"hetune_traces: {strat} seed {seed} on {space}: exit "
                                 f"{r.returncode}: {r.stderr.strip()}")
                    d = json.loads(r.stdout)["devices"][0]
                    if d.get("missing"):
                        sys.exit(f"hetune_traces: {space}: {d['missing']} proposals missing "
                                 "from the recording: the trace would leave them out")
                    rows = sqlite3.connect(db).execute(
                        "SELECT config_values, status, seconds FROM evaluations ORDER BY id"
                    ).fetchall()
                    evals, configs = [], []
                    for values, status, seconds in rows:
                        ok = status == "ok" and seconds is not None and seconds > 0
                        evals.append([seconds * 1e3 if ok else None, None])
                        configs.append([int(v) for v in json.loads(values)])
                    out.write(json.dumps({"space": space, "tool": "hetune-" + version,
                                          "strategy": strat, "options": {}, "seed": seed,
                                          "evals": evals, "configs": configs}) + "\n")
                print(f"hetune_traces: {space} {strat}: {a.seeds} runs", file=sys.stderr,
                      flush=True)
    if walls:
        print(f"hetune_traces: replay of up to {a.budget} evaluations, whole command: mean "
              f"{sum(walls) / len(walls):.3f} s, max {max(walls):.3f} s real over "
              f"{len(walls)} runs", file=sys.stderr)


if __name__ == "__main__":
    main()
