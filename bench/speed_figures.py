#!/usr/bin/env python3
"""The speed report's figures for every CUDA exercise's solution and starter
(and right/ fixtures with --all): least traffic, requested and DRAM bytes,
their ratios to the least, and each GPU's estimated time and bound.

    bench/speed_figures.py build/app/cli/attnlab [--all] [--json OUT]

Prints one block per file; compare two builds' output to see what a change to
the performance model (app/core/src/check/performance.cpp) moved."""
import json, os, subprocess, sys, tempfile

def files(course, everything):
    manifest = json.load(open(os.path.join(course, "manifest.json")))
    ids = [e if isinstance(e, str) else e.get("id") for e in manifest.get("exercises", manifest)]
    for ex in ids:
        d = os.path.join(course, ex)
        meta = json.load(open(os.path.join(d, "exercise.json")))
        if meta.get("runtime") != "cuda":
            continue
        names = ["solution.cu", "starter.cu"]
        if everything and os.path.isdir(os.path.join(d, "right")):
            names += ["right/" + f for f in sorted(os.listdir(os.path.join(d, "right")))]
        for n in names:
            yield ex, n, os.path.join(d, n)

def main():
    cli = sys.argv[1]
    course = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "exercises")
    out = {}
    home = tempfile.mkdtemp(prefix="attnlab-speed-")
    env = dict(os.environ, ATTNLAB_HOME=home, ATTNLAB_NO_GPU="1")
    for ex, name, path in files(course, "--all" in sys.argv):
        r = subprocess.run([cli, "check", ex, path, "--json"], capture_output=True, text=True, env=env)
        try:
            perf = json.loads(r.stdout).get("performance")
        except json.JSONDecodeError:
            perf = None
        out[ex + "/" + name] = perf
        if not perf:
            print(f"{ex}/{name}: no performance report")
            continue
        print(f"{ex}/{name}: case {perf['case'] + 1}, least {perf['min_bytes']} B, "
              f"requested {perf['bytes']} B ({perf['traffic_ratio']:.2f}x)")
        for e in perf["estimates"]:
            if "waves" in e:  # the wave and cache model
                extra = (f", {e['waves']:.2f} waves, occupancy {e['achieved_occupancy']:.2f}, roof {e['roof']}, "
                         f"DRAM {e['dram_bytes']:.0f} B ({e['dram_ratio']:.2f}x), L1 hit {e['l1_hit_rate']:.2f}, L2 hit {e['l2_hit_rate']:.2f}")
            else:  # the model before waves: time divided by the grid's fill
                extra = f", fill {e['fill']:.3f}"
            print(f"    {e['gpu']:>14}: {e['seconds']*1e6:9.3f} us  {e['bound']}{extra}")
    if "--json" in sys.argv:
        json.dump(out, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)

main()
