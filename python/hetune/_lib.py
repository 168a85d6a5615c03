"""Loading libhetune with ctypes, and the few C structs mirrored here.

Most results come back as the JSON documents the library writes for the CLI's --json
(include/hetune/present.h), so that only plain-data structs are mirrored: ht_error,
ht_device_info, ht_platform, ht_exec_opts, ht_tune_opts, ht_stored_eval,
ht_spec_buffer_opts, ht_present_space and ht_present_tune. Result structs
the library fills and reads back itself (ht_tune_result, ht_eval_result, ...) are passed as
zeroed opaque buffers far larger than they are (OPAQUE_BYTES). tests/test_layout.py checks
the mirrors that follow their C struct field for field (its MIRRORS) against the C
compiler when there is one.
"""

import ctypes
import ctypes.util
import glob
import os

HT_STORE_MAX_PARAMS = 64
HT_STORE_CONFIG_MAX = 1024
HT_STORE_MAX_RUNS = 1000

# Bytes of a zeroed buffer standing for a struct the library fills and reads back: those
# passed so are ht_workflow_space, ht_eval_result, ht_tune_result, ht_workflow_split_opts and
# ht_workflow_split_result, the largest (8728 bytes on x86-64 since the run times of
# ht_coexec_result and ht_eval_result are arrays they own). 40 KiB: tests/test_hetune.py
# checks that each fits four times over (8728 * 4 = 34912), and 64 KiB was more than that
# needs.
OPAQUE_BYTES = 40 << 10

EQ3 = {"product": 0, "sum": 1, "off": 2}
ISOLATE = {"auto": 0, "off": 1, "on": 2}


class Error(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("cl_status", ctypes.c_int),
        ("line", ctypes.c_int),
        ("column", ctypes.c_int),
        ("file", ctypes.c_char * 512),
        ("field", ctypes.c_char * 256),
        ("text", ctypes.c_char * 2048),
    ]


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("index", ctypes.c_size_t),
        ("platform_index", ctypes.c_size_t),
        ("platform", ctypes.c_char * 256),
        ("platform_version", ctypes.c_char * 256),
        ("name", ctypes.c_char * 256),
        ("vendor", ctypes.c_char * 256),
        ("type", ctypes.c_char * 32),
        ("is_cpu", ctypes.c_int),
        ("is_gpu", ctypes.c_int),
        ("version", ctypes.c_char * 256),
        ("driver_version", ctypes.c_char * 256),
        ("compute_units", ctypes.c_uint32),
        ("max_work_group_size", ctypes.c_uint64),
        ("max_work_item_dims", ctypes.c_uint32),
        ("max_work_item_sizes", ctypes.c_uint64 * 3),
        ("local_mem_size", ctypes.c_uint64),
        ("global_mem_size", ctypes.c_uint64),
        ("max_mem_alloc_size", ctypes.c_uint64),
        ("profiling", ctypes.c_int),
        ("host_unified", ctypes.c_int),
        ("ordinal", ctypes.c_uint32),
        ("cl_platform", ctypes.c_void_p),
        ("cl_device", ctypes.c_void_p),
    ]


class Platform(ctypes.Structure):
    _fields_ = [("count", ctypes.c_size_t), ("devices", ctypes.POINTER(DeviceInfo))]


class ExecOpts(ctypes.Structure):
    _fields_ = [
        ("data_path", ctypes.c_int),
        ("foreign_up", ctypes.c_int),
        ("foreign_down", ctypes.c_int),
        ("stage_bytes", ctypes.c_size_t),
        ("stage_threads", ctypes.c_uint),
        ("no_cache", ctypes.c_int),
        ("cache_dir", ctypes.c_char_p),
        ("no_verify", ctypes.c_int),
        ("eq3", ctypes.c_int),
        ("isolate", ctypes.c_int),
        ("timeout_s", ctypes.c_double),
        ("worker", ctypes.c_char_p),
        ("stop", ctypes.c_void_p),
    ]


