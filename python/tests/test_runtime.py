"""hetune.Runtime on PoCL: opened from a spec file and from strings (no file), numpy arrays
bound without a copy, launched in a loop with new inputs, every output element compared
with numpy; info, repr, the refusals (dtype, contiguity, size, read-only output, unknown
argument) leaving the argument unbound, close twice and the context manager."""
import gc
import json
import os

import numpy as np
import pytest

N = 4096

SPEC = {
    "name": "saxpy_rt",
    "kernel": {"name": "saxpy"},
    "sizes": {"N": N},
    "ndrange": {"global": ["N"], "local": ["WG"]},
    "params": {"WG": {"values": [16, 64]}},
    "args": [
        {"name": "n", "type": "uint", "value": "N"},
        {"name": "y", "type": "float", "shape": ["N"], "access": "write", "index": ["gx"]},
        {"name": "x", "type": "float", "shape": ["N"], "access": "read", "index": ["gx"]},
        {"name": "z", "type": "float", "shape": ["N"], "access": "read", "index": ["gx"]},
        {"name": "k", "type": "int", "shape": ["N"], "access": "readwrite", "index": ["gx"]},
    ],
    "verify": {"reference": {"WG": 16}, "rtol": 0, "atol": 0},
    "timing": {"repeats": 2, "keep_best": 1},
}

KERNEL = """
__kernel void saxpy(const unsigned int n, __global float *y, __global const float *x,
                    __global const float *z, __global int *k)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        y[i] = 2.5f * x[i] + z[i];
        k[i] = k[i] * 3 + (int)i;
    }
}
"""


def expect(x, z, k):
    return (np.float32(2.5) * x + z).astype(np.float32), k * 3 + np.arange(N, dtype=np.int32)


def run_loop(rt, rounds=4):
    rng = np.random.default_rng(26)
    y = np.full(N, -7.0, dtype=np.float32)
    x = np.empty(N, dtype=np.float32)
    z = rt.empty("z")
    k = np.zeros(N, dtype=np.int32)
    for name, a in (("y", y), ("x", x), ("z", z), ("k", k)):
        rt.bind(name, a)
    for r in range(rounds):
        # new inputs in the same arrays: the runtime reads them in place
        # quarters: 2.5 * x + z is exact in float32, fused or not
        x[:] = rng.integers(-4000, 4000, N) / 4.0
        z[:] = rng.integers(-50, 50, N).astype(np.float32)
        k[:] = rng.integers(-1000, 1000, N, dtype=np.int32)
        want_y, want_k = expect(x, z, k.copy())
        y[:] = -7.0
        rt.launch()
        bad = np.nonzero(y != want_y)[0]
        assert bad.size == 0, "round %d: y[%d] = %r, expected %r" % (
            r, bad[0], y[bad[0]], want_y[bad[0]])
        bad = np.nonzero(k != want_k)[0]
        assert bad.size == 0, "round %d: k[%d] = %r, expected %r" % (
            r, bad[0], k[bad[0]], want_k[bad[0]])
    return rounds


@pytest.fixture
def files(tmp_path):
    (tmp_path / "saxpy.cl").write_text(KERNEL)
    spec = dict(SPEC, kernel={"name": "saxpy", "file": "saxpy.cl"})
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec, indent=2))
    return path, tmp_path / "hetune.db"


def test_from_file_split(hetune, files):
    path, db = files
    with hetune.Runtime(path, db=db, tune=True, mode="split", measure_repeats=1) as rt:
        n = run_loop(rt)
        info = rt.info()
        assert info["spec"] == "saxpy_rt"
        assert info["launches"] == n and info["failed_launches"] == 0
        assert info["last_status"] is None and info["last_wall_s"] > 0
        assert info["decision"]
        # mode SPLIT watches nothing: no switch, no recheck
        assert info["rechecks"] == 0 and info["switches"] == 0 and info["switch_s"] == 0
        devs = info["devices"]
        assert len(devs) == len(hetune.devices())
        assert abs(sum(d["share"] for d in devs) - 1.0) < 1e-3
        assert all(d["config"].startswith("WG=") and d["tuned_s"] > 0 for d in devs)
        if len(devs) > 1:
            assert info["split"] and all(d["used"] for d in devs)
        r = repr(rt)
        assert "saxpy_rt" in r and "%d launches" % n in r
        rt.launch(times=3)
        assert rt.info()["launches"] == n + 3
        assert set(rt.bound()) == {"x", "y", "z", "k"}
    assert rt.closed and "closed" in repr(rt)
    rt.close()  # twice: nothing happens
    with pytest.raises(ValueError):
        rt.launch()


def test_from_strings_no_file(hetune, tmp_path, monkeypatch):
    # tuned from memory (in this process: no file for the worker), database in tmp_path;
    # the working directory holds nothing the runtime could read
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "mem.db"
    for mode in ("auto", "alone"):
        rt = hetune.Runtime.from_strings(json.dumps(SPEC), KERNEL, db=db, tune=True,
                                         mode=mode, measure_repeats=1)
        try:
            assert rt.spec.path is None
            run_loop(rt, rounds=3)
            info = rt.info()
            assert info["launches"] == 3
            if mode == "alone":
                assert not info["split"]
                assert sum(d["used"] for d in info["devices"]) == 1
        finally:
            rt.close()
    assert sorted(os.listdir(tmp_path)) == sorted(p for p in os.listdir(tmp_path)
                                                  if p.startswith("mem.db") or p == "cache")


