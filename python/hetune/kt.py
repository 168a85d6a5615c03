"""tune(kernel_source, kernel_name, problem_size, args, tune_params, ...) in Kernel Tuner's
manner: the spec (docs/spec.md) and the kernel file are written for you into a folder."""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _lib
from .core import Spec, _check

_TYPES = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
          "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
          "float32": "float", "float64": "double"}
_AXES = "xyz"


def _restriction(r: str, names: List[str]) -> str:
    """One Kernel Tuner restriction string as a hetune constraint, translated by the
    library (ht_kt_expression) as import-kt translates a T1 file's: and/or/not, //, chained
    comparisons, Python's true division in a quotient compared with a value, ceil, floor
    and int of a quotient, min and max."""
    err = _lib.Error()
    out = ctypes.c_void_p()
    arr = (ctypes.c_char_p * max(1, len(names)))(*[n.encode() for n in names])
    _check(_lib.lib.ht_kt_expression(str(r).encode(), arr, len(names), ctypes.byref(out),
                                     ctypes.byref(err)), err)
    return _lib.take_text(out)


def _balanced(terms: List[str], op: str) -> str:
    """terms joined by op as a balanced tree: hetune's expressions bound the height of
    their syntax tree, and a chain a || b || c ... is as high as it is long."""
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return "(%s) %s (%s)" % (_balanced(terms[:half], op), op, _balanced(terms[half:], op))


def _member(name: str, chosen: List[int], every: List[int]) -> str:
    """name is one of chosen (of every value it has): the shorter of the test or its
    complement."""
    if len(chosen) == len(every):
        return "1"
    if 2 * len(chosen) > len(every):
        rest = [v for v in every if v not in set(chosen)]
        return _balanced(["%s != %d" % (name, v) for v in rest], "&&")
    return _balanced(["%s == %d" % (name, v) for v in chosen], "||")


def _set_expr(configs: List[Tuple[int, ...]], names: List[str], values: List[List[int]],
              level: int = 0) -> str:
    """A hetune expression that holds exactly for the configurations (tuples of the values
    of names[level:]) of configs: a trie, one level per parameter, values that lead to the
    same rest tested together, a level that keeps every combination left out."""
    whole = 1
    for vs in values[level:]:
        whole *= len(vs)
    if not configs:
        return "0"
    if len(set(configs)) == whole:
        return "1"
    rest: Dict[int, List[Tuple[int, ...]]] = {}
    for c in configs:
        rest.setdefault(c[0], []).append(c[1:])
    by_sub: Dict[str, List[int]] = {}
    for v in values[level]:
        if v in rest:
            by_sub.setdefault(_set_expr(rest[v], names, values, level + 1), []).append(v)
    terms = []
    for sub, vs in by_sub.items():
        member = _member(names[level], vs, values[level])
        terms.append(sub if member == "1" else member if sub == "1" else
                     "(%s) && (%s)" % (member, sub))
    return _balanced(terms, "||")


def _callable_constraint(fns: List[Callable[[Dict[str, int]], Any]],
                         tune_params: Dict[str, List[int]]) -> str:
    """Kernel Tuner's restriction functions (each given a dict of parameter values, true to
    keep the configuration) as one hetune constraint. hetune prunes in C, so the functions
    are called here, over every combination of tune_params as Kernel Tuner calls them, and
    the configurations they keep (or those they drop, when fewer) become an expression
    that holds exactly for them (_set_expr)."""
    names = list(tune_params)
    values = [list(dict.fromkeys(int(v) for v in tune_params[n])) for n in names]
    keep, drop = [], []
    for combo in itertools.product(*values):
        config = dict(zip(names, combo))
        (keep if all(f(dict(config)) for f in fns) else drop).append(combo)
    kept = _set_expr(keep, names, values)
    if len(drop) < len(keep):
        dropped = _set_expr(drop, names, values)
        if len(dropped) + 3 < len(kept):
            return "!(%s)" % dropped
    return kept


def _div(names):
    if isinstance(names, str):
        names = [names]
    return " * ".join("(%s)" % n for n in names) if names else "1"


