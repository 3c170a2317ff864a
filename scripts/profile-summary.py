"""Summary of scripts/profile-tests.sh's output directory: per suite, the slowest packages (wall time from
go test -json, user+system CPU from /usr/bin/time) and the slowest top-level tests (go test -json Elapsed).

    python3 scripts/profile-summary.py DIR [N]
"""
import json
import os
import sys

MODULE = "github.com/oryx-go/oryx/"


def load_json(path):
    tests, pkgs = {}, {}
    if not os.path.exists(path):
        return tests, pkgs
    for line in open(path, errors="replace"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("Action") not in ("pass", "fail", "skip") or "Elapsed" not in e:
            continue
        pkg = e.get("Package", "").replace(MODULE, "") or "."
        if e.get("Test"):
            if "/" not in e["Test"]:
                tests[(pkg, e["Test"])] = (e["Elapsed"], e["Action"])
        else:
            pkgs[pkg] = (e["Elapsed"], e["Action"])
    return tests, pkgs


def load_times(path, pkgs):
    """Per package: (wall, user+sys CPU, max RSS MiB); a line's directory ends in its package's path."""
    cpu = {}
    if not os.path.exists(path):
        return cpu
    for line in open(path):
        f = line.split()
        if len(f) < 5 or not f[0][0].isdigit():
            continue  # "Command exited with non-zero status" lines
        d = f[4]
        match = [p for p in pkgs if d.endswith("/" + p)]
        if match:
            cpu[max(match, key=len)] = (float(f[0]), float(f[1]) + float(f[2]), int(f[3]) // 1024)
    return cpu


def main():
    d = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    for suite in ("go", "xla"):
        tests, pkgs = load_json(os.path.join(d, suite + ".json"))
        if not pkgs:
            continue
        cpu = load_times(os.path.join(d, suite + ".times"), pkgs)
        wall = sum(p[0] for p in pkgs.values())
        tcpu = sum(c[1] for c in cpu.values())
        print(f"== {suite}: {len(pkgs)} packages, sum of package wall {wall:.0f} s, CPU {tcpu:.0f} s")
        print(f"{'package':32} {'wall s':>8} {'CPU s':>8} {'RSS MiB':>8}  result")
        for pkg, (el, act) in sorted(pkgs.items(), key=lambda kv: -kv[1][0])[:n]:
            c = cpu.get(pkg, (0, 0, 0))
            print(f"{pkg:32} {el:8.1f} {c[1]:8.1f} {c[2]:8d}  {act}")
        print(f"{'test':64} {'wall s':>8}  result")
        for (pkg, t), (el, act) in sorted(tests.items(), key=lambda kv: -kv[1][0])[:n]:
            print(f"{pkg + ' ' + t:64} {el:8.1f}  {act}")
        print()


main()
