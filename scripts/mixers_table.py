#!/usr/bin/env python3
"""Joins the raw output of scripts/bench-mixers.sh into markdown tables on standard output: Go benchmark lines
prefixed "go ", "xla " or "xla-glibc ", peer JSON lines prefixed "peer ", and "# load ..." lines.

  python3 scripts/mixers_table.py results/bench-mixers/raw.txt

Peer columns: the same algorithm as ours (attention sdpa; SSD loop for ssd-loop, dense for ssd and ssd-dense — the
default form on XLA; GDN blocks,loop) and the fastest peer
variant of that mixer (over variants and OpenMP wait policies); ratios are against both. When a graph was run
several times (several raw files concatenated), the best run is kept.
"""

import json
import re
import sys

IMPLS = ("go", "xla", "xla-glibc")
SAME = {"attention": "sdpa", "ssd": "dense", "ssd-dense": "dense", "ssd-loop": "loop", "gdn": "blocks,loop"}
LINE = re.compile(r"^(go|xla|xla-glibc) BenchmarkMixer/([\w-]+)/T=(\d+)/(fwd\+bwd|fwd)-\d+\s+\d+\s+(.*)$")
LOAD = re.compile(r"^# load ([\d.]+) [\d.]+ [\d.]+ before (go|xla|xla-glibc) ([\w-]+) T=(\d+) (\S+)")


def parse(paths):
    go, peer, load = {}, {}, {}
    for path in paths:
        for line in open(path):
            line = line.rstrip("\n")
            m = LINE.match(line)
            if m:
                impl, mixer, t, pas, rest = m.groups()
                metrics = {unit: float(v) for v, unit in re.findall(r"([\d.e+-]+) (\S+)", rest)}
                key = (impl, mixer, int(t), pas)
                if key not in go or metrics.get("tok/s", 0) > go[key].get("tok/s", 0):
                    go[key] = metrics
                continue
            m = LOAD.match(line)
            if m:
                l1, impl, mixer, t, pas = m.groups()
                load[(impl, mixer, int(t), pas)] = float(l1)
                continue
            if line.startswith("peer {"):
                r = json.loads(line[5:])
                key = (r["mixer"], r["variant"], r["T"], r["pass"])
                if key not in peer or r["tok_s"] > peer[key]["tok_s"]:
                    peer[key] = r
    return go, peer, load


def fmt(x, spec=",.0f"):
    return "–" if x is None else format(x, spec)


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "–"


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: mixers_table.py RAW_OUTPUT...")
    go, peer, load = parse(sys.argv[1:])
    rows = sorted({(m, t, p) for (_, m, t, p) in go}, key=lambda r: (r[0].split("-")[0], r[0], r[1], r[2]))

    def lookup(mixer, t, pas):
        g = {impl: go.get((impl, mixer, t, pas), {}) for impl in IMPLS}
        base = mixer.split("-")[0]
        same = peer.get((base, SAME.get(mixer, SAME.get(base)), t, pas)) or {}
        variants = [r for (m, _, tt, pp), r in peer.items() if m == base and tt == t and pp == pas]
        best = max(variants, key=lambda r: r["tok_s"]) if variants else {}
        return g, same, best

    print("| mixer | T | pass | Go tok/s | XLA tok/s | XLA glibc-default tok/s | peer tok/s (same alg.) | fastest peer tok/s "
          "| XLA/peer | XLA/fastest peer | XLA glibc-default/fastest peer | XLA/Go | load (1 min) before XLA |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mixer, t, pas in rows:
        g, same, best = lookup(mixer, t, pas)
        gt, xt, tt = (g[i].get("tok/s") for i in IMPLS)
        st, bt = same.get("tok_s"), best.get("tok_s")
        bv = f" [{best['variant']}]" if best else ""
        print(f"| {mixer} | {t} | {pas} | {fmt(gt)} | {fmt(xt)} | {fmt(tt)} | {fmt(st)} | {fmt(bt)}{bv} | "
              f"{ratio(xt, st)} | {ratio(xt, bt)} | {ratio(tt, bt)} | {ratio(xt, gt)} | "
              f"{fmt(load.get(('xla', mixer, t, pas)), '.1f')} |")
    print()
    print("| mixer | T | pass | XLA compile s | XLA 1st run ms | CPU ms per run: Go / XLA / XLA glibc-default / fastest peer "
          "| peak RSS MB: Go / XLA / XLA glibc-default / peer (same alg.) |")
    print("|---|---|---|---|---|---|---|")
    for mixer, t, pas in rows:
        g, same, best = lookup(mixer, t, pas)
        x = g["xla"]
        cpu = " / ".join(fmt(v) for v in (*(g[i].get("cpu-ms") for i in IMPLS), best.get("cpu_ms")))
        mem = " / ".join(fmt(v) for v in (*(g[i].get("rss-MB") for i in IMPLS), same.get("peak_rss_mb")))
        compile_s = x["compile-ms"] / 1e3 if "compile-ms" in x else None
        print(f"| {mixer} | {t} | {pas} | {fmt(compile_s, '.1f')} | {fmt(x.get('first-ms'))} | {cpu} | {mem} |")
    if peer:
        print()
        print("| peer mixer[variant] | T | pass | ms (fastest) | tok/s | CPU ms | OpenMP wait | peak RSS MB |")
        print("|---|---|---|---|---|---|---|---|")
        for (m, v, t, p), r in sorted(peer.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1], kv[0][3])):
            print(f"| {m}[{v}] | {t} | {p} | {r['ms']:.1f} | {r['tok_s']:,.0f} | {fmt(r.get('cpu_ms'))} | "
                  f"{r.get('omp_wait', '–')} | {fmt(r.get('peak_rss_mb'))} |")


if __name__ == "__main__":
    main()