def write_spec(folder: str, kernel_source: str, kernel_name: str,
               problem_size: Union[int, Sequence[int]], arguments: Sequence[Any],
               tune_params: Dict[str, List[int]], restrictions: Any = None,
               answer: Optional[Sequence[Any]] = None, atol: float = 1e-6, rtol: float = 1e-5,
               grid_div_x: Optional[List[str]] = None, grid_div_y: Optional[List[str]] = None,
               grid_div_z: Optional[List[str]] = None,
               block_size_names: Optional[List[str]] = None,
               compiler_options: Optional[List[str]] = None, iterations: int = 7,
               reference: Optional[Dict[str, int]] = None) -> str:
    """Writes folder/kernel.cl, folder/spec.json and the arguments' files; returns the
    spec's path. See tune for the arguments."""
    import numpy as np

    os.makedirs(folder, exist_ok=True)
    if isinstance(kernel_source, str) and "\n" not in kernel_source and \
            os.path.isfile(kernel_source):
        with open(kernel_source) as f:
            kernel_source = f.read()
    with open(os.path.join(folder, "kernel.cl"), "w") as f:
        f.write(kernel_source)
    ps = list(problem_size) if isinstance(problem_size, (list, tuple)) else [problem_size]
    if not 1 <= len(ps) <= 3:
        raise ValueError("problem_size has 1 to 3 dimensions")
    sizes = {"problem_size_" + _AXES[d]: int(v) for d, v in enumerate(ps)}
    names = list(block_size_names or ["block_size_x", "block_size_y", "block_size_z"])
    divs = [grid_div_x, grid_div_y, grid_div_z]
    glob, loc = [], []
    for d in range(len(ps)):
        bs = names[d] if names[d] in tune_params else str(256 if d == 0 else 1)
        div = divs[d] if divs[d] is not None else ([names[d]] if names[d] in tune_params else [])
        glob.append("ceil_div(problem_size_%s, %s) * %s" % (_AXES[d], _div(div), bs))
        loc.append(bs)
    params = {k: {"values": [int(v) for v in vs]} for k, vs in tune_params.items()}
    args = []
    outputs = {}
    for k, a in enumerate(arguments):
        name = "arg%d" % k
        if isinstance(a, np.ndarray):
            t = _TYPES.get(a.dtype.name)
            if t is None:
                raise TypeError("argument %d: dtype %s has no OpenCL type here" % (k, a.dtype))
            fn = "%s.bin" % name
            np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tofile(
                os.path.join(folder, fn))
            arg = {"name": name, "type": t, "shape": [int(a.size)], "access": "readwrite",
                   "init": "file:" + fn}
            if answer is not None and answer[k] is not None:
                ref = "ref_%s.npy" % name
                np.save(os.path.join(folder, ref),
                        np.ascontiguousarray(answer[k], dtype=a.dtype.newbyteorder("<")).ravel())
                outputs[name] = "file:" + ref
            elif answer is not None or reference is None:
                arg["verify"] = "none"
            args.append(arg)
        else:
            if isinstance(a, (np.generic,)):
                t = _TYPES.get(np.dtype(type(a)).name)
            elif isinstance(a, bool) or not isinstance(a, (int, float)):
                raise TypeError("argument %d: a numpy array or a number, not %r" % (k, type(a)))
            else:
                t = "int" if isinstance(a, int) else "float"
            if t is None:
                raise TypeError("argument %d: type %s has no OpenCL type here" % (k, type(a)))
            if float(a) != int(a):
                raise ValueError("argument %d: a scalar's value is an integer expression in "
                                 "a spec; %r is not integral" % (k, a))
            args.append({"name": name, "type": t, "value": str(int(a))})
    spec = {
        "name": kernel_name,
        "kernel": {"file": "kernel.cl", "name": kernel_name},
        "sizes": sizes,
        "ndrange": {"global": glob, "local": loc},
        "params": params,
        "args": args,
        "timing": {"repeats": int(iterations), "keep_best": int(iterations)},
    }
    if compiler_options:
        spec["kernel"]["options"] = " ".join(compiler_options) \
            if isinstance(compiler_options, (list, tuple)) else str(compiler_options)
    if restrictions:
        known = list(tune_params) + list(sizes)
        listed = [restrictions] if isinstance(restrictions, str) or callable(restrictions) \
            else list(restrictions)
        fns = [r for r in listed if callable(r)]
        spec["constraints"] = [_restriction(r, known) for r in listed if not callable(r)]
        if fns:
            spec["constraints"].append(_callable_constraint(fns, tune_params))
    verify = {}
    if reference is not None:
        verify["reference"] = {k: int(v) for k, v in reference.items()}
    if outputs:
        verify["outputs"] = outputs
    if verify:
        verify.update({"rtol": float(rtol), "atol": float(atol)})
        spec["verify"] = verify
    path = os.path.join(folder, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f, indent=2)
    return path


