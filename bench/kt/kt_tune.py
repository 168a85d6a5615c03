"""Kernel Tuner's side of bench/kt: tunes the kernel of a hetune spec with Kernel Tuner on
one OpenCL device and prints one JSON line (wall time, best time, evaluations).

The spec is translated, not rewritten by hand, so both tuners see the same space: the
parameters' values (a list, or a range with pow2 or step, bounds evaluated with the
device's limits), the spec's constraints, local_mem against the device's local memory and
Eq. 3 (work-groups >= compute units) as restrictions; Kernel Tuner adds Eq. 1 (the
work-group size limit) itself. Sizes are substituted; every parameter reaches the kernel as
a #define, as hetune's -D does. The spec's reference (a configuration or a reference
kernel) is run once through Kernel Tuner's run_kernel and its written buffers become the
answer, so Kernel Tuner verifies too; that run is part of its wall time.

usage: kt_tune.py SPEC --platform P --device D [--size N=V ...] [--strategy S
                  --budget N --seed S] [--iterations N]
"""
import argparse
import json
import math
import os
import random
import re
import sys
import time

import numpy as np

T0 = time.monotonic()  # before Kernel Tuner and PyOpenCL are imported: they count too

import pyopencl as cl  # noqa: E402
import kernel_tuner  # noqa: E402


def py_expr(text):
    """A hetune expression as Python: integer division, and/or/not."""
    t = str(text).replace("&&", " and ").replace("||", " or ")
    t = re.sub(r"!(?!=)", " not ", t)
    return re.sub(r"(?<![/])/(?![/])", "//", t)


def device_vars(dev):
    sizes = dev.max_work_item_sizes
    v = {
        "max_work_group_size": dev.max_work_group_size,
        "compute_units": dev.max_compute_units,
        "local_mem_size": dev.local_mem_size,
        "global_mem_size": dev.global_mem_size,
        "max_mem_alloc_size": dev.max_mem_alloc_size,
    }
    for d in range(3):
        v["max_work_item_size_%d" % d] = sizes[d] if d < len(sizes) else 1
    return v


def ev(text, env):
    return int(eval(py_expr(text), {"min": min, "max": max, "__builtins__": {}}, dict(env)))


def param_values(p, env):
    if "values" in p:
        return list(p["values"])
    lo, hi = ev(p["range"][0], env), ev(p["range"][1], env)
    if p.get("pow2"):
        v, out = 1, []
        while v <= hi:
            if v >= lo:
                out.append(v)
            v *= 2
        return out
    step = ev(p.get("step", 1), env)
    return list(range(lo, hi + 1, step))


def substitute(text, names):
    """Replaces whole-word names (sizes, device limits) by their values."""
    return re.sub(r"\b[A-Za-z_]\w*\b",
                  lambda m: str(names[m.group(0)]) if m.group(0) in names else m.group(0),
                  py_expr(text))


