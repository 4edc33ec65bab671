#!/usr/bin/env python3
"""Summarises a V8 .cpuprofile: top self time and inclusive time by function (for bench work)."""
import collections, json, sys

p = json.load(open(sys.argv[1]))
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 30
nodes = {n['id']: n for n in p['nodes']}
parent = {c: n['id'] for n in p['nodes'] for c in n.get('children', [])}
dt = collections.Counter()
for s, d in zip(p['samples'], p['timeDeltas']):
    dt[s] += d
def name(n):
    cf = n['callFrame']
    return f"{cf['functionName'] or '(anon)'} {cf['url'].split('/')[-1]}:{cf['lineNumber']}"
self_t, total = collections.Counter(), collections.Counter()
for nid, t in dt.items():
    self_t[name(nodes[nid])] += t
    seen, x = set(), nid
    while x is not None and x in nodes:
        nm = name(nodes[x])
        if nm not in seen:
            total[nm] += t
            seen.add(nm)
        x = parent.get(x)
tot = sum(dt.values())
print('--- self')
for k, v in self_t.most_common(limit): print(f'{v / tot * 100:5.1f}% {k}')
print('--- inclusive')
for k, v in total.most_common(limit): print(f'{v / tot * 100:5.1f}% {k}')
