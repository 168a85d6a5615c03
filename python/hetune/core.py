"""devices, specs, spaces, evaluations, tuning and splitting over libhetune."""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _lib
from ._lib import lib

# A device: its index in devices(), a unique part of "<platform> <name>", "all" or None
# (every one where several may be meant), or a list of those.
DeviceRef = Union[None, int, str, Sequence[Union[int, str]]]

_DTYPES = {"char": "<i1", "uchar": "<u1", "short": "<i2", "ushort": "<u2", "int": "<i4",
           "uint": "<u4", "long": "<i8", "ulong": "<u8", "float": "<f4", "double": "<f8"}


class HetuneError(Exception):
    """An error the library reported: code (HT_E... value), name ("HT_ESPEC"), text, field,
    file, line, column, and status (the exit status the CLI would give: 1 runtime, 2 bad
    input)."""

    def __init__(self, err):
        buf = ctypes.create_string_buffer(4096)
        lib.ht_error_format(ctypes.byref(err), buf, len(buf))
        self.code = err.code
        self.name = lib.ht_err_name(err.code).decode()
        self.text = err.text.decode("utf-8", "replace")
        self.field = err.field.decode("utf-8", "replace")
        self.file = err.file.decode("utf-8", "replace")
        self.line, self.column = err.line, err.column
        self.status = lib.ht_present_exit_status(err.code)
        super().__init__("%s (%s)" % (buf.value.decode("utf-8", "replace"), self.name))


def _check(rc, err):
    if rc != 0 and rc != 1:  # HT_OK, HT_DONE
        if err.code == 0:
            err.code = rc
            err.text = lib.ht_strerror(rc)
        raise HetuneError(err)


def _json_call(fn, *args):
    err = _lib.Error()
    text = ctypes.c_void_p()
    _check(fn(*args, ctypes.byref(text), ctypes.byref(err)), err)
    return json.loads(_lib.take_text(text))


# --- devices ---

_platform = None


def _plat():
    global _platform
    if _platform is None:
        err = _lib.Error()
        p = ctypes.POINTER(_lib.Platform)()
        _check(lib.ht_platform_discover(ctypes.byref(p), ctypes.byref(err)), err)
        _platform = p  # kept for the process: specs and sessions borrow its devices
    return _platform


def devices() -> List[Dict[str, Any]]:
    """Every OpenCL device as `hetune devices --json` lists it: a list of dicts with index,
    name, platform, type, version, driver_version, compute_units, max_work_group_size,
    max_work_item_dims, max_work_item_sizes, local_mem_size, global_mem_size,
    max_mem_alloc_size, is_cpu and is_gpu."""
    p = _plat().contents
    return _json_call(lib.ht_present_devices_json, p.devices, p.count, None, None)["devices"]


def _device_indices(device):
    """Indices of device: None or "all" (every one), an int, a name's unique part, or a
    list of those."""
    p = _plat()
    if device is None or device == "all":
        return list(range(p.contents.count))
    if isinstance(device, (list, tuple)):
        return [i for d in device for i in _device_indices(d)]
    if isinstance(device, int):
        if not 0 <= device < p.contents.count:
            raise ValueError("no device %d (there are %d)" % (device, p.contents.count))
        return [device]
    err = _lib.Error()
    idx = ctypes.c_size_t()
    _check(lib.ht_platform_find(p, str(device).encode(), ctypes.byref(idx), ctypes.byref(err)),
           err)
    return [idx.value]


def _dev(i):
    return ctypes.pointer(_plat().contents.devices[i])


def _one_device(device):
    idx = _device_indices(0 if device is None else device)
    if len(idx) != 1:
        raise ValueError("one device is needed, %r names %d" % (device, len(idx)))
    return idx[0]


def _db_path(db):
    """The results database's path for the library: ":memory:" as it is (SQLite's own
    database in memory, gone when closed), any other name made absolute (default
    ./hetune.db)."""
    return db if db == ":memory:" else os.path.abspath(db or "hetune.db")


