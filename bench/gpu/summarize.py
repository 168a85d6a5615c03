#!/usr/bin/env python3
"""Turns the `hetune split --json` outputs of bench/gpu/run.sh (json.tgz) into the Markdown
table of docs/results-gpu.md: per case, split dimension and scheduler, the co-execution time
against Algorithm 1's theoretical time and against the fastest device alone.

With --refine, the outputs of the refine and gpusweep stages: per case, the paper's plan
(round 0) and the best refined round of the forced split against Algorithm 1's theoretical
time from the tuned times, and the goal of issue 7 (within 10% of it wherever a device
other than the fastest holds at least 10% of the work by Eq. 4); then what hetune decided
without --force (split, or the fastest device alone: the second goal, at most 2% slower
than it); then, with two GPUs, the best point of a sweep of the split between them.

usage: bench/gpu/summarize.py [--refine] json.tgz
"""
import io
import json
import sys
import tarfile


def ms(s):
    return f"{s * 1e3:.3f}"


def load(path, prefix):
    docs = []
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".json") and \
                    m.name.rsplit("/", 1)[-1].startswith(prefix):
                n = int(m.name.rsplit("-", 1)[1].split(".")[0])
                docs.append((n, json.load(io.TextIOWrapper(tar.extractfile(m)))))
    docs.sort()
    return docs


def refine(path):
    print("| case | G | by | devices: tuned time alone | Eq. 4 shares | Algorithm 1 ms (tuned) "
          "| Algorithm 1 ms (alone, this run) | round 0 shares | round 0 kernel ms | best round "
          "| its shares | its kernel ms | its wall ms | fastest alone wall ms "
          "| kernel / Algorithm 1 (tuned) | kernel / Algorithm 1 (this run) | speedup wall "
          "| goal |")
    print("|" + " --- |" * 18)
    for _, d in load(path, "refine-"):
        if d.get("ran_alone") or not d.get("refine"):
            continue
        devs, rf = d["devices"], d["refine"]
        th = d["theoretical_seconds"]
        r0, best = rf["rounds"][0], rf["rounds"][rf["best"]]
        fast = min(range(len(devs)), key=lambda i: devs[i]["tuned_seconds"])
        # Eq. 4 from the tuned times (the JSON's optimal factors are the best round's).
        inv = [1 / x["tuned_seconds"] for x in devs]
        eq4 = [v / sum(inv) for v in inv]
        slower = max((eq4[i] for i in range(len(devs)) if i != fast), default=0)
        ratio = best["kernel_seconds"] / th
        th_run = 1 / sum(1 / x["alone"]["kernel_seconds"] for x in devs)
        ratio_run = best["kernel_seconds"] / th_run
        goal = ("met" if ratio <= 1.10 else "**not met**") if slower >= 0.10 else "n/a (<10%)"
        fmt = lambda v: ", ".join(f"{x:.3f}" for x in v)
        name = lambda x: "GPU" if "NVIDIA" in x["name"] else "CPU"
        print(f"| {d['spec']} | {d['global']} | {rf.get('by', 'wall')} "
              f"| {', '.join(name(x) + ' ' + ms(x['tuned_seconds']) for x in devs)} "
              f"| {fmt(eq4)} | {ms(th)} | {ms(th_run)} | {fmt(r0['shares'])} "
              f"| {ms(r0['kernel_seconds'])} "
              f"| {rf['best']} of {len(rf['rounds']) - 1} | {fmt(best['shares'])} "
              f"| {ms(best['kernel_seconds'])} | {ms(best['wall_seconds'])} "
              f"| {ms(d['fastest_alone']['wall_seconds'])} | {ratio:.2f} | {ratio_run:.2f} "
              f"| {d['fastest_alone']['wall_seconds'] / best['wall_seconds']:.2f} | {goal} |")


def fastest_pos(d):
    """The position in d["devices"] of the fastest device alone (the JSON names its index)."""
    return next(i for i, x in enumerate(d["devices"]) if x["index"] == d["fastest_alone"]["device"])