class TuneResult:
    """What tune found. best: the best configuration (a dict) or None; best_time: its
    time in seconds; evaluations: every evaluation, Kernel Tuner style (the parameters,
    "time" in ms, "times" (every run, ms), "status", "verified"); doc: the dict `hetune
    tune --json` prints; spec_path, folder, db. `results, env = hetune.tune(...)` unpacks
    as Kernel Tuner's tune_kernel does."""

    def __init__(self, doc: Dict[str, Any], evaluations: List[Dict[str, Any]], spec_path: str,
                 folder: str, db: str) -> None:
        self.doc = doc
        dev = doc["devices"][0]
        best = dev.get("best")
        self.best = dict(best["config"]) if best else None
        self.best_time = best["seconds"] if best else None
        self.evaluations = []
        for e in evaluations:
            row = dict(e["config"])
            row["time"] = e["seconds"] * 1e3 if e["seconds"] is not None else None
            row["times"] = [r * 1e3 for r in e["runs"]]
            row["status"] = e["status"]
            row["verified"] = e["verified"]
            if e["reason"]:
                row["reason"] = e["reason"]
            self.evaluations.append(row)
        self.spec_path, self.folder, self.db = spec_path, folder, db
        self.env = {"device_name": dev["device"], "platform": dev["platform"],
                    "best_config": self.best, "best_time_s": self.best_time,
                    "spec": spec_path, "db": db, "strategy": doc["strategy"]}

    def __iter__(self):
        return iter((self.evaluations, self.env))

    def __repr__(self) -> str:
        return "TuneResult(best=%r, best_time=%r, %d evaluations)" % (
            self.best, self.best_time, len(self.evaluations))


class _Progress:
    """Progress lines on stderr, from Spec.tune's progress dicts: one a second at most (every
    evaluation with verbose), and the last."""

    def __init__(self, kernel_name: str, verbose: bool) -> None:
        self.kernel_name, self.verbose, self.last = kernel_name, verbose, 0.0

    def __call__(self, p: Dict[str, Any]) -> None:
        now = time.monotonic()
        if p["reference"] == 1:
            line = "computing the reference outputs"
        elif p["status"] is None and p["reference"] == 0:
            line = "%d valid configurations, %d to evaluate%s" % (
                p["space"], p["total"],
                ", %d known from the database" % p["from_db"] if p["from_db"] else "")
        elif p["status"] is not None:
            if not (self.verbose or p["done"] == p["total"] or now - self.last >= 1.0):
                return
            line = "%d/%d evaluated%s%s, best %s, %.1f s" % (
                p["done"], p["total"], ", %d failed" % p["failed"] if p["failed"] else "",
                ", %d cut" % p["cut"] if p["cut"] else "",
                "%.4g ms" % (p["best_s"] * 1e3) if p["best_s"] is not None else "none yet",
                p["elapsed_s"])
        else:
            return
        self.last = now
        print("hetune: %s on %s: %s" % (self.kernel_name, p["device"], line), file=sys.stderr,
              flush=True)


