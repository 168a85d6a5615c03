"""A perturbed copy of a recorded space, to check that a change to a search strategy does not
fit the recorded spaces themselves (issue 25: the goals also hold on spaces held back).

usage: perturb_t4.py IN.T4.json.gz OUT.T4.json.gz [--noise SIGMA] [--fail-best K] [--seed S]

  --noise SIGMA   each correct configuration's recorded runtimes and its "time" measurement
                  are multiplied by one factor exp(N(0, SIGMA)), drawn per configuration:
                  the same landscape, its order near the top shuffled
  --fail-best K   the K fastest correct configurations (after the noise) become runtime
                  failures: the optimum's neighbourhood stays, the optimum moves
  --seed S        the random numbers (default 1)

The T1 input beside IN (NAME.T1.json, NAME being IN's name up to its last '-') is copied
beside OUT when none is there, so hetune_traces.py and kt_sim.py find it. Name OUT
NAME-DEVICE<variant>.T4.json.gz with no '-' after NAME's (e.g.
convolution_milo-A100noise15.T4.json.gz): both tools take the benchmark name to be the name
up to its last '-'. Then, for example:
  python3 bench/search/hetune_traces.py --hetune build/hetune --strategies bayes \
      --out T.jsonl /tmp/v/convolution_milo-A100noise15.T4.json.gz
  bench/search/kt.sh --score T.jsonl --json R.jsonl /tmp/v/convolution_milo-A100noise15.T4.json.gz
  bench/search/kt.sh --table R.jsonl
"""
import argparse
import gzip
import json
import math
import os
import random
import shutil
import sys


def t1_beside(t4):
    base = os.path.basename(t4)
    return os.path.join(os.path.dirname(t4), base.rsplit("-", 1)[0] + ".T1.json")


def time_of(r):
    for m in r.get("measurements") or []:
        if m.get("name") == "time" and isinstance(m.get("value"), (int, float)):
            return m
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--fail-best", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    opener = gzip.open if a.inp.endswith(".gz") else open
    with opener(a.inp, "rt") as f:
        doc = json.load(f)
    rng = random.Random(a.seed)
    correct = []
    for r in doc["results"]:
        m = time_of(r)
        if r.get("invalidity") != "correct" or m is None:
            continue
        if a.noise > 0:
            k = math.exp(rng.gauss(0.0, a.noise))
            m["value"] *= k
            r["times"]["runtimes"] = [t * k for t in r["times"].get("runtimes") or []]
        correct.append(r)
    correct.sort(key=lambda r: time_of(r)["value"])
    if a.fail_best >= len(correct):
        sys.exit("perturb_t4: --fail-best would leave no correct configuration")
    for r in correct[:a.fail_best]:
        r["invalidity"] = "runtime"
        r["correctness"] = 0
        r["measurements"] = [{"name": "time", "value": "RuntimeFailedConfig", "unit": ""}]
        r["times"].pop("runtimes", None)
    opener = gzip.open if a.out.endswith(".gz") else open
    with opener(a.out, "wt") as f:
        json.dump(doc, f)
    src, dst = t1_beside(a.inp), t1_beside(a.out)
    if os.path.exists(src) and not os.path.exists(dst):
        shutil.copyfile(src, dst)
    print(f"perturb_t4: {a.out}: {len(correct)} correct configurations, noise {a.noise}, "
          f"{a.fail_best} best made failures", file=sys.stderr)


if __name__ == "__main__":
    main()
