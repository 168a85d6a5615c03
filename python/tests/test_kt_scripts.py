"""Kernel Tuner scripts run on hetune with only their import line changed (issue 28 item 2):
each tunes as many configurations as its restrictions keep when Python evaluates them over
every combination of its tune_params, as Kernel Tuner does."""
import glob
import itertools
import os
import subprocess
import sys
import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "kt_scripts", "*.py")))
KT_IMPORT = "from kernel_tuner import tune_kernel\n"


def ported(path, folder):
    """The script with its one import line changed, written into folder."""
    with open(path) as f:
        text = f.read()
    assert text.count(KT_IMPORT) == 1, path
    out = os.path.join(folder, os.path.basename(path))
    with open(out, "w") as f:
        f.write(text.replace(KT_IMPORT, "from hetune import tune_kernel\n"))
    return out


def expected_count(path):
    """Configurations of the script's tune_params that its restrictions keep, in Python:
    strings evaluated over the parameters, functions called with a dict of them."""
    mod = types.ModuleType("kt_script")
    mod.__file__ = path
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), mod.__dict__)  # tune() runs only under __main__
    names = list(mod.tune_params)
    rs = mod.restrictions if isinstance(mod.restrictions, list) else [mod.restrictions]
    n = 0
    for combo in itertools.product(*mod.tune_params.values()):
        p = dict(zip(names, combo))
        n += all(r(dict(p)) if callable(r) else eval(r, {}, dict(p)) for r in rs)
    return n


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_script(hetune, tmp_path, script):
    path = ported(script, str(tmp_path))
    want = expected_count(path)
    assert 0 < want < len(list(itertools.product(*_params(path).values())))
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, path], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "valid configurations: %d\n" % want in proc.stdout, (want, proc.stdout)
    # Progress on stderr (the script is not quiet), ending with every evaluation done.
    assert "hetune: vector_add on " in proc.stderr, proc.stderr
    assert "%d/%d evaluated" % (want, want) in proc.stderr, proc.stderr


def _params(path):
    mod = types.ModuleType("kt_script")
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), mod.__dict__)
    return mod.tune_params
