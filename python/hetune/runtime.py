"""The runtime for programs (include/hetune/runtime.h) over numpy arrays.

    import numpy as np, hetune
    with hetune.Runtime("vecadd/spec.json", db="hetune.db", tune=True) as rt:
        a, b, c = (rt.empty(n) for n in "abc")   # or the program's own arrays
        rt.bind("a", a); rt.bind("b", b); rt.bind("c", c)
        for step in range(100):
            b[:] = ...; rt.launch(); use(a)
        print(rt.info()["decision"])

A program that ships no files opens it from strings: Runtime.from_strings(spec_json,
kernel_source, ...). Arrays are bound without a copy: the library reads and writes the
array's own memory, so an array must be C-contiguous, of the argument's type and of its size,
and writable when the kernel writes it; the Runtime keeps a reference to every bound array
until it is bound again or the Runtime is closed, so it cannot be freed while bound.

The options go to the library by name (ht_runtime_opts_set into a buffer of
ht_runtime_opts_size() bytes), so that struct ht_runtime_opts is not mirrored here field by
field: a field the library adds later cannot shift the ones Python writes.
"""

import ctypes
import json
import os
from typing import Any, Dict, Mapping, Optional, Union

from . import _lib
from ._lib import lib
from .core import _DTYPES, HetuneError, Spec, _check

PathLike = Union[str, "os.PathLike[str]"]