def tune(kernel_source: str, kernel_name: str, problem_size: Union[int, Sequence[int]],
         arguments: Sequence[Any], tune_params: Dict[str, List[int]],
         restrictions: Any = None, answer: Optional[Sequence[Any]] = None,
         atol: float = 1e-6, device: Union[int, str] = 0, strategy: str = "exhaustive",
         budget: int = 0, time_limit: float = 0.0, seed: int = 0,
         folder: Optional[str] = None, db: Optional[str] = None,
         reference: Optional[Dict[str, int]] = None, quiet: bool = False,
         verbose: bool = False, **spec_options: Any) -> "TuneResult":
    """Tunes an OpenCL kernel as Kernel Tuner's tune_kernel would, on one device (index or a
    unique part of "<platform> <name>").

    kernel_source: the kernel's text or a file's path. problem_size: an int or a tuple of up
    to 3, sizes named problem_size_x/y/z in the spec (and -D'd). arguments: numpy arrays
    (buffers, their contents copied as the initial data of every run) and integer scalars
    (numpy or Python). tune_params: {name: [values]}, each passed with -D. The NDRange is
    Kernel Tuner's: local (block_size_x, block_size_y, block_size_z) when tuned, else 256,
    1, 1; global ceil(problem_size / grid_div) * local, grid_div_x defaulting to
    block_size_x (grid_div_x=[...] as there). restrictions: expressions such as
    "block_size_x * tile >= 32", read as Python reads them (see tune_kernel), or functions
    given a dict of parameter values, true to keep a configuration (called here over every
    combination of tune_params; the configurations they keep become a constraint), or a
    list mixing both.
    answer: a list like arguments, None or the expected contents of each output (checked
    with atol and rtol); reference: or a configuration whose outputs the others must match.
    Other keywords: grid_div_y, grid_div_z, block_size_names, compiler_options, iterations
    (runs per configuration, default 7), rtol.

    The spec, kernel and data go into folder (default: a new temporary folder, kept), the
    evaluations into the database db (default: folder/hetune.db; ":memory:" writes none,
    the result still lists them). Unless quiet, progress lines go to stderr (one a second;
    every evaluation with verbose). Returns a TuneResult."""
    folder = folder or tempfile.mkdtemp(prefix="hetune-%s-" % kernel_name)
    path = write_spec(folder, kernel_source, kernel_name, problem_size, arguments, tune_params,
                      restrictions=restrictions, answer=answer, atol=atol, reference=reference,
                      **spec_options)
    if db != ":memory:":
        db = os.path.abspath(db or os.path.join(folder, "hetune.db"))
    with Spec(path) as spec:
        doc = spec.tune(device=device, strategy=strategy, budget=budget,
                        time_limit=time_limit, seed=seed, db=db, evaluations=True,
                        progress=None if quiet else _Progress(kernel_name, verbose))
        evals = doc["devices"][0].pop("evaluations")
    return TuneResult(doc, evals, path, folder, db)


# Kernel Tuner's strategy names that hetune has under another name, or not at all.
_STRATEGIES = {None: None, "brute_force": "exhaustive", "random_sample": "random",
               "genetic_algorithm": "genetic", "simulated_annealing": "anneal",
               "bayes_opt": "bayes"}


