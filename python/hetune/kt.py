"""tune(kernel_source, kernel_name, problem_size, args, tune_params, ...) in Kernel Tuner's
manner: the spec (docs/spec.md) and the kernel file are written for you into a folder."""

import json
import os
import re
import tempfile

from .core import Spec

_TYPES = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
          "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
          "float32": "float", "float64": "double"}
_AXES = "xyz"


def _restriction(r):
    if callable(r):
        raise TypeError("restrictions must be strings (expressions over the tune_params and "
                        "problem_size_x/y/z), not functions: hetune prunes the space with them")
    r = re.sub(r"\band\b", "&&", r)
    r = re.sub(r"\bor\b", "||", r)
    r = re.sub(r"\bnot\b", "!", r)
    return r.replace("//", "/")


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
        spec["constraints"] = [_restriction(r) for r in restrictions]
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