class TuneOpts(ctypes.Structure):
    _fields_ = [
        ("strategy", ctypes.c_char_p),
        ("budget", ctypes.c_size_t),
        ("time_limit_s", ctypes.c_double),
        ("seed", ctypes.c_uint64),
        ("cut_factor", ctypes.c_double),
        ("fresh", ctypes.c_int),
        ("eq3", ctypes.c_int),
        ("exec", ExecOpts),
        ("search", ctypes.c_void_p),
        ("progress", ctypes.c_void_p),
        ("progress_user", ctypes.c_void_p),
        ("on_wait", ctypes.c_void_p),
        ("wait_user", ctypes.c_void_p),
        ("on_device_wait", ctypes.c_void_p),
        ("stop", ctypes.c_void_p),
        ("retry_failed", ctypes.c_int),
        ("jobs", ctypes.c_uint),
        ("replay", ctypes.c_void_p),
    ]


class TuneSink(ctypes.Structure):
    """struct ht_tune_sink (include/hetune/tune.h): where a tune's results go."""
    _fields_ = [
        ("ops", ctypes.c_void_p),
        ("user", ctypes.c_void_p),
    ]


class PresentTune(ctypes.Structure):
    """struct ht_present_tune (include/hetune/present.h)."""
    _fields_ = [
        ("spec", ctypes.c_void_p),
        ("db", ctypes.c_char_p),
        ("opts", ctypes.POINTER(TuneOpts)),
        ("devs", ctypes.c_void_p),
        ("results", ctypes.c_void_p),
        ("n", ctypes.c_size_t),
        ("interrupted", ctypes.c_int),
    ]


class StoredEval(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_int64),
        ("problem_id", ctypes.c_int64),
        ("device_id", ctypes.c_int64),
        ("config", ctypes.c_char * HT_STORE_CONFIG_MAX),
        ("nvalues", ctypes.c_size_t),
        ("values", ctypes.c_int64 * HT_STORE_MAX_PARAMS),
        ("status", ctypes.c_char * 16),
        ("reason", ctypes.c_char * 1024),
        ("seconds", ctypes.c_double),
        ("min_seconds", ctypes.c_double),
        ("write_seconds", ctypes.c_double),
        ("read_seconds", ctypes.c_double),
        ("build_seconds", ctypes.c_double),
        ("cache_hit", ctypes.c_int),
        ("verified", ctypes.c_int),
        ("max_abs_err", ctypes.c_double),
        ("max_rel_err", ctypes.c_double),
        ("mismatches", ctypes.c_uint64),
        ("ndims", ctypes.c_uint),
        ("global_", ctypes.c_uint64 * 3),
        ("local", ctypes.c_uint64 * 3),
        ("strategy", ctypes.c_char * 64),
        ("seed", ctypes.c_uint64),
        ("created_at", ctypes.c_char * 32),
        ("spec_hash", ctypes.c_char * 17),
        ("nruns", ctypes.c_uint),
        ("runs", ctypes.c_double * HT_STORE_MAX_RUNS),
    ]


