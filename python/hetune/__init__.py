"""hetune: Python access to libhetune, the OpenCL autotuner (ctypes over the shared library).

    import hetune
    hetune.devices()                          # the OpenCL devices and their limits
    spec = hetune.load("spec.json", sizes={"N": 4096})
    spec.count(device=0); spec.configs(device=0)
    spec.eval({"WG": 64, "EPT": 2}, device=0)
    spec.tune(device=0, db="hetune.db"); spec.evaluations(0, db="hetune.db")
    spec.split(db="hetune.db")
    hetune.tune(kernel_source, kernel_name, problem_size, args, tune_params,
                restrictions=[...])           # Kernel Tuner's way: the spec is written for you
    results, env = hetune.tune_kernel(kernel_name, kernel_source, problem_size, args,
                                      tune_params, ...)  # kernel_tuner.tune_kernel's signature
    spec = hetune.loads(spec_json, kernel_source)   # from memory: no file
    with hetune.Runtime("spec.json", db="hetune.db", tune=True) as rt:   # or Runtime(spec)
        rt.bind("a", a); rt.bind("b", b)      # numpy arrays, not copied
        for _ in range(100): rt.launch()
        rt.info()["decision"]

The library is found through $HETUNE_LIB, else beside $HETUNE (the hetune binary), else the
one pip built and bundled (hetune/_bundle/lib), else in the source tree's build/ (when run
from a checkout), else by ctypes.util.find_library.
"""

from ._lib import path as library_path
from .core import HetuneError, Spec, devices, load, loads
from .kt import TuneResult, tune, tune_kernel, write_spec
from .runtime import Runtime

__all__ = ["HetuneError", "Runtime", "Spec", "TuneResult", "devices", "library_path", "load",
           "loads", "tune", "tune_kernel", "write_spec"]
__version__ = "0.1.0"
