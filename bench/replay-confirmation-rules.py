#!/usr/bin/python3
"""Confirmation rules for screened retention, replayed on committed runs (docs/measurements/
h200-suite.md, sessions 18 and 19). Every screened candidate that was confirmed (3 profiles) has
D of its first profile, of the mean of two and of three against its chain's reference, so other
rules can be decided offline:
1. a sequential confirmation: how many third profiles a rule "skip the third when D(mean of 2)
   >= D_parent - margin + t" would skip, and how many falls (by the margin, on the mean of 3) it
   would lose;
2. confirm only the best N of a chain's round (the screened preset's confirm_best): how many
   confirmations it makes, and in how many of the runs' chain-rounds it would retain another
   candidate than confirming every one within the band did, losing how much D.
Usage: bench/replay-confirmation-rules.py RUN_DIR...   (e.g. suite/vx-robotics/h200-runs/*)
The distance is the signature's D (docs/signature.md), computed here from the same formula; the
script checks it against each record's D."""
import glob, json, math, os, sys

PCT = ['l1_hit_rate', 'l2_hit_rate', 'coalescing', 'compute_throughput', 'tensor_utilization', 'occupancy']
ABS = ['atomics_per_instruction', 'active_lane_fraction']
LOG = ['arithmetic_intensity', 'dram_bandwidth']
MARGIN, BAND = 0.005, 0.0102  # the screened preset (docs/refine.md)


def distance(c, r):
    ds = []
    for m in PCT + ABS + LOG:
        if c.get(m) is None or r.get(m) is None:
            continue
        if m in PCT:
            d = abs(c[m] - r[m]) / 100
        elif m in ABS:
            d = abs(c[m] - r[m])
        else:
            d = abs(math.log2((c[m] + 1e-12) / (r[m] + 1e-12))) / 5
        ds.append(min(1.0, max(0.0, d)))
    return sum(ds) / len(ds)


def mean(profiles):
    return {m: sum(p[m] for p in profiles) / len(profiles) for m in profiles[0]
            if all(p.get(m) is not None for p in profiles)}


root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
refs = {}
for f in glob.glob(os.path.join(root, 'suite/vx-robotics/h200/*/reference.json')):
    refs[os.path.basename(os.path.dirname(f))] = json.load(open(f))['signature']['metrics']
rows = []
rounds = {}  # (records file, round) -> [(parent D, screening D, decided D, confirmed)]
for run in sys.argv[1:]:
    store = os.path.join(run, 'worker-0', 'evaluations')
    for records in glob.glob(os.path.join(run, 'worker-0', '*', 'revisions.jsonl')):
        ref = refs.get(records.split('/')[-2])
        if ref is None:
            continue
        for line in open(records):
            r = json.loads(line)
            if r.get('revision', 0) == 0 or r.get('parent_d') is None or r.get('d') is None:
                continue
            screened = r.get('retention', {}).get('screen', {}).get('repeats') == 1
            if screened and r.get('profiles') == 1:
                rounds.setdefault((records, r['round']), []).append((r['parent_d'], r['d'], r['d'], False))
            if r.get('profiles') != 3:
                continue
            try:
                first = json.load(open(os.path.join(store, r['key'] + '.json')))['profiles']
                more = json.load(open(os.path.join(store, r['key'] + '-confirm2.json')))['profiles']
            except FileNotFoundError:
                continue  # evaluated in another run's store, or not screened
            p = first + more
            if len(first) == 1:
                rounds.setdefault((records, r['round']), []).append((r['parent_d'], distance(p[0], ref), r['d'], True))
            d2, d3 = distance(mean(p[:2]), ref), distance(mean(p), ref)
            assert abs(d3 - r['d']) < 1e-9, (records, r['revision'], d3, r['d'])
            rows.append((r['parent_d'], d2, d3))
print(f'{len(rows)} confirmed candidates; largest |D(mean of 2) - D(mean of 3)| {max(abs(a - b) for _, a, b in rows):.4f}')
fell = [x for x in rows if x[2] < x[0] - MARGIN]
print(f'fell by the margin on the mean of 3: {len(fell)}')
for t in (0.002, BAND / 3, 0.005, 0.007, BAND):
    skipped = [x for x in rows if x[1] >= x[0] - MARGIN + t]
    lost = [x for x in skipped if x[2] < x[0] - MARGIN]
    print(f't = {t:.4f}: third profile skipped for {len(skipped)} of {len(rows)}, falls lost {len(lost)}')


def winner(cands):
    falls = [c for c in cands if c[3] and c[2] < c[0] - MARGIN]
    return min(falls, key=lambda c: c[2]) if falls else None


total = sum(len(g) for g in rounds.values())
print(f'\n{len(rounds)} screened chain-rounds, {total} candidates')
for n in (0, 1, 2, 3):
    made = changed = lost = 0
    loss = 0.0
    for g in rounds.values():
        confirmed = [c for c in g if c[3]]
        kept = confirmed if n == 0 else sorted(confirmed, key=lambda c: c[1])[:n]
        made += len(kept)
        old, new = winner(confirmed), winner(kept)
        if old is not new:
            changed += 1
            if new is None:
                lost += 1
                loss += old[0] - old[2]
            else:
                loss += new[2] - old[2]
    rule = 'every one within the band' if n == 0 else f'the best {n} of a chain-round'
    print(f'confirm {rule}: {made} confirmations ({made / total:.2f} a candidate); another candidate retained '
          f'in {changed} chain-rounds (falls lost {lost}), D given up in all {loss:.4f}')
