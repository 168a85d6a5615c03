#!/usr/bin/env python3
"""The spaces of bench/space/run.sh, written once and given to each tool the way its users
write them: a hetune spec (JSON, platform rules implied by the NDRange and local_mem),
Kernel Tuner's tune_params and restriction strings (kernel_tuner.searchspace.Searchspace),
pyATF's TPs with one constraint lambda each (pyatf.search_space.SearchSpace). The
platform rules hetune adds (Eq. 1-3, the work-item limits, local memory) are written out
as restrictions for the other two, with the numbers of the device given on the command
line, so that all three count the same set.

  spaces.py names
  spaces.py spec NAME DIR             writes DIR/NAME.json (and DIR/k.cl)
  spaces.py kt NAME DEVICE_JSON       counts with Kernel Tuner, prints {"count", "seconds"}
  spaces.py atf NAME DEVICE_JSON      counts with pyATF, prints {"count", "seconds"}

The spaces were written here from the public descriptions of each kernel's tuning
parameters (CLBlast's Xgemm tuner, pyATF's GEMM-style chains of divisors); they are not
copies of anyone's code.
"""
import json
import math
import os
import re
import sys
import time


def pow2(lo, hi):
    v, out = 1, []
    while v <= hi:
        if v >= lo:
            out.append(v)
        v *= 2
    return out


def gemm14():
    """A GEMM-like space of 14 parameters after CLBlast's Xgemm: MWG x NWG x KWG tiles
    computed by MDIMC x NDIMC work-items, A and B loaded by MDIMA and NDIMB, KWI unroll,
    VWM/VWN vector widths, STRM/STRN strides, SA/SB local memory for A and B."""
    p = {"MWG": pow2(16, 128), "NWG": pow2(16, 128), "KWG": pow2(16, 64),
         "MDIMC": pow2(8, 32), "NDIMC": pow2(8, 32), "MDIMA": pow2(8, 32),
         "NDIMB": pow2(8, 32), "KWI": [1, 2, 4, 8], "VWM": [1, 2, 4, 8],
         "VWN": [1, 2, 4, 8], "STRM": [0, 1], "STRN": [0, 1], "SA": [0, 1], "SB": [0, 1]}
    return {
        "sizes": {"M": 1024, "N": 1024, "K": 1024},
        "params": {k: {"values": v} for k, v in p.items()},
        "global": ["N * NDIMC / NWG", "M * MDIMC / MWG"], "local": ["NDIMC", "MDIMC"],
        "local_mem": "(SA * KWG * MWG + SB * KWG * NWG) * 4",
        "constraints": [
            "M % MWG == 0 && N % NWG == 0 && K % KWG == 0", "KWG % KWI == 0",
            "MWG % (MDIMC * VWM) == 0", "NWG % (NDIMC * VWN) == 0",
            "MWG % (MDIMA * VWM) == 0", "NWG % (NDIMB * VWN) == 0",
            "KWG % ((MDIMC * NDIMC) / MDIMA) == 0", "KWG % ((MDIMC * NDIMC) / NDIMB) == 0"],
    }


def xgemm0():
    """CLBlast's Xgemm kernel 0 (GEMMK = 0), the tuner's larger parameter set: MWG/NWG
    16..128, KWG 16/32, MDIMC/NDIMC/MDIMA/NDIMB 8..32, KWI 2, VWM/VWN 1..8, STRM/STRN,
    SA/SB; its divisibility rules, the work-group MDIMC x NDIMC, local memory
    (SA * KWG * MWG + SB * KWG * NWG floats)."""
    p = {"GEMMK": [0], "MWG": pow2(16, 128), "NWG": pow2(16, 128), "KWG": [16, 32],
         "MDIMC": [8, 16, 32], "NDIMC": [8, 16, 32], "MDIMA": [8, 16, 32],
         "NDIMB": [8, 16, 32], "KWI": [2], "VWM": [1, 2, 4, 8], "VWN": [1, 2, 4, 8],
         "STRM": [0, 1], "STRN": [0, 1], "SA": [0, 1], "SB": [0, 1], "KREG": [1]}
    return {
        "sizes": {"M": 1024, "N": 1024, "K": 1024},
        "params": {k: {"values": v} for k, v in p.items()},
        "global": ["M * MDIMC / MWG", "N * NDIMC / NWG"], "local": ["MDIMC", "NDIMC"],
        "local_mem": "(SA * KWG * MWG + SB * KWG * NWG) * 4",
        "constraints": [
            "KWG % KWI == 0", "MWG % (MDIMC * VWM) == 0", "NWG % (NDIMC * VWN) == 0",
            "MWG % (MDIMA * VWM) == 0", "NWG % (NDIMB * VWN) == 0",
            "KWG % ((MDIMC * NDIMC) / MDIMA) == 0", "KWG % ((MDIMC * NDIMC) / NDIMB) == 0"],
    }


def sgemm(size, lm_section=True):
    """pyATF-style GEMM: for each of M, N, K the number of work-groups, the local and
    private cache block sizes and the work-items per group, each an interval 1..size tied
    to the one before by a divisibility rule, as ATF's chains of divisors are written;
    local memory (the A and B blocks in floats) in the spec's local_mem section, or as a
    constraint."""
    params, cons = {}, []
    for d in "MNK":
        for p in ("NUM_WG", "L_CB", "P_CB", "NUM_WI"):
            params[f"{p}_{d}"] = {"range": [1, d]}
        cons += [f"{d} % NUM_WG_{d} == 0", f"({d} / NUM_WG_{d}) % L_CB_{d} == 0",
                 f"L_CB_{d} % P_CB_{d} == 0", f"(L_CB_{d} / P_CB_{d}) % NUM_WI_{d} == 0"]
    lm = "(L_CB_M * L_CB_K + L_CB_K * L_CB_N) * 4"
    sp = {"sizes": {"M": size, "N": size, "K": size}, "params": params,
          "global": ["NUM_WG_M * NUM_WI_M", "NUM_WG_N * NUM_WI_N"],
          "local": ["NUM_WI_M", "NUM_WI_N"], "local_mem": None, "constraints": cons}
    if lm_section:
        sp["local_mem"] = lm
    else:
        sp["constraints"] = cons + [lm + " <= local_mem_size"]
    return sp


