#!/usr/bin/env bash
# Predicted against measured, per path: colio-bench under Open MPI, 2 ranks bound, /dev/shm, with statistics
# (colio_stats), as chosen by default (def), forced two-phase (tp: romio_cb_read/write=enable) and forced direct
# (dir: =disable); rank 0, medians of the later half of the calls.
# usage: pred.sh OUT TAG colio-bench-arguments...   (from the repository root, after scripts/build.sh openmpi)
set -u
source docs/data/launch.sh
out=$1 tag=$2; shift 2; mkdir -p "$out"
for mode in def tp dir; do
  case $mode in def) h="";; tp) h="+romio_cb_read=enable+romio_cb_write=enable";; dir) h="+romio_cb_read=disable+romio_cb_write=disable";; esac
  rm -f "$out/$tag.$mode.jsonl"
  launch openmpi build/openmpi/bench/colio-bench "$@" --engine "colio:colio_stats=$out/$tag.$mode.jsonl$h" >/dev/null 2>&1
  python3 - "$out/$tag.$mode.jsonl" $mode <<'P'
import json,sys,statistics as st
rows={}
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d['rank']!=0 or d['bytes']<100000: continue
    rows.setdefault('w' if 'write' in d['op'] else 'r',[]).append(d)
for k,v in rows.items():
    v=v[len(v)//2:]
    m=lambda f: st.median([x[f] for x in v])
    print('%s %s %-9s t %.4f pred2p %.4f preddir %.4f | meta %.4f data %.4f io %.4f comp %.4f pieces %d'%(sys.argv[2],k,v[-1]['strategy'],m('time'),m('predicted_two_phase'),m('predicted_direct'),m('meta_exchange'),m('data_exchange'),m('io'),m('compute'),v[-1]['pieces']))
P
done
