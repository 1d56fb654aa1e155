/*
 * Memory of closed file handles and completed requests, kept for a while
 * before it is freed: a program that calls with a copy of such a pointer
 * then meets a cleared magic word (COLIO_ERR_ARG) rather than freed memory.
 * The most recent COLIO_RETIRE_KEEP retired blocks of each kind stay; the
 * oldest is freed when one more comes. Thread-safe.
 */
#ifndef COLIO_BASE_RETIRE_H
#define COLIO_BASE_RETIRE_H

#include <pthread.h>

#define COLIO_RETIRE_KEEP 16

typedef struct colio_retire {
    pthread_mutex_t lock;
    void *kept[COLIO_RETIRE_KEEP];
    int next; /* where the next block goes (the oldest kept one is freed) */
} colio_retire_t;

#define COLIO_RETIRE_INIT {PTHREAD_MUTEX_INITIALIZER, {0}, 0}

/* p's magic word is already cleared; p stays readable until COLIO_RETIRE_KEEP more are retired. */
void colio_retire(colio_retire_t *r, void *p);

#endif
