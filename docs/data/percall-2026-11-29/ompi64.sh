#!/usr/bin/env bash
# usage: ompi64.sh ROUNDS OUT [hints]
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rounds=$1; out=$2; hints=${3:-colio_express=true}
: > $out
for r in $(seq $rounds); do
  mpiexec.openmpi -n 2 --bind-to core env COLIO_HINTS="$hints" build/openmpi/tools/call-cost /dev/shm/cc.dat 64 20000 5 colio,mpiio,agreed | awk '/write_at_all/ {print $1, $3, $5}' >> $out
done
python3 - $out <<'P'
import sys,statistics as st
d={}
for l in open(sys.argv[1]):
    e,w,r=l.split(); d.setdefault(e,[]).append((float(w),float(r)))
for e,v in d.items(): print(e, 'w %.2f r %.2f'%(st.median([x[0] for x in v]),st.median([x[1] for x in v])), len(v))
c=d['colio'];m=d['mpiio']
print('ratio colio/mpiio per round w', ['%.2f'%(a[0]/b[0]) for a,b in zip(c,m)])
print('ratio colio/mpiio per round r', ['%.2f'%(a[1]/b[1]) for a,b in zip(c,m)])
P