def decide(path):
    docs = load(path, "decide-")
    if not docs:
        return
    print()
    print("| case | G | by | decision | result kernel ms | result wall ms "
          "| fastest alone kernel ms | fastest alone wall ms | result / alone (by target) "
          "| largest share of a slower device | kernel / Algorithm 1 (tuned) | goal |")
    print("|" + " --- |" * 12)
    for _, d in docs:
        by = (d.get("refine") or {}).get("by", "kernel")
        key = "kernel_seconds" if by == "kernel" else "wall_seconds"
        m, fa = d["measured"], d["fastest_alone"]
        ratio = m[key] / fa[key]
        if d["ran_alone"]:
            share, alg = "-", "-"
            goal = "met (alone)" if ratio <= 1.02 else "**not met** (alone)"
        else:
            devs = d["devices"]
            shares = [x["adjusted_factor"] for x in devs]
            slow = max((shares[i] for i in range(len(devs)) if i != fastest_pos(d)), default=0)
            th = d["theoretical_seconds"]
            r = m["kernel_seconds"] / th
            share, alg = f"{slow:.3f}", f"{r:.2f}"
            goal = ("met" if r <= 1.10 else "**not met**") if slow >= 0.10 else "n/a (<10%)"
        print(f"| {d['spec']} | {d['global']} | {by} | {d.get('decision', '?')} "
              f"| {ms(m['kernel_seconds'])} | {ms(m['wall_seconds'])} "
              f"| {ms(fa['kernel_seconds'])} | {ms(fa['wall_seconds'])} | {ratio:.3f} "
              f"| {share} | {alg} | {goal} |")


def gsweep(path):
    docs = load(path, "gsweep-")
    if not docs:
        return
    print()
    print("| case | G | GPU kernel ms alone (each) | Algorithm 1 ms (the two GPUs, alone "
          "times) | best sweep point (GPU 0 share) | its kernel ms | best / Algorithm 1 "
          "| its wall ms | fastest GPU alone wall ms |")
    print("|" + " --- |" * 9)
    for _, d in docs:
        devs, pts = d["devices"], [p for p in d["sweep"] if p["verified"] is not False]
        alone = [x["alone"]["kernel_seconds"] for x in devs]
        th = 1 / sum(1 / a for a in alone)
        best = min(pts, key=lambda p: p["kernel_seconds"])
        print(f"| {d['spec']} | {d['global']} | {', '.join(ms(a) for a in alone)} | {ms(th)} "
              f"| {best['factor']:.2f} | {ms(best['kernel_seconds'])} "
              f"| {best['kernel_seconds'] / th:.2f} | {ms(best['wall_seconds'])} "
              f"| {ms(d['fastest_alone']['wall_seconds'])} |")


def main(path):
    docs = []
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".json") and \
                    m.name.rsplit("/", 1)[-1].startswith("split-"):
                n = int(m.name.rsplit("-", 1)[1].split(".")[0])
                docs.append((n, json.load(io.TextIOWrapper(tar.extractfile(m)))))
    docs.sort()
    print("| case | G (dim) | scheduler | factors optimal → adjusted (CPU, GPU…) | theoretical ms "
          "| co-exec wall ms | co-exec kernel ms | fastest alone | its wall ms | its kernel ms "
          "| wall / theoretical | kernel / theoretical | speedup wall | speedup kernel |")
    print("|" + " --- |" * 14)
    for _, d in docs:
        m, fa, th = d["measured"], d["fastest_alone"], d["theoretical_seconds"]
        opt = ", ".join(f"{x['optimal_factor']:.3f}" for x in d["devices"])
        adj = ", ".join(f"{x['adjusted_factor']:.3f}" for x in d["devices"])
        print(f"| {d['spec']} | {d['global']} ({d['dim']}) | {d['scheduler']} | {opt} → {adj} "
              f"| {ms(th)} | {ms(m['wall_seconds'])} | {ms(m['kernel_seconds'])} "
              f"| {'GPU' if 'NVIDIA' in d['devices'][fastest_pos(d)]['name'] else 'CPU'} "
              f"| {ms(fa['wall_seconds'])} | {ms(fa['kernel_seconds'])} "
              f"| {m['wall_seconds'] / th:.2f} | {m['kernel_seconds'] / th:.2f} "
              f"| {fa['wall_seconds'] / m['wall_seconds']:.2f} "
              f"| {fa['kernel_seconds'] / m['kernel_seconds']:.2f} |")


if __name__ == "__main__":
    if sys.argv[1] == "--refine":
        refine(sys.argv[2])
        decide(sys.argv[2])
        gsweep(sys.argv[2])
    else:
        main(sys.argv[1])