NP_TYPES = {"float": np.float32, "double": np.float64, "int": np.int32, "uint": np.uint32,
            "long": np.int64, "ulong": np.uint64, "short": np.int16, "char": np.int8,
            "uchar": np.uint8, "ushort": np.uint16}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--platform", type=int, default=0)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--size", action="append", default=[])
    ap.add_argument("--strategy", default="brute_force")
    ap.add_argument("--budget", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=0)
    a = ap.parse_args()

    spec = json.load(open(a.spec))
    folder = os.path.dirname(os.path.abspath(a.spec))
    src = open(os.path.join(folder, spec["kernel"]["file"])).read()
    sizes = dict(spec.get("sizes", {}))
    for s in a.size:
        k, v = s.split("=")
        sizes[k] = int(v)
    dev = cl.get_platforms()[a.platform].get_devices()[a.device]
    dvars = device_vars(dev)
    env = dict(dvars, **sizes)

    params = {k: param_values(p, env) for k, p in spec["params"].items()}
    names = list(params)
    consts = dict(env)
    restrictions = [substitute(c, consts) for c in spec.get("constraints", [])]
    if spec.get("local_mem"):
        restrictions.append("(%s) <= %d" % (substitute(spec["local_mem"], consts),
                                            dvars["local_mem_size"]))
    glob = [substitute(g, consts) for g in spec["ndrange"]["global"]]
    loc = [substitute(g, consts) for g in spec["ndrange"]["local"]]
    nd = len(glob)
    # Eq. 2 and 3 of the pruned space, as hetune applies them.
    groups = ["((%s) // (%s))" % (g, l) for g, l in zip(glob, loc)]
    restrictions += ["(%s) %% (%s) == 0" % (g, l) for g, l in zip(glob, loc)]
    restrictions.append("%s >= %d" % (" * ".join(groups), dvars["compute_units"]))

    def f(text):
        return lambda p: eval(text, {"__builtins__": {}}, p)

    problem_size = (lambda p: tuple(f(g)(p) for g in glob))
    grid_div = [f(l) for l in loc] + [None] * (3 - nd)
    block_names = [l if l in params else "block_size_" + "xyz"[d] for d, l in enumerate(loc)]

    rng = np.random.default_rng(1)
    args, written = [], []
    for arg in spec["args"]:
        t = NP_TYPES[arg["type"]]
        if "value" in arg:
            args.append(t(ev(arg["value"], env)))
            written.append(False)
            continue
        n = 1
        for s in arg["shape"]:
            n *= ev(s, env)
        if arg.get("init") == "random":
            args.append(rng.random(n).astype(t))
        else:
            args.append(np.zeros(n, dtype=t))
        written.append(arg.get("access", "read") != "read")

    iterations = a.iterations or spec.get("timing", {}).get("repeats", 7)
    ver = spec.get("verify", {})
    ref = ver.get("reference")
    answer = None
    if ref is not None:
        if isinstance(ref, dict):
            rparams, rname = dict(ref), spec["kernel"]["name"]
        else:
            rname = ver["kernel"]
            rparams = {k: v[0] for k, v in params.items()}
            rparams.update(ver.get("params", {}))
        fresh = [np.copy(x) if isinstance(x, np.ndarray) else x for x in args]
        out = kernel_tuner.run_kernel(rname, src, problem_size, fresh,
                                      rparams, grid_div_x=grid_div[0], grid_div_y=grid_div[1],
                                      grid_div_z=grid_div[2], lang="OpenCL",
                                      platform=a.platform, device=a.device,
                                      block_size_names=block_names, quiet=True)
        answer = [o if w else None for o, w in zip(out, written)]
    atol = max(ver.get("atol", 1e-6), ver.get("rtol", 0) * max(
        (float(np.max(np.abs(x))) for x in answer or [] if x is not None), default=0))

    opts = {}
    if a.budget:
        opts["max_fevals"] = a.budget
    random.seed(a.seed)
    np.random.seed(a.seed)
    results, _env = kernel_tuner.tune_kernel(
        spec["kernel"]["name"], src, problem_size, args, params, grid_div_x=grid_div[0],
        grid_div_y=grid_div[1], grid_div_z=grid_div[2], restrictions=restrictions,
        answer=answer, atol=atol if answer else 1e-6, lang="OpenCL", platform=a.platform,
        device=a.device, block_size_names=block_names, iterations=iterations,
        strategy=a.strategy, strategy_options=opts or None, quiet=True, verbose=False)
    ok = [r for r in results if isinstance(r.get("time"), (int, float))
          and math.isfinite(r["time"])]
    best = min(ok, key=lambda r: r["time"]) if ok else None
    if os.environ.get("KT_TRACE"):  # where Kernel Tuner's time went, per configuration (ms)
        for r in results:
            print("kt-trace", {k: r.get(k) for k in names}, {k: r.get(k) for k in (
                "compile_time", "verification_time", "benchmark_time", "framework_time",
                "strategy_time", "time", "__error__")}, file=sys.stderr)
    print(json.dumps({"tool": "kernel_tuner", "wall_s": time.monotonic() - T0,
                      "evaluated": len(results),
                      # its budget counts a configuration met again (a cache hit) as an
                      # evaluation too: how many distinct ones it measured
                      "unique": len({tuple(r.get(k) for k in names) for r in results}),
                      "best_s": best["time"] / 1e3 if best else None,
                      "best": {k: best[k] for k in names} if best else None}))


if __name__ == "__main__":
    sys.exit(main())
