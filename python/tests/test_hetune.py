import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import VECADD

KERNEL = """
__kernel void vector_add(__global float *c, __global const float *a,
                         __global const float *b, const int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
"""


def test_devices(hetune):
    devs = hetune.devices()
    d = devs[0]
    assert d["index"] == 0
    for k in ("name", "platform", "type", "compute_units", "max_work_group_size",
              "max_work_item_sizes", "local_mem_size", "max_mem_alloc_size"):
        assert k in d
    assert d["compute_units"] >= 1


def test_worker_found(hetune):
    # the library spawns hetune-worker, which is not beside the python binary
    w = os.environ.get("HETUNE_WORKER")
    assert w and os.access(w, os.X_OK), w


def test_space(hetune):
    s = hetune.load(VECADD, sizes={"N": 4096})
    assert s.params == ["WG", "EPT"]
    n = s.count(0)
    configs = s.configs(0)
    assert n == len(configs) > 0
    assert all(set(c) == {"WG", "EPT"} for c in configs)
    sp = s.space()["devices"][0]
    assert sp["unpruned"] >= sp["platform"] >= sp["pruned"] == n


def test_bad_spec(hetune, tmp_path):
    p = tmp_path / "spec.json"
    p.write_text('{"name": "x"}')
    with pytest.raises(hetune.HetuneError) as e:
        hetune.load(str(p))
    assert e.value.status == 2 and str(p) in str(e.value)
    s = hetune.load(VECADD, sizes={"N": 4096})
    with pytest.raises(hetune.HetuneError) as e:
        s.eval({"WG": 64, "NOPE": 1})
    assert e.value.name == "HT_EINVAL"


def test_bad_spec_file(hetune, tmp_path):
    # invalid JSON and a missing file are the library's errors, as the README says of all
    # errors: not json.JSONDecodeError or FileNotFoundError
    p = tmp_path / "spec.json"
    p.write_text('{"name": "x",\n  "kernel": }\n')
    with pytest.raises(hetune.HetuneError) as e:
        hetune.load(str(p))
    assert e.value.status == 2 and e.value.file == str(p)
    assert (e.value.line, e.value.column) == (2, 13)
    with pytest.raises(hetune.HetuneError) as e:
        hetune.load(str(tmp_path / "missing.json"))
    assert e.value.file == str(tmp_path / "missing.json")


def test_eval(hetune):
    s = hetune.load(VECADD, sizes={"N": 4096})
    r = s.eval({"WG": 64, "EPT": 2}, outputs=True)
    assert r["status"] == "ok" and r["config"] == {"WG": 64, "EPT": 2}
    assert r["kernel"]["mean_best_seconds"] > 0
    a = r["outputs"]["a"]
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.size == 4096
    assert np.isfinite(a).all()
    bad = s.eval({"WG": 3, "EPT": 2})
    assert bad["status"] != "ok"


def test_tune_and_evaluations(hetune, tmp_path):
    db = str(tmp_path / "h.db")
    s = hetune.load(VECADD, sizes={"N": 4096})
    doc = s.tune(device=0, strategy="random", budget=4, db=db, evaluations=True)
    d = doc["devices"][0]
    assert d["evaluated"] == 4 and d["isolated"] is True
    assert d["best"]["seconds"] > 0
    assert len(d["evaluations"]) == 4
    best = min((e for e in d["evaluations"] if e["status"] == "ok" and e["verified"] == 1),
               key=lambda e: e["seconds"])
    assert best["config"] == d["best"]["config"]