def chains(size):
    """Three independent chains of divisors (no NDRange rule ties them: the local size is
    left open): about 1.2e8 valid configurations at size 256."""
    sp = sgemm(size, lm_section=False)
    sp["constraints"] = sp["constraints"][:-1]
    sp["global"], sp["local"] = ["M"], None
    return sp


SPACES = {"gemm14": gemm14, "xgemm0": xgemm0, "chains256": lambda: chains(256)}
for _n in (8, 16, 32, 64, 256, 320, 512):
    SPACES[f"sgemm{_n}"] = lambda n=_n: sgemm(n)
    SPACES[f"sgemm{_n}-c"] = lambda n=_n: sgemm(n, False)


def write_spec(name, folder):
    sp = SPACES[name]()
    nd = {"global": sp["global"]}
    if sp["local"]:
        nd["local"] = sp["local"]
    spec = {"name": name, "kernel": {"file": "k.cl", "name": "k"}, "sizes": sp["sizes"],
            "ndrange": nd, "params": sp["params"], "constraints": sp["constraints"],
            "args": [{"name": "A", "type": "float", "shape": ["M"], "access": "readwrite",
                      "index": ["gx"]}]}
    if sp["local_mem"]:
        spec["local_mem"] = sp["local_mem"]
    with open(os.path.join(folder, name + ".json"), "w") as f:
        json.dump(spec, f, indent=1)
    with open(os.path.join(folder, "k.cl"), "w") as f:
        f.write("__kernel void k(__global float *A) { }\n")


def py_expr(e, consts):
    """A hetune expression (integers, + - * / %, comparisons, &&) as Python over the
    parameters, sizes and device numbers folded in."""
    e = e.replace("&&", " and ").replace("||", " or ").replace("/", "//")
    return re.sub(r"\b[A-Za-z_]\w*\b",
                  lambda m: str(consts[m.group(0)]) if m.group(0) in consts else m.group(0), e)


def rules(name, dev):
    """The space's parameters (name -> values) and every rule as Python expressions."""
    sp = SPACES[name]()
    consts = dict(sp["sizes"])
    consts.update({"local_mem_size": dev["local_mem_size"], "compute_units": dev["compute_units"],
                   "max_work_group_size": dev["max_work_group_size"]})
    values = {}
    for k, v in sp["params"].items():
        if "values" in v:
            values[k] = list(v["values"])
        else:
            lo, hi = (int(eval(py_expr(str(x), consts))) for x in v["range"])
            values[k] = range(lo, hi + 1)
    out = [py_expr(c, consts) for c in sp["constraints"]]
    if sp["local"]:
        g = [py_expr(x, consts) for x in sp["global"]]
        l = [py_expr(x, consts) for x in sp["local"]]
        out.append(" * ".join(f"({x})" for x in l) + f" <= {dev['max_work_group_size']}")
        for d, (gd, ld) in enumerate(zip(g, l)):
            out.append(f"({ld}) <= {dev['max_work_item_sizes'][d]}")
            out.append(f"({gd}) % ({ld}) == 0")
        out.append(" * ".join(f"(({a}) // ({b}))" for a, b in zip(g, l)) +
                   f" >= {dev['compute_units']}")
    if sp["local_mem"]:
        out.append(f"{py_expr(sp['local_mem'], consts)} <= {dev['local_mem_size']}")
    return values, out


def names_in(expr, params):
    return [p for p in params if re.search(r"\b%s\b" % p, expr)]


def count_kt(name, dev):
    from kernel_tuner.searchspace import Searchspace
    values, rs = rules(name, dev)
    values = {k: list(v) for k, v in values.items()}
    t0 = time.perf_counter()
    ss = Searchspace(values, rs, dev["max_work_group_size"])
    n = ss.size
    return n, time.perf_counter() - t0


def count_atf(name, dev):
    from pyatf import TP, Interval, Set
    from pyatf.search_space import SearchSpace
    values, rs = rules(name, dev)
    order = list(values)
    attached = {p: [] for p in order}
    for r in rs:
        used = names_in(r, order)
        attached[max(used, key=order.index)].append(r)
    def dom(v):  # an interval as pyATF's users write one, else the set of values
        return Interval(v.start, v.stop - 1) if isinstance(v, range) else Set(*v)

    tps = []
    for p in order:
        if attached[p]:
            args = [q for q in order if any(re.search(r"\b%s\b" % q, r) for r in attached[p])]
            fn = eval("lambda %s: %s" % (", ".join(args), " and ".join(
                "(%s)" % r for r in attached[p])))
            tps.append(TP(p, dom(values[p]), fn))
        else:
            tps.append(TP(p, dom(values[p])))
    t0 = time.perf_counter()
    ss = SearchSpace(*tps, verbosity=0)
    n = ss.constrained_size
    return n, time.perf_counter() - t0


def main(argv):
    if len(argv) >= 2 and argv[1] == "names":
        print(" ".join(SPACES))
        return 0
    if len(argv) == 4 and argv[1] == "spec":
        write_spec(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] in ("kt", "atf"):
        dev = json.load(open(argv[3]))["devices"][0]
        n, s = (count_kt if argv[1] == "kt" else count_atf)(argv[2], dev)
        print(json.dumps({"count": n, "seconds": s}))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
