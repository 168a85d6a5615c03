"""Writes the seed corpora of fuzz/corpus/ from the tests' own inputs (run from the
repository root: python3 fuzz/seed.py). Seeds are small on purpose: the fuzzer grows its
own corpus elsewhere (make fuzz keeps it under the build tree); what goes in the tree is
the seeds and each crasher found and fixed (named crash-*, never rewritten here). The
store target's seed databases are not made here: fuzz/seed-store.sh makes them with the
hetune binary."""
import glob, gzip, hashlib, json, os, struct, subprocess, sys

root = "fuzz/corpus"


def put(target, name, data):
    d = os.path.join(root, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    open(os.path.join(d, name), "wb").write(data)


def small(path, limit=16384):
    return os.path.isfile(path) and os.path.getsize(path) <= limit


# spec: the bad-spec corpus, the good specs and the fixtures' specs.
specs = sorted(glob.glob("tests/specs/bad/*.json") + glob.glob("tests/specs/good/*.json") +
               glob.glob("tests/fixtures/*/*.json") + glob.glob("examples/*/spec.json"))
exprs = set()
for p in specs:
    if not small(p):
        continue
    text = open(p, "rb").read()
    if b"KernelSpecification" in text:
        continue  # a T1 file: the kt target's
    put("spec", p.replace("/", "_"), text)
    try:
        doc = json.loads(text)
    except ValueError:
        continue

    def walk(v):
        if isinstance(v, str) and any(c in v for c in "+-*/%<>=!&|?(") and len(v) < 200:
            exprs.add(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
    walk(doc)

# expr: every expression-like string of those specs, and the operators' corners.
exprs |= {"min(N, max_work_group_size) / TS", "N % TS == 0 && is_pow2(WG)",
          "WG <= 64 ? ceil_div(N, WG) : log2(WG)", "(WG & (WG - 1)) == 0", "~TS ^ M | 3",
          "1 << 63", "N >> 64", "-9223372036854775807 - 1", "9223372036854775807 + 1",
          "0x7fffffffffffffff * 2", "((((((((((N))))))))))", "!!!-~+N", "M / 0", "log2(0)",
          "block_size_x * tile <= 1024 and not use_shmem", "N // TS == 4",
          "1 < TS <= 32", "TS / WG == 2", "True or False", "tile in [1, 2]"}
for e in sorted(exprs):
    put("expr", hashlib.sha1(e.encode()).hexdigest()[:16], e)

# kt: the T1 files of the fixtures.
for p in sorted(glob.glob("tests/fixtures/*/*.json")):
    if small(p) and b"KernelSpecification" in open(p, "rb").read():
        put("kt", p.replace("/", "_"), open(p, "rb").read())

# Variants of tests/cli/interop.sh: chained comparisons, true division, CUDA.
t1 = json.load(open("tests/fixtures/interop/vecadd-t1.json"))
conds = ["16 <= block_size_x <= 64",
         "block_size_x > 8 and (8 < block_size_x * 2 < 256 or block_size_x == 128)",
         "block_size_x / 64 > 1", "32 <= block_size_x / t <= 100", "block_size_x / -t < -50",
         "block_size_x / (t - 1) != 64 and (block_size_x / 32) == 3"]
t1["ConfigurationSpace"]["TuningParameters"].append(
    {"Name": "t", "Type": "int", "Values": "[-2, -1, 0, 1, 2, 3, 4]"})
t1["ConfigurationSpace"]["Conditions"] = [
    {"Expression": c, "Parameters": ["block_size_x", "t"]} for c in conds]
put("kt", "conditions.json", json.dumps(t1, indent=1))
t1["KernelSpecification"]["Language"] = "CUDA"
t1["KernelSpecification"]["GlobalSizeType"] = "CUDA"
put("kt", "cuda.json", json.dumps(t1, indent=1))
put("kt", "python.py", "import kernel_tuner\nfrom x import y\n")
for c in conds:
    put("expr", hashlib.sha1(c.encode()).hexdigest()[:16], c)

# replay: small T4 and Kernel Tuner cache files from make_t4.py, plain and gzip'd.
tmp = os.path.join(root, ".tmp.json")
for kind in ("t4", "kt-cache"):
    args = [sys.executable, "tests/fixtures/replay/make_t4.py", tmp, "--drop", "50"]
    if kind == "kt-cache":
        args.append("--kt-cache")
    subprocess.run(args, check=True)
    doc = json.load(open(tmp))
    # Only a few results: enough for every status the file holds.
    if "results" in doc:
        doc["results"] = doc["results"][-6:] + doc["results"][:2]
    else:
        keys = list(doc["cache"])
        doc["cache"] = {k: doc["cache"][k] for k in keys[:2] + keys[-6:]}
    text = json.dumps(doc, indent=1).encode()
    put("replay", kind + ".json", text)
    put("replay", kind + ".json.gz", gzip.compress(text, mtime=0))
os.remove(tmp)


# npy: the shapes and dtypes tests/cli/verify.sh writes.
def npy(descr, shape, fortran, version, tc):
    n = 1
    for x in shape:
        n *= x
    data = struct.pack("<%d%s" % (n, tc), *[2 * i + 1 for i in range(n)])
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (descr, fortran, shape)
    pre = 10 if version == 1 else 12
    hdr += " " * ((64 - (pre + len(hdr) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(hdr)) if version == 1 else struct.pack("<I", len(hdr))
    return b"\x93NUMPY" + bytes([version, 0]) + size + hdr.encode() + data


for name, args in {"f4-4x8": ("<f4", (4, 8), False, 1, "f"),
                   "f4-flat-v2": ("<f4", (32,), False, 2, "f"),
                   "f8": ("<f8", (2, 3), False, 1, "d"),
                   "fortran": ("<f4", (4, 2), True, 1, "f"),
                   "i4-3d-v3": ("<i4", (2, 2, 2), False, 3, "i"),
                   "u1-scalar": ("|u1", (), False, 1, "B"),
                   "big-endian": (">f4", (3,), False, 1, "f")}.items():
    put("npy", name + ".npy", npy(*args))
put("npy", "fake.npy", "not numpy")
