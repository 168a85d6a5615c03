"""A recorded space as a table for table_replay (bench/search/table_replay.c): one line per
configuration of a T4 file, its parameter values in the order of the file's configurations
and its recorded time in ms, tab-separated; "inf" for a configuration that failed (compile,
runtime or wrong answer). The perturbed copies of perturb_t4.py convert the same way.

usage: t4_table.py IN.T4.json[.gz] OUT.tsv
"""
import gzip
import json
import sys

from perturb_t4 import time_of


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().split("\n")[-1])
    inp, out = sys.argv[1:]
    opener = gzip.open if inp.endswith(".gz") else open
    with opener(inp, "rt") as f:
        doc = json.load(f)
    names = None
    with open(out, "w") as f:
        for r in doc["results"]:
            cfg = r["configuration"]
            if names is None:
                names = list(cfg)
            m = time_of(r)
            ok = r.get("invalidity") == "correct" and m is not None
            values = [str(int(cfg[n])) for n in names]
            f.write("\t".join(values + [repr(float(m["value"])) if ok else "inf"]) + "\n")


if __name__ == "__main__":
    main()
