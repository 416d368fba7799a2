import sys,re,statistics as st
# usage: python3 bench/ab_pairs_stat.py RESULTS key   (key: cpu_s or wall_s)
# The output of bench/run_ab_pairs.sh grouped by mode and ranks, paired by
# repetition: medians of A and B, the median of the B/A ratios, B<A count.
rows=[l for l in open(sys.argv[1]) if 'RESULT' in l]
key=sys.argv[2]
d={}
for l in rows:
    kv=dict(re.findall(r'(\w+)=([^ \n]+)',l))
    g=(kv.get('mode',''),kv['ranks'])
    d.setdefault(g,{}).setdefault(kv['rep'],{})[kv['variant']]=float(kv[key])
for g,reps in sorted(d.items()):
    pairs=[(r['A'],r['B']) for r in reps.values() if 'A' in r and 'B' in r]
    ratios=[b/a for a,b in pairs]
    wins=sum(1 for a,b in pairs if b<a)
    print(f"mode={g[0] or '-'} ranks={g[1]} n={len(pairs)} {key} median A={st.median([a for a,_ in pairs]):.4f} B={st.median([b for _,b in pairs]):.4f} median B/A={st.median(ratios):.3f} B<A in {wins}/{len(pairs)}")
