"""The ctypes mirrors of hetune/_lib.py against the C compiler: each mirrored struct's size
and every field's offset as the public headers lay them out. A field the C struct lacks
fails to compile, which fails the test too. Skipped without a C compiler."""
import ctypes
import os
import shutil
import subprocess

import pytest

from hetune import _lib

SOURCE = os.environ.get("HETUNE_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")

# Mirror: the C struct it stands for. ht_device_info, ht_exec_opts, ht_tune_opts and the
# others mirror only a prefix or rename fields: they are not listed. A field whose C name is a
# Python keyword or builtin ends in "_" in the mirror ("global_").
MIRRORS = {
    "StoredEval": "ht_stored_eval",
    "Error": "ht_error",
    "SizeOverride": "ht_size_override",
    "SpecBufferOpts": "ht_spec_buffer_opts",
    "PresentSpace": "ht_present_space",
    "PresentTune": "ht_present_tune",
    "PresentEval": "ht_present_eval",
    "TuneSink": "ht_tune_sink",
}


def test_mirrors_match_the_c_layout(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "hetune.h"',
             "int main(void)", "{"]
    want = []
    for mirror, struct in MIRRORS.items():
        cls = getattr(_lib, mirror)
        lines.append('    printf("%%zu\\n", sizeof(struct %s));' % struct)
        want.append("%s %d" % (struct, ctypes.sizeof(cls)))
        for name, _ in cls._fields_:
            c_name = name[:-1] if name.endswith("_") else name
            lines.append('    printf("%%zu\\n", offsetof(struct %s, %s));' % (struct, c_name))
            want.append("%s.%s %d" % (struct, name, getattr(cls, name).offset))
    lines += ["    return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-DCL_TARGET_OPENCL_VERSION=120",
                    "-I" + os.path.join(SOURCE, "include"), str(src), "-o", str(exe)],
                   check=True)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    labels = [w.rsplit(" ", 1)[0] for w in want]
    assert ["%s %s" % (l, g) for l, g in zip(labels, got)] == want
