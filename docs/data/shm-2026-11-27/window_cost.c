/* MPI_Win_allocate_shared (rank 0 holds 1 KiB) and MPI_Win_free at 2 ranks, three times: the first open's extra cost. */
#include <mpi.h>
#include <stdio.h>
int main(int c,char**v){MPI_Init(&c,&v); int r; MPI_Comm_rank(MPI_COMM_WORLD,&r); MPI_Comm d; MPI_Comm_dup(MPI_COMM_WORLD,&d);
 for(int i=0;i<3;i++){ MPI_Barrier(d); double t0=MPI_Wtime(); MPI_Win w; void*b; MPI_Win_allocate_shared(r?0:1024,256,MPI_INFO_NULL,d,&b,&w); double t1=MPI_Wtime(); MPI_Win_free(&w); double t2=MPI_Wtime();
 if(!r) printf("alloc %.1f us free %.1f us\n",(t1-t0)*1e6,(t2-t1)*1e6);} MPI_Finalize();}
