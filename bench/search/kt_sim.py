"""Kernel Tuner's side of the search benchmark (issue 25, item 2): its strategies in its
simulation mode on recorded spaces (T4 files with their T1 inputs), R seeds each, scored
per budget as fractions of the optimum; and the conversion of a T4 file into a Kernel
Tuner cache file, the fixture for `hetune tune --replay KT_CACHE.json`.

usage:
  kt_sim.py [--seeds R] [--strategies S,S,...] [--json ROWS.jsonl] T4 [T4 ...]
        runs the strategies on each space and prints a table; T4 is NAME-DEVICE.T4.json.gz,
        its T1 input NAME.T1.json beside it (or T4:T1 to name it)
  kt_sim.py --to-cache T4 T1 OUT.json [--legacy-errors]
        writes the Kernel Tuner cache of a T4 file and checks it (the bench's self-check)
  kt_sim.py --check T4 [T4 ...]
        the self-check only: conversion and brute_force in simulation (see check_space)
  kt_sim.py --score TRACES.jsonl [--json ROWS.jsonl] T4 [T4 ...]
        rows from evaluation traces of another tuner (hetune), scored as these are
  kt_sim.py --table ROWS.jsonl [ROWS.jsonl ...]
        one table from rows files (Kernel Tuner's and hetune's merged)

Definitions (the same for every tool, so that rows can be merged):
  - an evaluation is a configuration's first measurement; a configuration met again is not
    one (Kernel Tuner's max_fevals counts the same way). Failed configurations (compile or
    runtime failures) are evaluations, never the best.
  - optimum: the least "time" (T4 measurement "time", ms: the mean of the recorded
    runtimes) over the file's correct configurations.
  - fraction at budget N: optimum / the least time among the correct configurations of the
    first N evaluations; 0 when none of them is correct.
  - cost of an evaluation (simulated time, s): the T4 times compilation + validation +
    benchmark + framework of that configuration / 1000; the T4 files here have no
    "benchmark" time, so benchmark is the sum of its recorded runtimes (what the kernel
    ran; 0 for a failure). In the Kernel Tuner cache these are compile_time +
    verification_time + benchmark_time + framework_time. (Kernel Tuner's own
    simulated_time leaves framework_time out.)
  - t95: the summed cost of the evaluations up to and including the first one whose best
    reaches fraction 0.95; none when a run does not reach it within its evaluations.

Rows (--json, one JSON object a line; one row per space, tool and strategy):
  {"space": "convolution_milo-A100",    T4 file name less .T4.json.gz
   "tool": "kernel_tuner-1.5.0",        or "hetune-<version>"
   "strategy": "genetic_algorithm",     the tool's name for it (options in "options")
   "options": {...},                    strategy options other than the budget
   "seeds": 20,                         runs, one a seed
   "budgets": [25, 50, 100, 200, 400],
   "optimum_ms": 1.234,
   "median": [f25, f50, ...],           median fraction over seeds, per budget
   "worst": [f25, f50, ...],            least fraction over seeds, per budget
   "score": s,                          mean over budgets of "median"
   "t95_s": t,                          median t95 over seeds (a run that does not reach
                                        0.95 counts as infinite); null when that is infinite
   "t95_reached": k,                    runs that reached 0.95
   "evaluated": [lo, hi],               fewest and most evaluations of one run (a strategy
                                        may stop before the last budget)
   "per_seed": [{"seed": s, "fractions": [...], "t95_s": t or null, "evaluated": n}, ...],
   "mode": "prefix"}                    or "per-budget" (below)
  Kernel Tuner's rows add "results_in_evaluation_order" (its results came back in the order
  its simulation runner met the configurations, every run), "seed0_repeats" (seed 0 run
  again gave the same evaluations) and "wall_s".

Budgets: by default one run a seed with max_fevals 400, each budget the prefix of its
evaluations ("mode": "prefix"). A strategy that plans for its budget does not run the same
way with a smaller one: simulated_annealing scales its cooling schedule to max_fevals,
dual_annealing passes it to scipy as maxfun, random_sample draws max_fevals samples (a
prefix of the same permutation). --per-budget runs each budget on its own ("mode":
"per-budget": the fraction at N from a run with max_fevals N, t95 from the run of 400).

Traces (--score input, one JSON object a line; one line per run):
  {"space": "convolution_milo-A100", "tool": "hetune-0.9", "strategy": "genetic",
   "options": {}, "seed": 0, "evals": [[time_ms or null, cost_s], ...]}
  evals in evaluation order, first measurements only, null for a failed configuration.
  cost_s may be null: it is then looked up in the T4 by "configs" ([[v1, v2, ...], ...] in
  the T1's parameter order, one per eval) when the line has them, else the line is rejected.

Seeds: Kernel Tuner's strategies draw from Python's random and numpy's global generator
(genetic_algorithm, simulated_annealing, pso, greedy_ils, firefly_algorithm, the random
samples of its search space), scipy (dual_annealing: numpy's global generator) and
scikit-learn (bayes_opt's Gaussian process: numpy's global generator); bayes_opt's Latin
hypercube sample takes a fresh generator of its own, so it is given one drawn from the
seeded numpy. Each run seeds random and numpy with its seed. bayes_opt's default method
(multi-ultrafast) refits its model only when the last evaluations took longer than the
last prediction (wall clock): in simulation evaluations take microseconds, so its runs
need not repeat exactly and it refits less often than in a real tune.
"""
import argparse
import ast
import gzip
import json
import math
import os
import random
import statistics
import sys
import time