def test_kernel_source_inline_and_sizes(hetune, tmp_path):
    spec = dict(SPEC, kernel={"name": "saxpy", "source": KERNEL})
    s = hetune.loads(json.dumps(spec), sizes={"N": 2048})
    with hetune.Runtime(s, db=tmp_path / "h.db", tune=True, mode="alone") as rt:
        assert rt.arg_bytes("y") == 2048 * 4
        assert rt.empty("k").dtype == np.int32 and rt.empty("k").size == 2048
    with pytest.raises(ValueError):
        hetune.Runtime(s, sizes={"N": 8})


def test_paths_and_fallback_options(hetune, tmp_path):
    # the options reach the library by name: the foreign paths and the watch's ratio are
    # taken, and a value the library refuses is an error naming the option
    spec = dict(SPEC, kernel={"name": "saxpy", "source": KERNEL})
    s = hetune.loads(json.dumps(spec))
    with hetune.Runtime(s, db=tmp_path / "p.db", tune=True, mode="alone", foreign_up="pin",
                        foreign_down="stage", fallback_ratio=-1, cpu_units=1) as rt:
        run_loop(rt, rounds=2)
    with pytest.raises(hetune.HetuneError) as e:
        hetune.Runtime(s, db=tmp_path / "p.db", cpu_units=-1)
    assert "cpu_units" in str(e.value)
    with pytest.raises(hetune.HetuneError) as e:
        hetune.Runtime(s, db=tmp_path / "p.db", foreign_up="mmap")
    assert "foreign_up" in str(e.value) and e.value.status == 2
    with pytest.raises(hetune.HetuneError) as e:
        hetune.Runtime(s, db=tmp_path / "p.db", fallback_ratio=float("inf"))
    assert "fallback_ratio" in str(e.value)
    with pytest.raises(hetune.HetuneError) as e:
        hetune.Runtime(s, db=tmp_path / "p.db", nodes="cluster")
    assert "nodes" in str(e.value) and "local or mpi" in str(e.value)
    # across nodes, tune=True is refused before MPI starts, naming the option
    with pytest.raises(hetune.HetuneError) as e:
        hetune.Runtime(s, db=tmp_path / "p.db", tune=True, nodes="mpi")
    assert "does not tune" in str(e.value)


def test_errors_from_strings(hetune):
    with pytest.raises(hetune.HetuneError) as e:
        hetune.loads('{\n  "name": "x",\n  oops\n}', KERNEL, name="app-spec")
    assert e.value.file == "app-spec" and e.value.line == 3 and e.value.status == 2
    bad = dict(SPEC, ndrange={"global": ["N +"], "local": ["WG"]})
    with pytest.raises(hetune.HetuneError) as e:
        hetune.loads(json.dumps(bad, indent=2), KERNEL)
    assert e.value.file == "<string>" and e.value.name == "HT_EEXPR" and e.value.line > 1


def test_bind_refusals(hetune, files):
    path, db = files
    rt = hetune.Runtime(path, db=db, tune=True, mode="alone")
    y, x, z, k = (rt.empty(n) for n in ("y", "x", "z", "k"))
    for name, a in (("y", y), ("x", x), ("z", z), ("k", k)):
        rt.bind(name, a)
    x[:] = 1
    z[:] = 2
    k[:] = 0
    rt.launch()
    assert np.all(y == 4.5)

    refusals = [
        ("x", np.zeros(N, dtype=np.float64), TypeError, "float32"),
        ("x", np.zeros(2 * N, dtype=np.float32)[::2], ValueError, "C-contiguous"),
        ("x", [0.0] * N, TypeError, "numpy array"),
    ]
    ro = np.zeros(N, dtype=np.float32)
    ro.flags.writeable = False
    refusals.append(("y", ro, ValueError, "read-only"))
    for name, arr, exc, words in refusals:
        with pytest.raises(exc) as e:
            rt.bind(name, arr)
        assert words in str(e.value)
        # the refused argument is unbound: a launch names it instead of using the old array
        with pytest.raises(hetune.HetuneError) as e:
            rt.launch()
        assert "'%s'" % name in e.value.text and "not bound" in e.value.text
        rt.bind(name, {"x": x, "y": y}[name])
    with pytest.raises(hetune.HetuneError) as e:
        rt.bind("x", np.zeros(N - 1, dtype=np.float32))
    assert e.value.name == "HT_EINVAL" and "'x'" in e.value.text
    rt.bind("x", x)
    with pytest.raises(hetune.HetuneError) as e:
        rt.bind("nope", x)
    assert "no argument 'nope'" in e.value.text
    with pytest.raises(hetune.HetuneError):
        rt.bind("n", x)  # a scalar
    # the bound arrays are kept alive by the runtime, not by the caller
    del x
    gc.collect()
    rt.launch()
    assert np.all(y == rt.bound()["x"] * 2.5 + z)
    rt.close()
    rt.close()


def test_spec_from_strings_elsewhere(hetune):
    # A spec from memory has no path: the documents say null, evaluation runs in this
    # process (no file for the worker to load).
    s = hetune.loads(json.dumps(SPEC), KERNEL)
    assert s.path is None and s.count(0) >= 1
    assert s.space(0)["spec_path"] is None
    ev = s.eval({"WG": 16}, device=0)
    assert ev["status"] == "ok" and ev["verification"]["verified"], ev