class SizeOverride(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


class PresentSpace(ctypes.Structure):
    """struct ht_present_space (include/hetune/present.h)."""
    _fields_ = [
        ("spec", ctypes.c_void_p),
        ("solver", ctypes.c_char_p),
        ("eq3", ctypes.c_int),
        ("spaces", ctypes.c_void_p),
        ("n", ctypes.c_size_t),
        ("list", ctypes.c_int),
        ("format", ctypes.c_int),
    ]


class SpecBufferOpts(ctypes.Structure):
    """struct ht_spec_buffer_opts (include/hetune/spec.h)."""
    _fields_ = [
        ("source", ctypes.c_char_p),
        ("source_len", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("base_dir", ctypes.c_char_p),
        ("ov", ctypes.POINTER(SizeOverride)),
        ("nov", ctypes.c_size_t),
    ]


class PresentEval(ctypes.Structure):
    """struct ht_present_eval (include/hetune/present.h)."""
    _fields_ = [
        ("spec", ctypes.c_void_p),
        ("dev", ctypes.POINTER(DeviceInfo)),
        ("config", ctypes.POINTER(ctypes.c_int64)),
        ("res", ctypes.c_void_p),
        ("eval_err", ctypes.POINTER(Error)),
        ("load", ctypes.c_void_p),
    ]


class TuneProgress(ctypes.Structure):
    """struct ht_tune_progress (include/hetune/tune.h), read in the progress callback."""
    _fields_ = [
        ("dev", ctypes.POINTER(DeviceInfo)),
        ("space", ctypes.c_size_t),
        ("space_text", ctypes.c_char * 48),  # HT_SPACE_COUNT_TEXT
        ("from_db", ctypes.c_size_t),
        ("done", ctypes.c_size_t),
        ("total", ctypes.c_size_t),
        ("cut", ctypes.c_size_t),
        ("failed", ctypes.c_size_t),
        ("config", ctypes.POINTER(ctypes.c_int64)),
        ("status", ctypes.c_int),
        ("best", ctypes.POINTER(ctypes.c_int64)),
        ("best_s", ctypes.c_double),
        ("elapsed_s", ctypes.c_double),
        ("eta_s", ctypes.c_double),
        ("building", ctypes.c_size_t),
        ("built", ctypes.c_size_t),
        ("reference", ctypes.c_int),
        ("reference_s", ctypes.c_double),
        ("reference_computed", ctypes.c_int),
    ]


PROGRESS_CB = ctypes.CFUNCTYPE(None, ctypes.POINTER(TuneProgress), ctypes.c_void_p)

EVAL_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(StoredEval), ctypes.c_void_p)


def opaque():
    """A zeroed buffer standing for a result struct the library fills."""
    return ctypes.create_string_buffer(OPAQUE_BYTES)


def _candidates():
    env = os.environ.get("HETUNE_LIB")
    if env:
        yield env
        return
    binary = os.environ.get("HETUNE")
    if binary:
        yield os.path.join(os.path.dirname(os.path.abspath(binary)), "libhetune.so")
    here = os.path.dirname(os.path.abspath(__file__))
    # The library pip built and bundled into the package (python/CMakeLists.txt).
    for pattern in ("lib*/libhetune.so", "lib/*/libhetune.so"):
        for found in sorted(glob.glob(os.path.join(here, "_bundle", pattern))):
            yield found
    # The source tree's build folder, when this package runs from python/ in a checkout.
    yield os.path.join(here, "..", "..", "build", "libhetune.so")
    found = ctypes.util.find_library("hetune")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        return lib, path
    raise ImportError(
        "libhetune not found (tried: %s); build it (cmake --build build) or set HETUNE_LIB "
        "to the path of libhetune.so" % (", ".join(tried) or "nothing"))


def _worker_beside(path):
    """The library spawns hetune-worker for isolation, looking beside the running program
    (here the python binary) before the build path compiled into it. A library loaded from a
    build folder has its worker beside it: say so through $HETUNE_WORKER when unset."""
    if os.environ.get("HETUNE_WORKER"):
        return
    real = os.path.realpath(path) if os.sep in path else None
    if real:
        worker = os.path.join(os.path.dirname(real), "hetune-worker")
        if os.access(worker, os.X_OK):
            os.environ["HETUNE_WORKER"] = worker


lib, path = _load()
_worker_beside(path)
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]
libc.free.restype = None

