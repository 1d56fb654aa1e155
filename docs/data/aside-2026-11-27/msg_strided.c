/* A strided send (k blocks of B bytes, stride 2B) into contiguous memory 0, 16, 32 bytes past a page: does MPI copy it slowly there? build: mpicc -O2 -o msg_strided msg_strided.c */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int k = 8; int Bs[] = {16384, 65536, 1 << 20};
    char *base = aligned_alloc(4096, (size_t)(2 * k) * (1 << 20) + 8192);
    memset(base, 1, (size_t)(2 * k) * (1 << 20) + 8192);
    for (int bi = 0; bi < 3; bi++) for (int sh = 0; sh <= 32; sh += 16) {
        int B = Bs[bi]; MPI_Datatype t; MPI_Type_vector(k, B, 2 * B, MPI_BYTE, &t); MPI_Type_commit(&t);
        int reps = 200; double best = 1e9;
        for (int l = 0; l < 5; l++) {
            MPI_Barrier(MPI_COMM_WORLD); double t0 = MPI_Wtime();
            for (int r = 0; r < reps; r++) {
                if (rank == 0) { MPI_Send(base, 1, t, 1, 0, MPI_COMM_WORLD); MPI_Recv(base, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
                else { MPI_Recv(base + sh, k * B, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(base, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD); }
            }
            double e = (MPI_Wtime() - t0) / reps; if (e < best) best = e;
        }
        if (rank == 0) printf("%d x %7d B strided -> contiguous at shift %2d: %8.1f us\n", k, B, sh, best * 1e6);
        MPI_Type_free(&t);
    }
    MPI_Finalize();
}