def _stored_evals(store, problem, i):
    """Every evaluation of problem on device i that the open store holds, in the order
    stored (Spec.evaluations' dicts)."""
    err = _lib.Error()
    rows = []

    def visit(ev, _user):
        e = ev.contents
        cfg = {}
        for pair in e.config.decode().split(","):
            if pair:
                k, v = pair.split("=", 1)
                cfg[k] = int(v)
        none = lambda x: None if x < 0 else x  # noqa: E731 (-1: not measured)
        rows.append({
            "config": cfg, "status": e.status.decode(), "reason": e.reason.decode(),
            "seconds": none(e.seconds), "min_seconds": none(e.min_seconds),
            "build_seconds": none(e.build_seconds), "verified": e.verified,
            "runs": list(e.runs[:e.nruns]), "strategy": e.strategy.decode()})
        return 0

    cb = _lib.EVAL_CB(visit)
    dev_id = ctypes.c_int64()
    _check(lib.ht_store_device_id(store, _dev(i), ctypes.byref(dev_id), ctypes.byref(err)),
           err)
    _check(lib.ht_store_list_evals(store, problem, dev_id.value, cb, None, ctypes.byref(err)),
           err)
    return rows


# --- specs ---

def _overrides(sizes):
    """The ctypes array of sizes (a dict) and the names kept alive with it."""
    names = [k.encode() for k in sizes]
    ov = (_lib.SizeOverride * max(1, len(names)))()
    for k, (name, value) in enumerate(zip(names, sizes.values())):
        ov[k].name, ov[k].value = name, int(value)
    return ov, names


