/*
 * Each file talks on a duplicate of its communicator, so colio's messages
 * never meet the program's. MPI_Comm_dup is a collective (MPICH agrees on a
 * context id with an allreduce); a program that opens and closes files on
 * one communicator over and over gets the duplicate its last closed file
 * used instead. Opens and closes are collective, in the same order on every
 * rank, so every rank finds the same spare.
 */
#ifndef COLIO_CORE_COMMPOOL_H
#define COLIO_CORE_COMMPOOL_H

#include <mpi.h>

typedef struct colio_comm_slot colio_comm_slot_t;

/* Collective over user: a duplicate of user (a spare, or MPI_Comm_dup), and the slot to give it back to. */
int colio_comm_take(MPI_Comm user, MPI_Comm *dup_p, colio_comm_slot_t **slot_p);
/* Collective over *dup: keep it as user's spare (or free it when one is kept already, or user is gone). */
void colio_comm_give_back(colio_comm_slot_t *slot, MPI_Comm *dup);

#endif
