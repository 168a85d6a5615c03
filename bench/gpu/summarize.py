#!/usr/bin/env python3
"""Turns the `hetune split --json` outputs of bench/gpu/run.sh (json.tgz) into the Markdown
table of docs/results-gpu.md: per case, split dimension and scheduler, the co-execution time
against Algorithm 1's theoretical time and against the fastest device alone.

usage: bench/gpu/summarize.py json.tgz
"""
import io
import json
import sys
import tarfile


def ms(s):
    return f"{s * 1e3:.3f}"


def main(path):
    docs = []
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".json"):
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
              f"| {'GPU' if 'NVIDIA' in d['devices'][fa['device']]['name'] else 'CPU'} "
              f"| {ms(fa['wall_seconds'])} | {ms(fa['kernel_seconds'])} "
              f"| {m['wall_seconds'] / th:.2f} | {m['kernel_seconds'] / th:.2f} "
              f"| {fa['wall_seconds'] / m['wall_seconds']:.2f} "
              f"| {fa['kernel_seconds'] / m['kernel_seconds']:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
