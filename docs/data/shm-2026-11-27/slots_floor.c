/* The floor table of PERFORMANCE.md "Agreements in shared memory": 64-byte pwrite per call alone,
 * with one MPI_Allreduce, with an agreement through slots in a shared window, and the slots alone.
 * mpicc -O2 slots_floor.c; mpiexec -n 2 -bind-to core ./a.out /dev/shm/x.dat */
#include <sched.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <unistd.h>
typedef struct { _Atomic int64_t seq; int64_t val; char pad[48]; } slot_t;
static slot_t *slots; static int rank, np; static int64_t seq;
static int64_t agree(int64_t v){
  int64_t k=++seq; slot_t *row=slots+(k&1)*np;
  row[rank].val=v; atomic_store_explicit(&row[rank].seq,k,memory_order_release);
  int64_t w=v;
  for(int j=0;j<np;j++){ if(j==rank) continue; int spins=0;
    while(atomic_load_explicit(&row[j].seq,memory_order_acquire)!=k){ if(++spins>1000){sched_yield();} else __builtin_ia32_pause(); }
    if(row[j].val>w) w=row[j].val; }
  return w;
}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); MPI_Comm_rank(MPI_COMM_WORLD,&rank); MPI_Comm_size(MPI_COMM_WORLD,&np);
  MPI_Win win; slot_t *base; MPI_Aint sz = rank==0? 2*np*sizeof(slot_t):0;
  MPI_Win_allocate_shared(sz,64,MPI_INFO_NULL,MPI_COMM_WORLD,&base,&win);
  MPI_Aint s; int du; MPI_Win_shared_query(win,0,&s,&du,&slots);
  if(rank==0) for(int i=0;i<2*np;i++){ atomic_store(&slots[i].seq,0);} 
  MPI_Barrier(MPI_COMM_WORLD);
  int fd=open(argv[1],O_CREAT|O_RDWR,0644); char buf[64]={1}; int calls=20000;
  for(int mode=0;mode<4;mode++){ double best=1e9;
   for(int l=0;l<5;l++){ MPI_Barrier(MPI_COMM_WORLD); double t0=MPI_Wtime();
    for(int k=0;k<calls;k++){ long long off=((long long)k*np+rank)*64; int rc=0;
      if(mode!=3) rc = pwrite(fd,buf,64,off)!=64;
      if(mode==1){int w; MPI_Allreduce(&rc,&w,1,MPI_INT,MPI_MAX,MPI_COMM_WORLD);} 
      else if(mode==2||mode==3) agree(rc);
    }
    double t=(MPI_Wtime()-t0)/calls*1e6, m; MPI_Allreduce(&t,&m,1,MPI_DOUBLE,MPI_MAX,MPI_COMM_WORLD); if(m<best)best=m; }
   if(rank==0) printf("%s %.2f us\n", mode==0?"posix":mode==1?"allreduce":mode==2?"shm":"shm-alone", best);}
  MPI_Win_free(&win); MPI_Finalize(); }