def tune_kernel(kernel_name: str, kernel_source: str,
                problem_size: Union[int, Sequence[int]], arguments: Sequence[Any],
                tune_params: Dict[str, List[int]], grid_div_x: Optional[List[str]] = None,
                grid_div_y: Optional[List[str]] = None,
                grid_div_z: Optional[List[str]] = None, restrictions: Any = None,
                answer: Optional[Sequence[Any]] = None, atol: float = 1e-6,
                verify: Any = None, verbose: bool = False, lang: Optional[str] = None,
                device: Union[int, str] = 0, platform: int = 0, smem_args: Any = None,
                cmem_args: Any = None, texmem_args: Any = None, compiler: Any = None,
                compiler_options: Optional[List[str]] = None, defines: Any = None,
                log: Any = None, iterations: int = 7,
                block_size_names: Optional[List[str]] = None, quiet: bool = False,
                strategy: Optional[str] = None,
                strategy_options: Optional[Dict[str, Any]] = None, cache: Optional[str] = None,
                metrics: Any = None, simulation_mode: bool = False, observers: Any = None,
                objective: Any = None, objective_higher_is_better: Any = None,
                **hetune_options: Any) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """Kernel Tuner's tune_kernel, argument for argument (kernel_name first), on hetune:
    `results, env = hetune.tune_kernel(...)` as with `kernel_tuner.tune_kernel`.

    Taken as Kernel Tuner takes them: problem_size, arguments, tune_params, grid_div_*,
    restrictions (strings, functions given a dict of parameter values, or a list mixing
    them: strings are translated into hetune's constraints, functions are called over every
    combination of tune_params and what they keep becomes one), answer, atol, lang ("OpenCL" or None), device (an index of `hetune devices`
    or a unique part of a device's name), compiler_options, iterations, block_size_names,
    strategy (brute_force, random_sample, genetic_algorithm, simulated_annealing, bayes_opt,
    or a hetune strategy's name), strategy_options (max_fevals, time_limit, seed),
    quiet (no progress lines on stderr; without it, one a second) and verbose (a line
    after every evaluation), cache (a file: hetune's results database is kept at CACHE.hetune.db,
    and a second call with the same cache measures only what is missing). platform is
    ignored (hetune finds every platform's devices). Refused, with the reason:
    lang other than OpenCL, verify (a function), smem/cmem/texmem_args, defines, metrics,
    observers, objective, simulation_mode. Any other keyword is passed to hetune.tune
    (folder, db, reference, rtol...)."""
    if lang is not None and str(lang).lower() != "opencl":
        raise ValueError("lang=%r: hetune tunes OpenCL kernels (a CUDA or HIP space can be "
                         "replayed from a recording: hetune tune --replay)" % (lang,))
    refused = {"verify": verify, "smem_args": smem_args, "cmem_args": cmem_args,
               "texmem_args": texmem_args, "defines": defines, "metrics": metrics,
               "observers": observers, "objective": objective}
    for k, v in refused.items():
        if v is not None:
            raise TypeError("%s=: not supported by hetune's tune_kernel (hetune verifies "
                            "with answer= or a reference configuration, and times kernels "
                            "only)" % k)
    if simulation_mode:
        raise TypeError("simulation_mode: use `hetune tune SPEC --replay FILE` (a T4 or "
                        "Kernel Tuner cache file) instead")
    if compiler is not None and compiler != "":
        raise TypeError("compiler=: OpenCL kernels are built by the OpenCL driver")
    opts = dict(strategy_options or {})
    budget = int(opts.pop("max_fevals", 0) or 0)
    time_limit = float(opts.pop("time_limit", 0.0) or 0.0)
    seed = int(opts.pop("seed", 0) or 0)
    if strategy in _STRATEGIES:
        name = _STRATEGIES[strategy]
    elif isinstance(strategy, str):
        name = strategy
    else:
        raise TypeError("strategy=%r: a strategy's name" % (strategy,))
    if name is None:
        name = "bayes" if budget or time_limit else "exhaustive"
    if cache and "db" not in hetune_options:
        hetune_options["db"] = os.path.abspath(str(cache) + ".hetune.db")
    if grid_div_x is not None:
        hetune_options["grid_div_x"] = grid_div_x
    if grid_div_y is not None:
        hetune_options["grid_div_y"] = grid_div_y
    if grid_div_z is not None:
        hetune_options["grid_div_z"] = grid_div_z
    if block_size_names is not None:
        hetune_options["block_size_names"] = block_size_names
    if compiler_options is not None:
        hetune_options["compiler_options"] = compiler_options
    result = tune(kernel_source, kernel_name, problem_size, arguments, tune_params,
                  restrictions=restrictions, answer=answer, atol=atol, device=device,
                  strategy=name, budget=budget, time_limit=time_limit, seed=seed,
                  iterations=iterations, quiet=bool(quiet), verbose=bool(verbose),
                  **hetune_options)
    return result.evaluations, result.env