P = ctypes.c_void_p
E = ctypes.POINTER(Error)
S = ctypes.c_char_p
PP = ctypes.POINTER(ctypes.c_void_p)


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_I = ctypes.c_int
_Z = ctypes.c_size_t
_proto("ht_strerror", S, _I)
_proto("ht_err_name", S, _I)
_proto("ht_error_format", _I, E, ctypes.c_char_p, _Z)
_proto("ht_present_exit_status", _I, _I)
_proto("ht_platform_discover", _I, ctypes.POINTER(ctypes.POINTER(Platform)), E)
_proto("ht_platform_free", None, ctypes.POINTER(Platform))
_proto("ht_platform_find", _I, ctypes.POINTER(Platform), S, ctypes.POINTER(_Z), E)
_proto("ht_present_devices_json", _I, ctypes.POINTER(DeviceInfo), _Z, P, P, PP, E)
_proto("ht_spec_load", _I, S, ctypes.POINTER(SizeOverride), _Z, PP, E)
_proto("ht_spec_load_buffer", _I, S, _Z, ctypes.POINTER(SpecBufferOpts), PP, E)
_proto("ht_spec_free", None, P)
_proto("ht_spec_config_from_assignments", _I, P, ctypes.POINTER(S), _Z,
       ctypes.POINTER(ctypes.c_int64), E)
_proto("ht_workflow_space_solve", _I, P, ctypes.POINTER(DeviceInfo), _I, S, _I, P, E)
_proto("ht_present_space_json", _I, ctypes.POINTER(PresentSpace), PP, E)
_proto("ht_workflow_space_destroy", None, P)
_proto("ht_exec_opts_init", None, ctypes.POINTER(ExecOpts))
_proto("ht_session_create", _I, P, ctypes.POINTER(DeviceInfo), ctypes.POINTER(ExecOpts), PP, E)
_proto("ht_session_free", None, P)
_proto("ht_session_eval", _I, P, ctypes.POINTER(ctypes.c_int64), P, E)
_proto("ht_eval_result_destroy", None, P)
_proto("ht_session_dump", _I, P, S, E)
_proto("ht_present_eval_json", _I, ctypes.POINTER(PresentEval), PP, E)
_proto("ht_tune_opts_init", None, ctypes.POINTER(TuneOpts))
_proto("ht_store_open", _I, S, PP, E)
_proto("ht_store_close", None, P)
_proto("ht_store_device_id", _I, P, ctypes.POINTER(DeviceInfo), ctypes.POINTER(ctypes.c_int64), E)
_proto("ht_store_list_evals", _I, P, ctypes.c_int64, ctypes.c_int64, EVAL_CB, P, E)
_proto("ht_workflow_open", _I, S, P, P, P, PP, ctypes.POINTER(ctypes.c_int64), E)
_proto("ht_tune_sink_store", None, ctypes.POINTER(TuneSink), P)
_proto("ht_tune_device", _I, P, ctypes.POINTER(DeviceInfo), ctypes.POINTER(TuneSink),
       ctypes.POINTER(TuneOpts), P, E)
_proto("ht_present_tune_json", _I, ctypes.POINTER(PresentTune), PP, E)
_proto("ht_kt_expression", _I, S, ctypes.POINTER(S), _Z, PP, E)
_proto("ht_workflow_split_opts_init", None, P)
_proto("ht_workflow_split", _I, P, ctypes.POINTER(ctypes.POINTER(DeviceInfo)), _Z, P, P, E)
_proto("ht_present_split_json", _I, P, P, P, PP, E)
_proto("ht_workflow_split_result_destroy", None, P)
# The runtime (runtime.h). Its options are set by name into a buffer of
# ht_runtime_opts_size() bytes, so that struct ht_runtime_opts is not mirrored here.
_proto("ht_runtime_opts_size", _Z)
_proto("ht_runtime_opts_init", None, P)
_proto("ht_runtime_opts_set", _I, P, S, S, E)
_proto("ht_runtime_open_spec", _I, P, P, PP, E)
_proto("ht_runtime_close", None, P)
_proto("ht_runtime_arg_bytes", _I, P, S, ctypes.POINTER(_Z), E)
_proto("ht_runtime_bind", _I, P, S, P, _Z, E)
_proto("ht_runtime_launch", _I, P, E)
_proto("ht_runtime_info_json", _I, P, PP, E)


def take_text(ptr):
    """The text of a malloc'd char * the library handed over, freed."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        libc.free(ptr.value)