class Spec:
    """A loaded spec (docs/spec.md): load(path, sizes={"N": 4096}), or loads(text, source)
    from memory (no file: path is None)."""

    @classmethod
    def from_text(cls, text: Union[str, bytes], source: Union[str, bytes, None] = None,
                  sizes: Optional[Dict[str, int]] = None, name: Optional[str] = None,
                  base_dir: Optional[str] = None) -> "Spec":
        """The spec whose JSON is text (str or bytes) and whose kernel source is source
        (str or bytes; None: the spec's kernel.source, else kernel.file read against
        base_dir). Errors name `name` ("<string>" by default) with line and column."""
        self = cls.__new__(cls)
        self.path = None
        self.sizes = dict(sizes or {})
        raw = text.encode() if isinstance(text, str) else bytes(text)
        src = source.encode() if isinstance(source, str) else source
        ov, names = _overrides(self.sizes)
        err = _lib.Error()
        handle = ctypes.c_void_p()
        opts = _lib.SpecBufferOpts(
            src, len(src) if src is not None else 0, name.encode() if name else None,
            os.fspath(base_dir).encode() if base_dir is not None else None, ov, len(names))
        _check(lib.ht_spec_load_buffer(raw, len(raw), ctypes.byref(opts), ctypes.byref(handle),
                                       ctypes.byref(err)), err)
        self._h = handle
        self.doc = json.loads(raw)
        return self

    def __init__(self, path: str, sizes: Optional[Dict[str, int]] = None) -> None:
        self.path = os.path.abspath(str(path))
        self.sizes = dict(sizes or {})
        ov, names = _overrides(self.sizes)
        err = _lib.Error()
        handle = ctypes.c_void_p()
        # The library reads the file first: a missing file or bad JSON is its HetuneError
        # (file, line, column, status 2), not Python's own exception.
        _check(lib.ht_spec_load(self.path.encode(), ov, len(names), ctypes.byref(handle),
                                ctypes.byref(err)), err)
        self._h = handle
        with open(self.path) as f:
            self.doc = json.load(f)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h and h.value and lib is not None:
            lib.ht_spec_free(h)
            self._h = None

    def close(self) -> None:
        self.__del__()

    def __repr__(self) -> str:
        where = "path=%r" % self.path if self.path else "from memory"
        return "Spec(%r, %s, params=%r, sizes=%r)" % (self.name, where, self.params,
                                                       self.sizes)

    def __enter__(self) -> "Spec":
        return self

    def __exit__(self, *exc):
        self.close()

    def _isolate(self, isolate):
        # A spec from memory has no file for the isolated worker to load again.
        if self.path is None and isolate == "auto":
            isolate = "off"
        return _lib.ISOLATE[isolate]

    @property
    def name(self) -> Optional[str]:
        return self.doc.get("name")

    @property
    def params(self) -> List[str]:
        return list(self.doc.get("params", {}))

    def _config(self, config):
        assign = ["%s=%d" % (k, int(v)) for k, v in dict(config).items()]
        arr = (ctypes.c_char_p * max(1, len(assign)))(*[a.encode() for a in assign])
        vals = (ctypes.c_int64 * _lib.HT_STORE_MAX_PARAMS)()
        err = _lib.Error()
        _check(lib.ht_spec_config_from_assignments(self._h, arr, len(assign), vals,
                                                   ctypes.byref(err)), err)
        return vals

    # the design space (`hetune space`)
    def space(self, device: DeviceRef = None, eq3: str = "product", solver: str = "native",
              configs: bool = False) -> Dict[str, Any]:
        """The space on each device (None: all) as `hetune space --json [--list]` writes
        it: a dict with spec, solver, eq3 and devices, each with unpruned, platform and
        pruned counts (and params and configs when configs)."""
        doc = None
        for i in _device_indices(device):
            out = _lib.opaque()
            err = _lib.Error()
            try:
                _check(lib.ht_workflow_space_solve(self._h, _dev(i), _lib.EQ3[eq3],
                                                   solver.encode(), int(configs), out,
                                                   ctypes.byref(err)), err)
                shown = _lib.PresentSpace(self._h, solver.encode(), _lib.EQ3[eq3],
                                          ctypes.cast(out, ctypes.c_void_p), 1, int(configs), 0)
                one = _json_call(lib.ht_present_space_json, ctypes.byref(shown))
            finally:
                lib.ht_workflow_space_destroy(out)
            if doc is None:
                doc = one
            else:
                doc["devices"].extend(one["devices"])
        return doc

    def count(self, device: DeviceRef = 0, eq3: str = "product") -> int:
        """The pruned space's size on one device (unpruned and platform in space())."""
        return self.space(_one_device(device), eq3)["devices"][0]["pruned"]

    def configs(self, device: DeviceRef = 0, eq3: str = "product") -> List[Dict[str, int]]:
        """The pruned space's configurations on one device, as dicts, sorted."""
        d = self.space(_one_device(device), eq3, configs=True)["devices"][0]
        return [dict(zip(d["params"], c)) for c in d["configs"]]

    # one evaluation (`hetune eval`)
    def eval(self, config: Dict[str, int], device: DeviceRef = 0, verify: bool = True,
             cache: bool = True, isolate: str = "auto", outputs: bool = False) -> Dict[str, Any]:
        """Builds, runs, times and verifies config (a dict; parameters with one value may be
        left out) on one device. Returns the dict `hetune eval --json` prints (status,
        seconds, verified, ...); with outputs, its "outputs" maps each write and readwrite
        buffer to a numpy array of its contents. A configuration that fails is not an
        exception: its status says so."""
        i = _one_device(device)
        vals = self._config(config)
        opts = _lib.ExecOpts()
        lib.ht_exec_opts_init(ctypes.byref(opts))
        opts.no_verify = int(not verify)
        opts.no_cache = int(not cache)
        opts.isolate = self._isolate(isolate)
        err = _lib.Error()
        sess = ctypes.c_void_p()
        _check(lib.ht_session_create(self._h, _dev(i), ctypes.byref(opts), ctypes.byref(sess),
                                     ctypes.byref(err)), err)
        res = _lib.opaque()
        try:
            eval_err = _lib.Error()
            lib.ht_session_eval(sess, vals, res, ctypes.byref(eval_err))
            pe = _lib.PresentEval(self._h, _dev(i), ctypes.cast(vals, ctypes.POINTER(ctypes.c_int64)),
                                  ctypes.cast(res, ctypes.c_void_p),
                                  ctypes.pointer(eval_err), None)
            doc = _json_call(lib.ht_present_eval_json, ctypes.byref(pe))
            if outputs:
                doc["outputs"] = self._dump(sess)
        finally:
            lib.ht_eval_result_destroy(res)
            lib.ht_session_free(sess)
        return doc

    def _dump(self, sess):
        import numpy as np
        with tempfile.TemporaryDirectory(prefix="hetune-py-") as d:
            err = _lib.Error()
            _check(lib.ht_session_dump(sess, d.encode(), ctypes.byref(err)), err)
            out = {}
            for a in self.doc.get("args", []):
                f = os.path.join(d, a["name"] + ".bin")
                if "shape" in a and os.path.exists(f):
                    out[a["name"]] = np.fromfile(f, dtype=_DTYPES[a["type"]])
            return out

    # tuning (`hetune tune`)
    def tune(self, device: DeviceRef = None, strategy: Optional[str] = None,
             budget: int = 0, time_limit: float = 0.0, seed: int = 0,
             db: Optional[str] = None, fresh: bool = False,
             cut_factor: Optional[float] = None, eq3: str = "product", verify: bool = True,
             cache: bool = True, isolate: str = "auto", evaluations: bool = False,
             progress: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
        """Tunes on each device (None: all) in turn, storing every evaluation in the
        database db (default ./hetune.db; ":memory:" keeps them in memory for this call
        alone, no file written, so ask for evaluations to see them). Returns the dict `hetune tune --json` prints
        (devices, each with space, evaluated, best {config, seconds}, ...); strategy None
        picks as hetune tune does (bayes for a budgeted run, else exhaustive); with
        evaluations, each device also gets "evaluations": every evaluation stored for it
        (self.evaluations). progress, when given, is called before the first evaluation
        and after each with a dict: device, space, done, total, from_db, cut, failed,
        status (the HT_E... name of the evaluation just made, None in the first call),
        best_s (None while none), elapsed_s, eta_s (None when unknown) and reference (1 as
        the reference step starts, 2 when it is done, else 0). An exception it raises
        stops nothing: it is raised again once the tune returns."""
        db = _db_path(db)
        opts = _lib.TuneOpts()
        lib.ht_tune_opts_init(ctypes.byref(opts))
        opts.strategy = strategy.encode() if strategy else None  # None: automatic
        opts.budget = int(budget)
        opts.time_limit_s = float(time_limit)
        opts.seed = int(seed)
        if cut_factor is not None:
            opts.cut_factor = float(cut_factor)
        opts.fresh = int(fresh)
        opts.eq3 = _lib.EQ3[eq3]
        opts.exec.no_verify = int(not verify)
        opts.exec.no_cache = int(not cache)
        opts.exec.isolate = self._isolate(isolate)
        raised: List[BaseException] = []

        def report(pp, _user):
            if raised:
                return
            p = pp.contents
            try:
                progress({
                    "device": p.dev.contents.name.decode("utf-8", "replace") if p.dev else None,
                    "space": p.space, "done": p.done, "total": p.total,
                    "from_db": p.from_db, "cut": p.cut, "failed": p.failed,
                    "status": lib.ht_err_name(p.status).decode() if p.config else None,
                    "best_s": p.best_s if p.best_s >= 0 else None,
                    "elapsed_s": p.elapsed_s, "eta_s": p.eta_s if p.eta_s >= 0 else None,
                    "reference": p.reference})
            except BaseException as e:  # noqa: B036 (raised again after the tune)
                raised.append(e)

        cb = _lib.PROGRESS_CB(report) if progress else None
        if cb is not None:
            opts.progress = ctypes.cast(cb, ctypes.c_void_p).value
        err = _lib.Error()
        store = ctypes.c_void_p()
        problem = ctypes.c_int64()
        _check(lib.ht_workflow_open(db.encode(), None, None, self._h, ctypes.byref(store),
                                    ctypes.byref(problem), ctypes.byref(err)), err)
        sink = _lib.TuneSink()
        lib.ht_tune_sink_store(ctypes.byref(sink), store)
        doc = None
        try:
            for i in _device_indices(device):
                res = _lib.opaque()
                err = _lib.Error()
                _check(lib.ht_tune_device(self._h, _dev(i), ctypes.byref(sink),
                                          ctypes.byref(opts), res, ctypes.byref(err)), err)
                devs = (ctypes.POINTER(_lib.DeviceInfo) * 1)(_dev(i))
                shown = _lib.PresentTune(self._h, db.encode(), ctypes.pointer(opts),
                                         ctypes.cast(devs, ctypes.c_void_p),
                                         ctypes.cast(res, ctypes.c_void_p), 1, 0)
                one = _json_call(lib.ht_present_tune_json, ctypes.byref(shown))
                if evaluations:
                    one["devices"][0]["evaluations"] = _stored_evals(store, problem.value, i)
                if doc is None:
                    doc = one
                else:
                    doc["devices"].extend(one["devices"])
        finally:
            lib.ht_store_close(store)
            cb = None  # kept alive until the library is done with it
        if raised:
            raise raised[0]
        return doc

    def evaluations(self, device: DeviceRef = 0, db: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every evaluation the database db holds of this spec's problem (kernel and sizes)
        on one device, in the order stored: dicts with config (a dict), status, reason,
        seconds, min_seconds, build_seconds, verified and runs."""
        db = _db_path(db)
        i = _one_device(device)
        err = _lib.Error()
        store = ctypes.c_void_p()
        problem = ctypes.c_int64()
        _check(lib.ht_workflow_open(db.encode(), None, None, self._h, ctypes.byref(store),
                                    ctypes.byref(problem), ctypes.byref(err)), err)
        try:
            return _stored_evals(store, problem.value, i)
        finally:
            lib.ht_store_close(store)

    # co-execution (`hetune split`)
    def split(self, device: DeviceRef = None, db: Optional[str] = None) -> Dict[str, Any]:
        """Co-executes on the devices (None: all) at their tuned configurations (tuning
        those the database has none of), as `hetune split` does with its defaults (the
        static scheduler on dimension 0, split or the fastest alone, verified and stored).
        Returns the dict `hetune split --json` prints."""
        db = _db_path(db)
        idx = _device_indices(device)
        dbb = db.encode()
        opts = _lib.opaque()
        lib.ht_workflow_split_opts_init(opts)
        # struct ht_workflow_split_opts begins with const char *db
        ctypes.c_void_p.from_buffer(opts, 0).value = ctypes.cast(ctypes.c_char_p(dbb),
                                                                 ctypes.c_void_p).value
        devs = (ctypes.POINTER(_lib.DeviceInfo) * len(idx))(*[_dev(i) for i in idx])
        out = _lib.opaque()
        err = _lib.Error()
        try:
            _check(lib.ht_workflow_split(self._h, devs, len(idx), opts, out,
                                         ctypes.byref(err)), err)
            return _json_call(lib.ht_present_split_json, self._h, opts, out)
        finally:
            lib.ht_workflow_split_result_destroy(out)
            dbb = None  # kept alive until here: opts points into it


def load(path: str, sizes: Optional[Dict[str, int]] = None) -> Spec:
    """Loads the spec at path (docs/spec.md), sizes overriding its problem sizes."""
    return Spec(path, sizes)


def loads(text: Union[str, bytes], source: Union[str, bytes, None] = None,
          sizes: Optional[Dict[str, int]] = None, name: Optional[str] = None,
          base_dir: Optional[str] = None) -> Spec:
    """Loads a spec from memory: text is its JSON, source its kernel's OpenCL C (None: the
    spec's "kernel": {"source": ...}, else kernel.file against base_dir). See
    Spec.from_text."""
    return Spec.from_text(text, source, sizes, name, base_dir)
