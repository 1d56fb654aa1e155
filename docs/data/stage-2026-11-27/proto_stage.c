/* 2+ ranks on one node: (A) each rank pwrites its 64 B then a shm flag rendezvous;
   (B) each copies its 64 B into shm, rendezvous, rank 0 pwrites all, rendezvous. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdatomic.h>
typedef struct { _Atomic long seq; char pad[56]; char data[192]; } slot_t;
static slot_t *slots; static int rank, np; static long seqno;
static void rendezvous(void) {
    long s = ++seqno;
    atomic_store_explicit(&slots[rank].seq, s, memory_order_release);
    for (int j = 0; j < np; j++)
        while (atomic_load_explicit(&slots[j].seq, memory_order_acquire) < s) __builtin_ia32_pause();
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &np);
    int len = argc > 1 ? atoi(argv[1]) : 64, calls = 20000;
    MPI_Win win; void *base;
    MPI_Win_allocate_shared(rank == 0 ? np * sizeof(slot_t) : 0, sizeof(slot_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Aint sz; int du; MPI_Win_shared_query(win, 0, &sz, &du, &slots);
    if (rank == 0) memset(slots, 0, np * sizeof(slot_t));
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open("/dev/shm/stage.dat", O_RDWR | O_CREAT, 0644);
    char buf[4096]; memset(buf, rank + 1, sizeof buf);
    char big[65536];
    for (int loop = 0; loop < 5; loop++) {
        for (int mode = 0; mode < 2; mode++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < calls; k++) {
                long off = ((long)k * np + rank) * len;
                if (mode == 0) {
                    if (pwrite(fd, buf, len, off) != len) abort();
                    rendezvous();
                } else {
                    memcpy(slots[rank].data, buf, len);
                    rendezvous();
                    if (rank == 0) {
                        for (int j = 0; j < np; j++) memcpy(big + j * len, slots[j].data, len);
                        if (pwrite(fd, big, (size_t)len * np, (long)k * np * len) != len * np) abort();
                    }
                    rendezvous();
                }
            }
            double t = (MPI_Wtime() - t0) / calls * 1e6, mx;
            MPI_Reduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0) printf("%s %.2f us  ", mode ? "staged" : "each  ", mx);
        }
        if (rank == 0) printf("\n");
    }
    close(fd);
    MPI_Win_free(&win);
    MPI_Finalize();
}
