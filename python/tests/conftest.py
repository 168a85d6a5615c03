import os

import pytest

SOURCE = os.environ.get("HETUNE_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
VECADD = os.path.join(SOURCE, "examples", "vecadd", "spec.json")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HETUNE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def hetune():
    import hetune
    try:
        if not hetune.devices():
            pytest.skip("no OpenCL device")
    except hetune.HetuneError as e:
        if e.name == "HT_ENOPLATFORM":
            pytest.skip("no OpenCL platform")
        raise
    return hetune
