"""tune(kernel_source, kernel_name, problem_size, args, tune_params, ...) in Kernel Tuner's
manner: the spec (docs/spec.md) and the kernel file are written for you into a folder."""

import ctypes
import json
import os
import tempfile

from . import _lib
from .core import Spec, _check

_TYPES = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
          "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
          "float32": "float", "float64": "double"}
_AXES = "xyz"


def _restriction(r, names):
    """One Kernel Tuner restriction as a hetune constraint, translated by the library
    (ht_kt_expression) as import-kt translates a T1 file's: and/or/not, //, chained
    comparisons, Python's true division in a quotient compared with a value."""
    if callable(r):
        raise TypeError("restrictions must be strings (expressions over the tune_params and "
                        "problem_size_x/y/z), not functions: hetune prunes the space with "
                        "them before anything runs")
    err = _lib.Error()
    out = ctypes.c_void_p()
    arr = (ctypes.c_char_p * max(1, len(names)))(*[n.encode() for n in names])
    _check(_lib.lib.ht_kt_expression(str(r).encode(), arr, len(names), ctypes.byref(out),
                                     ctypes.byref(err)), err)
    return _lib.take_text(out)


def _div(names):
    if isinstance(names, str):
        names = [names]
    return " * ".join("(%s)" % n for n in names) if names else "1"


def write_spec(folder, kernel_source, kernel_name, problem_size, arguments, tune_params,
               restrictions=None, answer=None, atol=1e-6, rtol=1e-5, grid_div_x=None,
               grid_div_y=None, grid_div_z=None, block_size_names=None, compiler_options=None,
               iterations=7, reference=None):
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
        spec["constraints"] = [_restriction(r, known)
                               for r in ([restrictions] if isinstance(restrictions, str) or
                                         callable(restrictions) else restrictions)]
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

    def __init__(self, doc, evaluations, spec_path, folder, db):
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

    def __repr__(self):
        return "TuneResult(best=%r, best_time=%r, %d evaluations)" % (
            self.best, self.best_time, len(self.evaluations))


def tune(kernel_source, kernel_name, problem_size, arguments, tune_params, restrictions=None,
         answer=None, atol=1e-6, device=0, strategy="exhaustive", budget=0, time_limit=0.0,
         seed=0, folder=None, db=None, reference=None, **spec_options):
    """Tunes an OpenCL kernel as Kernel Tuner's tune_kernel would, on one device (index or a
    unique part of "<platform> <name>").

    kernel_source: the kernel's text or a file's path. problem_size: an int or a tuple of up
    to 3, sizes named problem_size_x/y/z in the spec (and -D'd). arguments: numpy arrays
    (buffers, their contents copied as the initial data of every run) and integer scalars
    (numpy or Python). tune_params: {name: [values]}, each passed with -D. The NDRange is
    Kernel Tuner's: local (block_size_x, block_size_y, block_size_z) when tuned, else 256,
    1, 1; global ceil(problem_size / grid_div) * local, grid_div_x defaulting to
    block_size_x (grid_div_x=[...] as there). restrictions: expressions such as
    "block_size_x * tile >= 32" ("and", "or", "not" are turned into &&, ||, !).
    answer: a list like arguments, None or the expected contents of each output (checked
    with atol and rtol); reference: or a configuration whose outputs the others must match.
    Other keywords: grid_div_y, grid_div_z, block_size_names, compiler_options, iterations
    (runs per configuration, default 7), rtol.

    The spec, kernel and data go into folder (default: a new temporary folder, kept), the
    evaluations into the database db (default: folder/hetune.db). Returns a TuneResult."""
    folder = folder or tempfile.mkdtemp(prefix="hetune-%s-" % kernel_name)
    path = write_spec(folder, kernel_source, kernel_name, problem_size, arguments, tune_params,
                      restrictions=restrictions, answer=answer, atol=atol, reference=reference,
                      **spec_options)
    db = os.path.abspath(db or os.path.join(folder, "hetune.db"))
    with Spec(path) as spec:
        doc = spec.tune(device=device, strategy=strategy, budget=budget,
                        time_limit=time_limit, seed=seed, db=db)
        evals = spec.evaluations(doc["devices"][0]["index"], db)
    return TuneResult(doc, evals, path, folder, db)


# Kernel Tuner's strategy names that hetune has under another name, or not at all.
_STRATEGIES = {None: None, "brute_force": "exhaustive", "random_sample": "random",
               "genetic_algorithm": "genetic", "simulated_annealing": "anneal",
               "bayes_opt": "bayes"}


def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params,
                grid_div_x=None, grid_div_y=None, grid_div_z=None, restrictions=None,
                answer=None, atol=1e-6, verify=None, verbose=False, lang=None, device=0,
                platform=0, smem_args=None, cmem_args=None, texmem_args=None, compiler=None,
                compiler_options=None, defines=None, log=None, iterations=7,
                block_size_names=None, quiet=False, strategy=None, strategy_options=None,
                cache=None, metrics=None, simulation_mode=False, observers=None,
                objective=None, objective_higher_is_better=None, **hetune_options):
    """Kernel Tuner's tune_kernel, argument for argument (kernel_name first), on hetune:
    `results, env = hetune.tune_kernel(...)` as with `kernel_tuner.tune_kernel`.

    Taken as Kernel Tuner takes them: problem_size, arguments, tune_params, grid_div_*,
    restrictions (strings or a list of them; hetune prunes with them, so a Python function
    is refused), answer, atol, lang ("OpenCL" or None), device (an index of `hetune devices`
    or a unique part of a device's name), compiler_options, iterations, block_size_names,
    strategy (brute_force, random_sample, genetic_algorithm, simulated_annealing, bayes_opt,
    or a hetune strategy's name), strategy_options (max_fevals, time_limit, seed),
    verbose/quiet (hetune prints nothing from Python either way; the CLI's progress is
    `hetune tune`'s), cache (a file: hetune's results database is kept at CACHE.hetune.db,
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
                  iterations=iterations, **hetune_options)
    return result.evaluations, result.env
