#!/usr/bin/env python3
"""Joins the raw output of scripts/bench-mixers.sh (Go benchmark lines prefixed "go " / "xla ", peer JSON lines
prefixed "peer ", "# load ..." lines) into markdown tables on standard output.

  python3 scripts/mixers_table.py results/bench-mixers/raw.txt

Peer column: the same algorithm as ours (attention sdpa, SSD loop, GDN blocks,loop) and, separately, the
fastest peer variant of that mixer; the ratios use the same-algorithm row and the fastest row.
"""

import json
import re
import sys

SAME = {"attention": "sdpa", "ssd": "loop", "gdn": "blocks,loop"}
LINE = re.compile(r"^(go|xla) BenchmarkMixer/([\w-]+)/T=(\d+)/(fwd\+bwd|fwd)-\d+\s+\d+\s+(.*)$")
LOAD = re.compile(r"^# load ([\d.]+) [\d.]+ [\d.]+ before (go|xla) ([\w-]+) T=(\d+) (\S+)")


def parse(path):
    go, peer, load = {}, {}, {}
    for line in open(path):
        line = line.rstrip("\n")
        m = LINE.match(line)
        if m:
            impl, mixer, t, pas, rest = m.groups()
            metrics = {unit: float(v) for v, unit in re.findall(r"([\d.e+-]+) (\S+)", rest)}
            key = (impl, mixer, int(t), pas)
            old = go.get(key)
            if old is None or metrics.get("tok/s", 0) > old.get("tok/s", 0):  # several runs: keep the best
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
    if len(sys.argv) != 2:
        sys.exit("usage: mixers_table.py RAW_OUTPUT")
    go, peer, load = parse(sys.argv[1])
    rows = sorted({(m, t, p) for (_, m, t, p) in go}, key=lambda r: (r[0].split("-")[0], r[0], r[1], r[2]))
    print("| mixer | T | pass | Go tok/s | XLA tok/s | peer tok/s (same alg.) | fastest peer tok/s | XLA/peer "
          "| XLA/fastest peer | XLA/Go | XLA compile s | XLA 1st run ms | peak RSS MB Go / XLA / peer | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mixer, t, pas in rows:
        g, x = go.get(("go", mixer, t, pas), {}), go.get(("xla", mixer, t, pas), {})
        base = mixer.split("-")[0]
        same = peer.get((base, SAME.get(base), t, pas))
        variants = [r for (m, _, tt, pp), r in peer.items() if m == base and tt == t and pp == pas]
        best = max(variants, key=lambda r: r["tok_s"]) if variants else None
        gt, xt = g.get("tok/s"), x.get("tok/s")
        st, bt = (same or {}).get("tok_s"), (best or {}).get("tok_s")
        mem = " / ".join(fmt(v) for v in (g.get("rss-MB"), x.get("rss-MB"), (same or {}).get("peak_rss_mb")))
        compile_s = x["compile-ms"] / 1e3 if "compile-ms" in x else None
        print(f"| {mixer} | {t} | {pas} | {fmt(gt)} | {fmt(xt)} | {fmt(st)} | "
              f"{fmt(bt)}{' [' + best['variant'] + ']' if best else ''} | {ratio(xt, st)} | {ratio(xt, bt)} | "
              f"{ratio(xt, gt)} | {fmt(compile_s, '.1f')} | {fmt(x.get('first-ms'))} | {mem} | "
              f"{fmt(load.get(('xla', mixer, t, pas)), '.1f')} |")
    if peer:
        print()
        print("| peer mixer[variant] | T | pass | ms (fastest) | tok/s | peak RSS MB |")
        print("|---|---|---|---|---|---|")
        for (m, v, t, p), r in sorted(peer.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1], kv[0][3])):
            print(f"| {m}[{v}] | {t} | {p} | {r['ms']:.1f} | {r['tok_s']:,.0f} | {fmt(r.get('peak_rss_mb'))} |")


if __name__ == "__main__":
    main()