import numpy as np

BUDGETS = [25, 50, 100, 200, 400]
STRATEGIES = ["genetic_algorithm", "simulated_annealing", "pso", "bayes_opt", "random_sample",
              "greedy_ils", "dual_annealing", "firefly_algorithm"]
MARKERS = {"compile": "CompilationFailedConfig", "runtime": "RuntimeFailedConfig",
           "constraints": "InvalidConfig"}


# ---- recorded spaces ----------------------------------------------------------------------

def space_name(t4_path):
    base = os.path.basename(t4_path)
    for ext in (".T4.json.gz", ".T4.json", ".json.gz", ".json"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def t1_for(t4_path):
    """The T1 input beside a T4 file: the benchmark name is the name up to its last '-'."""
    name = space_name(t4_path)
    bench = name.rsplit("-", 1)[0]
    return os.path.join(os.path.dirname(t4_path), bench + ".T1.json")


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def t1_params(t1):
    """The T1's tunable parameters as Kernel Tuner's tune_kernel_T1 reads them (in order)."""
    params = {}
    for p in t1["ConfigurationSpace"]["TuningParameters"]:
        vals = p["Values"]
        if isinstance(vals, list):
            params[p["Name"]] = vals
        elif vals.strip().startswith("["):
            params[p["Name"]] = ast.literal_eval(vals)
        else:  # "range(...)" / "list(...)", as tune_kernel_T1 evaluates them
            params[p["Name"]] = list(eval(vals, {"__builtins__": {}}, {"range": range, "list": list}))
    return params


class Space:
    """A recorded space: the T4's results keyed as Kernel Tuner keys its cache."""

    def __init__(self, t4_path, t1_path=None):
        self.t4_path = t4_path
        self.t1_path = t1_path or t1_for(t4_path)
        self.name = space_name(t4_path)
        self.t1 = load_json(self.t1_path)
        self.t4 = load_json(t4_path)
        self.tune_params = t1_params(self.t1)
        self.keys = list(self.tune_params)
        spec = self.t1["KernelSpecification"]
        self.kernel_name = spec["KernelName"]
        self.problem_size = spec["ProblemSize"]
        self.device_name = self.name.rsplit("-", 1)[1] if "-" in self.name else self.name
        self.records = {}  # cache key -> T4 result
        for r in self.t4["results"]:
            cfg = r["configuration"]
            if list(cfg) != self.keys:
                raise ValueError("%s: configuration keys %s are not the T1's %s" %
                                 (t4_path, list(cfg), self.keys))
            for k, v in cfg.items():
                if v not in self.tune_params[k]:
                    raise ValueError("%s: %s=%r is not among the T1's values" % (t4_path, k, v))
            key = ",".join(str(cfg[k]) for k in self.keys)
            if key in self.records:
                raise ValueError("%s: configuration %s recorded twice" % (t4_path, key))
            self.records[key] = r
        self.time = {k: record_time(r) for k, r in self.records.items()}
        self.cost = {k: record_cost(r) for k, r in self.records.items()}
        self.optimum = min(t for t in self.time.values() if t is not None)


def record_time(r):
    """The T4 result's time (ms), None for a failed configuration."""
    if r["invalidity"] != "correct":
        return None
    for m in r["measurements"]:
        if m["name"] == "time":
            return float(m["value"])
    raise ValueError("correct result without a time: %r" % r["configuration"])


def record_timings(r):
    """Kernel Tuner's timing fields (ms) of a T4 result."""
    t = r["times"]
    bench = t.get("benchmark")
    if bench is None:
        bench = sum(t.get("runtimes") or [])
    return {"compile_time": t.get("compilation", 0), "verification_time": t.get("validation", 0),
            "benchmark_time": bench, "strategy_time": t.get("search_algorithm", 0),
            "framework_time": t.get("framework", 0)}


def record_cost(r):
    """An evaluation's simulated cost (s): compile + verification + benchmark + framework."""
    t = record_timings(r)
    return (t["compile_time"] + t["verification_time"] + t["benchmark_time"]
            + t["framework_time"]) / 1000.0


# ---- the Kernel Tuner cache ---------------------------------------------------------------

def cache_entry(space, key, legacy_errors=False):
    """The cache entry Kernel Tuner 1.5 writes for a configuration (store_cache's layout:
    parameters, time, times, compile/verification/benchmark times, timestamp; a failure
    has "__error__": its marker and no time). strategy_time and framework_time follow, as
    they do in its results and in caches of earlier versions; its simulation mode replaces
    both with its own. legacy_errors: a failure also has "time": its marker, as caches of
    earlier versions (and the T4 files' measurements) have it."""
    r = space.records[key]
    e = dict(r["configuration"])
    tm = record_timings(r)
    if r["invalidity"] == "correct":
        e["time"] = record_time(r)
        e["times"] = list(r["times"].get("runtimes") or [])
    else:
        marker = MARKERS.get(r["invalidity"], "ErrorConfig")
        if legacy_errors:
            e["time"] = marker
        e["__error__"] = marker
        tm["benchmark_time"] = 0
    e["compile_time"] = tm["compile_time"]
    e["verification_time"] = tm["verification_time"]
    e["benchmark_time"] = tm["benchmark_time"]
    if "timestamp" in r:
        e["timestamp"] = r["timestamp"]
    e["strategy_time"] = tm["strategy_time"]
    e["framework_time"] = tm["framework_time"]
    return e


def to_cache(space, out_path, legacy_errors=False):
    """Writes the space as a Kernel Tuner cache file, byte for byte as Kernel Tuner lays one
    out (process_cache's header with indent="", store_cache's one line per entry,
    close_cache's closing)."""
    header = {"device_name": space.device_name, "kernel_name": space.kernel_name,
              "problem_size": space.problem_size, "tune_params_keys": space.keys,
              "tune_params": space.tune_params, "objective": ["time"], "cache": {}}
    text = json.dumps(header, indent="")[:-3]
    parts = [text]
    for key in space.records:
        parts.append("\n" + json.dumps({key: cache_entry(space, key, legacy_errors)})[1:-1] + ",")
    body = "".join(parts)
    body = body[:-1] + "}\n}"
    with open(out_path, "w") as f:
        f.write(body)


# ---- Kernel Tuner runs ----------------------------------------------------------------------

_KT = {}


def kt():
    """Kernel Tuner, imported once, with the two hooks this bench needs: the order in which
    its simulation runner meets configurations (to check that the results come back in that
    order), and a seeded generator for bayes_opt's Latin hypercube sample."""
    if _KT:
        return _KT
    import kernel_tuner
    import kernel_tuner.runners.simulation as sim
    import kernel_tuner.strategies.bayes_opt as bo
    from constraint import FunctionConstraint
    from scipy.stats.qmc import LatinHypercube

    order = []
    run = sim.SimulationRunner.run

    def logged_run(self, parameter_space, tuning_options):
        parameter_space = list(parameter_space)
        results = run(self, parameter_space, tuning_options)
        for element, res in zip(parameter_space, results):
            if res is not None:
                order.append(",".join(str(i) for i in element))
        return results

    sim.SimulationRunner.run = logged_run

    def seeded_lhs(d, **kw):
        kw.setdefault("rng", np.random.default_rng(np.random.randint(2**31)))
        return LatinHypercube(d=d, **kw)

    bo.LatinHypercube = seeded_lhs
    _KT.update(kt=kernel_tuner, version=kernel_tuner.__version__ if hasattr(kernel_tuner, "__version__")
               else version_of("kernel_tuner"), order=order, FunctionConstraint=FunctionConstraint)
    return _KT


def version_of(pkg):
    from importlib.metadata import version
    return version(pkg)


def kt_run(space, cache_path, strategy, seed, max_fevals, options=None):
    """One Kernel Tuner run in simulation mode, restricted to the recorded configurations.
    Returns (first-evaluation keys in the order of its results, whether the runner met them
    in that order)."""
    k = kt()
    recorded = set(tuple(r["configuration"][p] for p in space.keys)
                   for r in space.records.values())

    def restrict(*values):
        return values in recorded

    random.seed(seed)
    np.random.seed(seed)
    k["order"].clear()
    opts = dict(options or {})
    if max_fevals:
        opts["max_fevals"] = max_fevals
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = k["kt"].tune_kernel(
            space.kernel_name, "", space.problem_size, [], space.tune_params,
            restrictions=[k["FunctionConstraint"](restrict)], strategy=strategy,
            strategy_options=opts, cache=cache_path, simulation_mode=True, quiet=True,
            verbose=False)
    seen, keys = set(), []
    for r in results:
        key = ",".join(str(r[p]) for p in space.keys)
        if key not in seen:
            seen.add(key)
            keys.append(key)
    met, met_seen = [], set()
    for key in k["order"]:
        if key not in met_seen:
            met_seen.add(key)
            met.append(key)
    return keys, keys == met


# ---- scores --------------------------------------------------------------------------------

def run_scores(evals, optimum, budgets=BUDGETS):
    """evals: [(time_ms or None, cost_s)] in evaluation order. Returns (fractions per budget,
    t95 in s or None)."""
    fr, best, spent, t95 = [], math.inf, 0.0, None
    marks = set(budgets)
    for i, (t, c) in enumerate(evals, 1):
        spent += c
        if t is not None and t < best:
            best = t
        if t95 is None and best < math.inf and optimum / best >= 0.95:
            t95 = spent
        if i in marks:
            fr.append(optimum / best if best < math.inf else 0.0)
    while len(fr) < len(budgets):  # a run that stopped early keeps its best
        fr.append(optimum / best if best < math.inf else 0.0)
    return fr, t95


def make_row(space_name_, tool, strategy, options, optimum, runs, budgets=BUDGETS):
    """runs: [(seed, evals)] or [(seed, evals, fractions)]; evals as run_scores takes them,
    fractions (one a budget) replacing those of evals. The row of the header."""
    per = []
    for run in runs:
        seed, evals = run[0], run[1]
        fr, t95 = run_scores(evals, optimum, budgets)
        if len(run) > 2:  # --per-budget: each budget's fraction from a run of its own
            fr = run[2]
        per.append({"seed": seed, "fractions": [round(f, 6) for f in fr],
                    "t95_s": None if t95 is None else round(t95, 3), "evaluated": len(evals)})
    cols = list(zip(*[p["fractions"] for p in per]))
    median = [statistics.median(c) for c in cols]
    t95s = [math.inf if p["t95_s"] is None else p["t95_s"] for p in per]
    t95 = statistics.median(t95s)
    return {"space": space_name_, "tool": tool, "strategy": strategy, "options": options or {},
            "seeds": len(per), "budgets": list(budgets), "optimum_ms": optimum,
            "median": [round(m, 4) for m in median], "worst": [round(min(c), 4) for c in cols],
            "score": round(sum(median) / len(median), 4),
            "t95_s": None if math.isinf(t95) else round(t95, 3),
            "t95_reached": sum(1 for p in per if p["t95_s"] is not None),
            "evaluated": [min(p["evaluated"] for p in per), max(p["evaluated"] for p in per)],
            "per_seed": per, "mode": "prefix"}


def format_header(budgets=BUDGETS):
    b = " ".join("%5d" % n for n in budgets)
    return "%-26s %-18s median at %s | worst at %s | score | t95 (reached)  evals" % (
        "strategy", "tool", b, b)


def format_row(row):
    med = " ".join("%5.2f" % m for m in row["median"])
    worst = " ".join("%5.2f" % m for m in row["worst"])
    t95 = "%8.1f s" % row["t95_s"] if row["t95_s"] is not None else "       - "
    ev = row["evaluated"]
    return "%-26s %-18s           %s |          %s | %5.3f | %s (%2d/%2d)  %s" % (
        row["strategy"] + ("" if not row["options"] else " " + ",".join(
            "%s=%s" % kv for kv in sorted(row["options"].items())))
        + (" per-budget" if row.get("mode") == "per-budget" else ""),
        row["tool"], med, worst, row["score"], t95, row["t95_reached"], row["seeds"],
        "%d" % ev[0] if ev[0] == ev[1] else "%d-%d" % tuple(ev))


def print_table(rows, out=sys.stdout):
    by_space = {}
    for r in rows:
        by_space.setdefault(r["space"], []).append(r)
    for name, rs in by_space.items():
        print("%s: optimum %.6g ms, %d seeds" % (name, rs[0]["optimum_ms"], rs[0]["seeds"]),
              file=out)
        print("  " + format_header(rs[0]["budgets"]), file=out)
        for r in rs:
            print("  " + format_row(r), file=out)


# ---- self-check ------------------------------------------------------------------------------

def check_space(space, cache_path):
    """The conversion is faithful: Kernel Tuner reads the cache back with as many
    configurations, the same failures (as its error classes) and the same best time as the
    T4; the search space restricted to the recorded configurations is that many; and its
    brute_force strategy in simulation evaluates every configuration and finds the optimum.
    Returns a list of (what, ok, detail)."""
    k = kt()
    from kernel_tuner import util
    out = []
    data = util.read_cache(cache_path, open_cache=False)
    c = data["cache"]
    out.append(("configurations", len(c) == len(space.records),
                "cache %d, T4 %d" % (len(c), len(space.records))))
    fails = {}
    for e in c.values():
        if "__error__" in e:
            n = type(e["__error__"]).__name__
            fails[n] = fails.get(n, 0) + 1
    t4fails = {}
    for r in space.records.values():
        if r["invalidity"] != "correct":
            n = MARKERS.get(r["invalidity"], "ErrorConfig")
            t4fails[n] = t4fails.get(n, 0) + 1
    out.append(("failures", fails == t4fails, "cache %s, T4 %s" % (fails, t4fails)))
    best = min(e["time"] for e in c.values() if "__error__" not in e)
    out.append(("best time", best == space.optimum, "cache %.6g ms, T4 %.6g ms" %
                (best, space.optimum)))
    keys, in_order = kt_run(space, cache_path, "brute_force", 0, None)
    bf_best = min((space.time[x] for x in keys if space.time[x] is not None), default=None)
    out.append(("brute_force evaluations", len(keys) == len(space.records),
                "%d of %d" % (len(keys), len(space.records))))
    out.append(("brute_force best", bf_best == space.optimum, "%s ms" % bf_best))
    out.append(("results in evaluation order", in_order, "brute_force"))
    # informative: the T1's own conditions against the recorded set
    try:
        from kernel_tuner.searchspace import Searchspace
        conds = [c_["Expression"] for c_ in space.t1["ConfigurationSpace"]["Conditions"]]
        ss = Searchspace(space.tune_params, conds, 1024)
        inside = set(",".join(str(v) for v in cfg) for cfg in ss.list)
        out.append(("T1 conditions' space", True, "%d configurations, %d of them recorded, "
                    "%d recorded outside it" % (len(inside), len(inside & set(space.records)),
                                                len(set(space.records) - inside))))
    except Exception as e:  # informative only
        out.append(("T1 conditions' space", True, "not computed: %s" % e))
    return out


def print_check(space, results, out=sys.stdout):
    ok = all(r[1] for r in results)
    print("self-check %s: %s" % (space.name, "ok" if ok else "FAILED"), file=out)
    for what, good, detail in results:
        print("  %-30s %-4s %s" % (what, "ok" if good else "FAIL", detail), file=out)
    return ok


# ---- main ------------------------------------------------------------------------------------

def parse_space_arg(arg):
    if ":" in arg:
        t4, t1 = arg.split(":", 1)
        return Space(t4, t1)
    return Space(arg)


def bench(args):
    import tempfile
    tmp = tempfile.mkdtemp(prefix="kt-sim.")
    rows, ok = [], True
    k = kt()
    tool = "kernel_tuner-" + version_of("kernel_tuner")
    strategies = args.strategies.split(",")
    out_json = open(args.json, "w") if args.json else None
    print("%s, %d seeds (0..%d), %s, budgets %s; restricted to the recorded "
          "configurations" % (tool, args.seeds, args.seeds - 1,
                              "one run a budget, max_fevals the budget" if args.per_budget
                              else "max_fevals %d (each budget a prefix)" % max(BUDGETS),
                              BUDGETS))
    try:
        for arg in args.spaces:
            space = parse_space_arg(arg)
            cache = os.path.join(tmp, space.name + ".json")
            to_cache(space, cache)
            ok = print_check(space, check_space(space, cache)) and ok
            print("%s: %d configurations, %d correct, optimum %.6g ms" % (
                space.name, len(space.records),
                sum(1 for t in space.time.values() if t is not None), space.optimum))
            print("  " + format_header())
            sys.stdout.flush()
            for strategy in strategies:
                t0 = time.monotonic()
                runs, in_order, err, first = [], True, None, None
                try:
                    for seed in range(args.seeds):
                        keys, o = kt_run(space, cache, strategy, seed, max(BUDGETS))
                        in_order = in_order and o
                        first = keys if first is None else first
                        evals = [(space.time[x], space.cost[x]) for x in keys]
                        if args.per_budget:
                            fr = []
                            for n in BUDGETS:
                                kn, o = kt_run(space, cache, strategy, seed, n)
                                in_order = in_order and o
                                fr.append(run_scores([(space.time[x], space.cost[x])
                                                      for x in kn], space.optimum,
                                                     [n])[0][0])
                            runs.append((seed, evals, fr))
                        else:
                            runs.append((seed, evals))
                    again, _ = kt_run(space, cache, strategy, 0, max(BUDGETS))
                    repro = again == first
                except Exception as e:  # a strategy that does not run here is reported
                    err = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:160])
                if err:
                    print("  %-26s %-18s did not run: %s" % (strategy, tool, err))
                    continue
                row = make_row(space.name, tool, strategy, {}, space.optimum, runs)
                row["mode"] = "per-budget" if args.per_budget else "prefix"
                row["results_in_evaluation_order"] = in_order
                row["seed0_repeats"] = repro
                row["wall_s"] = round(time.monotonic() - t0, 1)
                rows.append(row)
                print("  " + format_row(row) + "  [order %s, seed 0 %s, %.0f s]" % (
                    "ok" if in_order else "DIFFERS", "repeats" if repro else "DIFFERS",
                    row["wall_s"]))
                sys.stdout.flush()
                if out_json:
                    out_json.write(json.dumps(row) + "\n")
                    out_json.flush()
    finally:
        if out_json:
            out_json.close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spaces", nargs="*", help="T4 files (T4:T1 to name the T1)")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--json", help="write the rows, one JSON object a line")
    ap.add_argument("--per-budget", action="store_true",
                    help="each budget's fraction from a run with that max_fevals (t95 from "
                    "the run of the largest)")
    ap.add_argument("--to-cache", nargs=3, metavar=("T4", "T1", "OUT"))
    ap.add_argument("--legacy-errors", action="store_true",
                    help="with --to-cache: failures also carry \"time\": their marker")
    ap.add_argument("--check", action="store_true", help="the self-check only")
    ap.add_argument("--score", metavar="TRACES", help="rows from another tuner's traces")
    ap.add_argument("--table", nargs="+", metavar="ROWS", help="print rows files as one table")
    args = ap.parse_args(argv)

    if args.table:
        rows = []
        for path in args.table:
            with open(path) as f:
                rows += [json.loads(line) for line in f if line.strip()]
        print_table(rows)
        return 0
    if args.to_cache:
        t4, t1, out = args.to_cache
        space = Space(t4, t1)
        to_cache(space, out, args.legacy_errors)
        print("%s: %d configurations, optimum %.6g ms -> %s" % (
            space.name, len(space.records), space.optimum, out))
        return 0 if print_check(space, check_space(space, out)) else 1
    if not args.spaces:
        ap.error("no T4 files")
    if args.check:
        import tempfile
        ok = True
        for arg in args.spaces:
            space = parse_space_arg(arg)
            with tempfile.NamedTemporaryFile(suffix=".json") as f:
                to_cache(space, f.name)
                ok = print_check(space, check_space(space, f.name)) and ok
        return 0 if ok else 1
    if args.score:
        return score_traces(args)
    return bench(args)


def score_traces(args):
    spaces = {s.name: s for s in (parse_space_arg(a) for a in args.spaces)}
    groups = {}
    with open(args.score) as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            space = spaces[t["space"]]
            evals = []
            for i, (tm, cost) in enumerate(t["evals"]):
                if cost is None:
                    cfg = t["configs"][i]
                    cost = space.cost[",".join(str(v) for v in cfg)]
                evals.append((tm, cost))
            gk = (t["space"], t["tool"], t["strategy"], json.dumps(t.get("options", {}),
                                                                      sort_keys=True))
            groups.setdefault(gk, []).append((t["seed"], evals))
    rows = [make_row(s, tool, st, json.loads(o), spaces[s].optimum, sorted(runs))
            for (s, tool, st, o), runs in groups.items()]
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