class Runtime:
    """Open once, bind the program's arrays, launch many times: the kernel of a spec
    co-executed over the devices (or on the fastest alone, as decided at open) with each
    device's tuned configuration from the results database.

    spec is a path to a spec file or a Spec (hetune.load, hetune.loads); sizes override its
    problem sizes (a path only: a Spec has its sizes). The options are those of
    struct ht_runtime_opts: db (default ./hetune.db), devices ("all", "0,1", a list of
    indices or names' parts), tune (tune a device the database has nothing of), mode
    ("auto", "split" or "alone"), dim, strategy, budget, measure_repeats, verify, cache,
    predict, isolate ("auto", "off", "on"; tuning only), foreign_up and foreign_down (how a
    GPU moves the program's arrays: "auto", "stage", "register", "direct" or "pin"),
    fallback_ratio (mode "auto": a split whose first launches run slower than the fastest
    device alone by this ratio gives way to it; 0: 1.02, below 0: never), cpu_units (a CPU
    device co-executes on a sub-device of this many compute units, the others left to the
    GPU drivers and the program; 0: all), nodes ("local",
    or "mpi": every rank of MPI_COMM_WORLD a node, ht_mpi_nodes() as runtime.h's "Across
    nodes" says; a build without MPI refuses it). Errors raise HetuneError."""

    def __init__(self, spec: Union[PathLike, Spec], sizes: Optional[Mapping[str, int]] = None,
                 *, db: Optional[PathLike] = None, devices: Any = None, tune: bool = False,
                 mode: str = "auto", dim: int = 0, strategy: Optional[str] = None,
                 budget: int = 0, measure_repeats: int = 0, verify: bool = True,
                 cache: bool = True, predict: bool = True, isolate: str = "auto",
                 foreign_up: str = "auto", foreign_down: str = "auto",
                 fallback_ratio: float = 0.0, cpu_units: int = 0,
                 nodes: str = "local") -> None:
        self._h: Optional[ctypes.c_void_p] = None
        self._bound: Dict[str, Any] = {}
        if isinstance(spec, Spec):
            if sizes:
                raise ValueError("sizes are given when the spec is loaded: "
                                 "hetune.load(path, sizes) or hetune.loads(..., sizes=...)")
            self.spec = spec
        else:
            self.spec = Spec(os.fspath(spec), sizes)
        if isinstance(devices, (list, tuple)):
            devices = ",".join(str(d) for d in devices)
        settings = {
            "db": os.path.abspath(os.fspath(db)) if db is not None else None,
            "devices": str(devices) if devices is not None else None,
            "tune_missing": str(int(bool(tune))), "mode": mode, "dim": str(int(dim)),
            "strategy": strategy, "budget": str(int(budget)),
            "measure_repeats": str(int(measure_repeats)), "no_verify": str(int(not verify)),
            "no_cache": str(int(not cache)), "no_predict": str(int(not predict)),
            "isolate": isolate, "foreign_up": foreign_up, "foreign_down": foreign_down,
            "fallback_ratio": repr(float(fallback_ratio)), "cpu_units": str(int(cpu_units)),
            "nodes": nodes,
        }
        opts = ctypes.create_string_buffer(lib.ht_runtime_opts_size())
        lib.ht_runtime_opts_init(opts)
        keep = []  # the strings opts borrows, alive until the open returns
        for key, value in settings.items():
            if value is None:
                continue
            raw = value.encode()
            keep.append(raw)
            err = _lib.Error()
            _check(lib.ht_runtime_opts_set(opts, key.encode(), raw, ctypes.byref(err)), err)
        err = _lib.Error()
        handle = ctypes.c_void_p()
        _check(lib.ht_runtime_open_spec(self.spec._h, opts, ctypes.byref(handle),
                                        ctypes.byref(err)), err)
        del keep
        self._h = handle
        self._args = {a["name"]: a for a in self.spec.doc.get("args", []) if "shape" in a}

    @classmethod
    def from_strings(cls, spec_json: Union[str, bytes], source: Union[str, bytes, None] = None,
                     sizes: Optional[Mapping[str, int]] = None, name: Optional[str] = None,
                     base_dir: Optional[PathLike] = None, **options: Any) -> "Runtime":
        """A Runtime for a spec given as JSON text and its kernel as OpenCL C text (None:
        the spec's "kernel": {"source": ...}): no file is read. name is what errors call
        the spec ("<string>" by default). options as for Runtime()."""
        return cls(Spec.from_text(spec_json, source, sizes, name, base_dir), **options)

    # -- lifetime --

    def close(self) -> None:
        """Frees the runtime (contexts, programs, buffers) and lets go of the bound arrays.
        Closing again does nothing."""
        h, self._h = getattr(self, "_h", None), None
        if h is not None and h.value and lib is not None:
            lib.ht_runtime_close(h)
        self._bound = {}

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return not (self._h is not None and self._h.value)

    def _handle(self) -> ctypes.c_void_p:
        if self.closed:
            raise ValueError("the runtime is closed")
        return self._h

    def __repr__(self) -> str:
        name = self.spec.doc.get("name")
        if self.closed:
            return "<hetune.Runtime %r closed>" % name
        info = self.info()
        used = [d["name"] for d in info["devices"] if d["used"]]
        how = ("split over %d devices" % len(used)) if info["split"] else \
              ("alone on %s" % (used[0] if used else "?"))
        return "<hetune.Runtime %r %s, %d launches, bound %s>" % (
            name, how, info["launches"], sorted(self._bound) or "nothing")

    # -- arrays --

    def arg_bytes(self, name: str) -> int:
        """The bytes buffer argument name must be bound with."""
        err = _lib.Error()
        n = ctypes.c_size_t()
        _check(lib.ht_runtime_arg_bytes(self._handle(), name.encode(), ctypes.byref(n),
                                        ctypes.byref(err)), err)
        return n.value

    def dtype(self, name: str) -> Any:
        """The numpy dtype of buffer argument name."""
        import numpy as np
        if name not in self._args:
            self.arg_bytes(name)  # the library's message: no such buffer, or a scalar
        return np.dtype(_DTYPES[self._args[name]["type"]])

    def empty(self, name: str) -> Any:
        """A new 1-D numpy array of the type and size of buffer argument name (not bound)."""
        import numpy as np
        dt = self.dtype(name)
        return np.empty(self.arg_bytes(name) // dt.itemsize, dtype=dt)

    def _unbind(self, name: str) -> None:
        # A bind that fails leaves the argument unbound in the library; one refused here
        # must too, so that a launch after it fails naming it (runtime.h, "Misuse").
        self._bound.pop(name, None)
        if name in self._args:
            lib.ht_runtime_bind(self._h, name.encode(), None, 0, None)

    def bind(self, name: str, array: Any) -> None:
        """Binds the numpy array to buffer argument name without copying it: launches read
        it (inputs) and write into it (outputs). It must be C-contiguous, of the argument's
        dtype and size (any shape), and writable when the kernel writes it. The Runtime
        keeps a reference to it until it is bound again or the Runtime is closed. A bind
        that fails leaves name unbound."""
        import numpy as np
        h = self._handle()
        try:
            if not isinstance(array, np.ndarray):
                raise TypeError("argument %r: a numpy array is needed, not %s"
                                % (name, type(array).__name__))
            if name in self._args:
                want = self.dtype(name)
                if array.dtype != want:
                    raise TypeError("argument %r is %s: the array is %s, not %s (convert "
                                    "it once with astype and keep the copy bound)"
                                    % (name, self._args[name]["type"], array.dtype, want))
                if not array.flags.c_contiguous:
                    raise ValueError("argument %r: the array is not C-contiguous (bind "
                                     "numpy.ascontiguousarray of it, and keep that copy)"
                                     % name)
                if self._args[name].get("access") in ("write", "readwrite") and \
                        not array.flags.writeable:
                    raise ValueError("argument %r is written by the kernel: the array is "
                                     "read-only" % name)
        except (TypeError, ValueError):
            self._unbind(name)
            raise
        err = _lib.Error()
        rc = lib.ht_runtime_bind(h, name.encode(), ctypes.c_void_p(array.ctypes.data),
                                 array.nbytes, ctypes.byref(err))
        if rc != 0:
            self._bound.pop(name, None)
            _check(rc, err)
        self._bound[name] = array

    def bound(self) -> Dict[str, Any]:
        """The arrays bound now, by argument name."""
        return dict(self._bound)

    # -- launching --

    def launch(self, times: int = 1) -> None:
        """Runs the kernel over the whole problem times times on the bound arrays: the
        outputs are in them when it returns. A launch that fails raises HetuneError; the
        failure is recorded in info() and the Runtime stays usable and closable."""
        h = self._handle()
        for _ in range(int(times)):
            err = _lib.Error()
            _check(lib.ht_runtime_launch(h, ctypes.byref(err)), err)

    def info(self) -> Dict[str, Any]:
        """What the runtime decided and measured, a dict: spec, split, fastest, decision (in
        words), predicted_split_s, predicted_alone_s, measured_split_s, launches,
        failed_launches, last_status, last_error, last_wall_s, under_load,
        load_other_cores and locked (what other processes did while the decision
        measured: docs/reliability.md), written, written_probed and written_stored (the
        written buffers without "index": what a probe found at open, or the database held
        from an earlier one), rechecks, switches and switch_s (the watch's: times the
        split was tried again after a fallback, changes between the split and the device
        alone, and the seconds they took) and devices (each with
        index, name, platform, config, tuned_s, alone_s, used, share, kernel_s and
        transfer_s of the last launch) and skipped (devices with nothing usable)."""
        err = _lib.Error()
        text = ctypes.c_void_p()
        _check(lib.ht_runtime_info_json(self._handle(), ctypes.byref(text), ctypes.byref(err)),
               err)
        return json.loads(_lib.take_text(text))


__all__ = ["Runtime", "HetuneError"]