def test_tune_in_memory(hetune, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = hetune.load(VECADD, sizes={"N": 4096})
    doc = s.tune(device=0, strategy="random", budget=3, db=":memory:", evaluations=True)
    d = doc["devices"][0]
    assert d["evaluated"] == 3 and len(d["evaluations"]) == 3
    assert {tuple(sorted(e["config"].items())) for e in d["evaluations"]} and d["best"]
    # no database file, neither ./hetune.db nor another (the fixture's binary cache is here)
    assert [f for f in os.listdir(tmp_path) if ".db" in f or ":" in f] == []
    # nothing outlives the call
    again = s.tune(device=0, strategy="random", budget=1, db=":memory:", evaluations=True)
    assert again["devices"][0]["from_db"] == 0


def test_kernel_tuner_style(hetune, tmp_path):
    n = 10000
    a = np.random.randn(n).astype(np.float32)
    b = np.random.randn(n).astype(np.float32)
    c = np.zeros_like(a)
    args = [c, a, b, np.int32(n)]
    tune_params = {"block_size_x": [16, 32, 64, 128, 256]}
    res = hetune.tune(KERNEL, "vector_add", n, args, tune_params,
                      restrictions=["block_size_x >= 32 and block_size_x <= 128"],
                      answer=[a + b, None, None, None], folder=str(tmp_path / "kt"))
    assert os.path.exists(os.path.join(res.folder, "spec.json"))
    assert {e["block_size_x"] for e in res.evaluations} == {32, 64, 128}
    assert all(e["verified"] == 1 for e in res.evaluations if e["status"] == "ok")
    assert res.best["block_size_x"] in (32, 64, 128) and res.best_time > 0
    results, env = res
    assert len(results) == 3 and env["best_config"] == res.best
    # a wrong answer fails verification: no best
    res = hetune.tune(KERNEL, "vector_add", n, args, tune_params,
                      restrictions=["block_size_x == 64"],
                      answer=[a - b, None, None, None], folder=str(tmp_path / "kt2"))
    assert res.best is None
    assert res.evaluations[0]["verified"] == 0
    # in memory: the same evaluations listed, no database file in the folder
    res = hetune.tune(KERNEL, "vector_add", n, args, tune_params,
                      restrictions=["block_size_x >= 32 and block_size_x <= 128"],
                      answer=[a + b, None, None, None], folder=str(tmp_path / "kt3"),
                      db=":memory:")
    assert {e["block_size_x"] for e in res.evaluations} == {32, 64, 128}
    assert not [f for f in os.listdir(res.folder) if ".db" in f or ":" in f]


def test_tune_kernel_as_kernel_tuner(hetune, tmp_path):
    """Kernel Tuner's tune_kernel, argument for argument: kernel_name first, lang=,
    verbose=, quiet=, cache=, strategy_options=; Python's true division and chained
    comparisons in restrictions mean what they mean in Python (96 / 64 > 1)."""
    n = 9600
    a = np.random.randn(n).astype(np.float32)
    b = np.random.randn(n).astype(np.float32)
    c = np.zeros_like(a)
    tune_params = {"block_size_x": [32, 64, 96, 128, 192]}
    cache = str(tmp_path / "vadd_cache.json")
    results, env = hetune.tune_kernel(
        "vector_add", KERNEL, n, [c, a, b, np.int32(n)], tune_params,
        restrictions=["block_size_x / 64 > 1", "32 <= block_size_x <= 128"],
        answer=[a + b, None, None, None], lang="OpenCL", verbose=True, quiet=True,
        cache=cache, strategy="brute_force", strategy_options={"max_fevals": 10})
    assert {r["block_size_x"] for r in results} == {96, 128}, results
    assert env["best_config"]["block_size_x"] in (96, 128)
    assert os.path.exists(cache + ".hetune.db")
    with pytest.raises(ValueError):
        hetune.tune_kernel("vector_add", KERNEL, n, [c, a, b, np.int32(n)], tune_params,
                           lang="CUDA")
    # A function restriction is called over every combination (as Kernel Tuner calls it);
    # what it keeps becomes a constraint, beside the strings of the same list.
    seen = []
    spec = hetune.write_spec(str(tmp_path / "fn"), KERNEL, "vector_add", n,
                             [c, a, b, np.int32(n)], tune_params,
                             restrictions=[lambda p: seen.append(dict(p)) or
                                           p["block_size_x"] != 128, "block_size_x > 32"])
    assert sorted(d["block_size_x"] for d in seen) == tune_params["block_size_x"]
    with hetune.load(spec) as s:
        assert repr(s).startswith("Spec('vector_add', path=")
        assert {cf["block_size_x"] for cf in s.configs(0, eq3="off")} == {64, 96, 192}
    with pytest.raises(hetune.HetuneError, match="true division"):
        hetune.tune_kernel("vector_add", KERNEL, n, [c, a, b, np.int32(n)], tune_params,
                           restrictions=["block_size_x / 64 + 1 > 2"])


def test_split(hetune, tmp_path):
    if len(hetune.devices()) < 2:
        pytest.skip("one device (POCL_DEVICES='pthread basic' gives two)")
    db = str(tmp_path / "h.db")
    s = hetune.load(VECADD, sizes={"N": 65536})
    s.tune(strategy="random", budget=3, db=db)
    doc = s.split(db=db)
    assert "devices" in doc and len(doc["devices"]) >= 1
    assert doc.get("verified", True) is not False


def test_layout(hetune, tmp_path):
    """The mirrored structs match the compiler's layout (skipped without a C compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    import ctypes
    from conftest import SOURCE
    from hetune import _lib
    structs = {"ht_error": _lib.Error, "ht_device_info": _lib.DeviceInfo,
               "ht_platform": _lib.Platform, "ht_exec_opts": _lib.ExecOpts,
               "ht_tune_opts": _lib.TuneOpts, "ht_stored_eval": _lib.StoredEval,
               "ht_tune_progress": _lib.TuneProgress}
    big = ["ht_tune_result", "ht_eval_result", "ht_workflow_space",
           "ht_workflow_split_opts", "ht_workflow_split_result"]
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "hetune.h"',
             'int main(void) {']
    for name, cls in structs.items():
        lines.append('printf("%s %%zu\\n", sizeof(struct %s));' % (name, name))
        for f in cls._fields_:
            cf = "global" if f[0] == "global_" else f[0]
            lines.append('printf("%s.%s %%zu\\n", offsetof(struct %s, %s));'
                         % (name, f[0], name, cf))
    for name in big:
        lines.append('printf("%s %%zu\\n", sizeof(struct %s));' % (name, name))
    lines.append('printf("ht_workflow_split_opts.db %zu\\n", '
                 'offsetof(struct ht_workflow_split_opts, db));')
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-I", os.path.join(SOURCE, "include"), str(src), "-o", str(exe)],
                   check=True)
    got = dict(l.rsplit(" ", 1) for l in subprocess.run(
        [str(exe)], check=True, capture_output=True, text=True).stdout.splitlines())
    for name, cls in structs.items():
        assert int(got[name]) == ctypes.sizeof(cls), name
        for f in cls._fields_:
            assert int(got[name + "." + f[0]]) == getattr(cls, f[0]).offset, (name, f[0])
    for name in big:
        assert int(got[name]) * 4 <= _lib.OPAQUE_BYTES, name
    assert got["ht_workflow_split_opts.db"] == "0"
