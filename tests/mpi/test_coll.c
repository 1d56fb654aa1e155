/*
 * The agreement implementations (src/coll, hint colio_agreements): every
 * collective of each implementation against MPI's blocking collective on the
 * same random inputs (allgatherv against the inputs regenerated from every
 * rank's seed), on the whole communicator and on every smaller
 * prefix of it (so 4 launched ranks also cover 1, 2 and 3), stepped to
 * completion by tests (with a rank computing in between) or by a wait.
 * Consecutive collectives share one tag without synchronising in between.
 * shm runs with slots in node-shared memory on the communicator (its
 * allreduces there: the communicator as one node, and as nodes of two ranks
 * and of one, whose first ranks meet by p2p), with slots on another
 * communicator and with none (p2p for everything then), and with
 * allreduces too large for a slot or of an operation that does not commute.
 * solo (a one-rank file's agreements) runs the same checks on one rank.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "testutil.h"

#define TAG 20000

static int use_wait; /* complete by colio_coll_wait, else by test loops */
static colio_coll_shm_t *seg_now; /* the slots objects are given (shm only) */

static void complete(colio_coll_t *c, int rc, MPI_Comm comm, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%s %s: start returned %d", c->ops->name, what, rc);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (use_wait) {
        rc = colio_coll_wait(c);
    } else {
        int done = 0;
        for (int spins = 0; !done && rc == MPI_SUCCESS; spins++) {
            rc = colio_coll_test(c, &done);
            if (rank == 1 && spins < 3)
                usleep(1000); /* one rank late: the others must test without it */
        }
    }
    CHECK(rc == MPI_SUCCESS, "%s %s: completion returned %d", c->ops->name, what, rc);
    CHECK(!colio_coll_pending(c), "%s %s: still pending after completion", c->ops->name, what);
}

/* inout = in: the result of a reduction with it is the lowest rank's input (order of a non-commuting op). */
static void keep_left(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    memcpy(inout, in, sizeof(int64_t) * (size_t)*len);
}

static void fill(int64_t *v, int n, unsigned *seed)
{
    for (int i = 0; i < n; i++)
        v[i] = (int64_t)rand_r(seed) - RAND_MAX / 2;
}

static MPI_Op keep_known; /* keep_left again, named to colio_coll_local_op: combined without MPI; never freed */

static void check_allreduce(const colio_coll_ops_t *ops, MPI_Comm comm, int rank, MPI_Op keep, int N)
{
    int64_t in[40], got[40], want[40];
    unsigned seed = 7u + (unsigned)rank;
    MPI_Op ops_tried[] = {MPI_MIN, MPI_SUM, MPI_MAX, keep, keep_known};
    for (int k = 0; k < 5; k++) {
        colio_coll_t c;
        colio_coll_init(&c, ops, TAG, seg_now);
        fill(in, N, &seed);
        memset(got, 0, sizeof got);
        memset(want, 0, sizeof want);
        complete(&c, colio_coll_allreduce(&c, in, got, N, MPI_INT64_T, ops_tried[k], comm), comm, "allreduce");
        MPI_Allreduce(in, want, N, MPI_INT64_T, ops_tried[k], comm);
        CHECK(memcmp(got, want, sizeof got) == 0, "%s allreduce of %d words (op %d) differs from MPI_Allreduce",
              ops->name, N, k);
    }
}

static void check_bcast(const colio_coll_ops_t *ops, MPI_Comm comm, int rank, int size)
{
    for (int root = 0; root < size; root++) {
        char got[40], want[40];
        for (int i = 0; i < 40; i++)
            got[i] = want[i] = (char)(rank == root ? 'a' + (i + root) % 26 : 0);
        colio_coll_t c;
        colio_coll_init(&c, ops, TAG, seg_now);
        complete(&c, colio_coll_bcast(&c, got, 40, MPI_CHAR, root, comm), comm, "bcast");
        MPI_Bcast(want, 40, MPI_CHAR, root, comm);
        CHECK(memcmp(got, want, sizeof got) == 0, "%s bcast from %d differs from MPI_Bcast", ops->name, root);
    }
}

static void check_allgather(const colio_coll_ops_t *ops, MPI_Comm comm, int rank, int size)
{
    int mine = 1000 + rank * 3, got[8], want[8];
    colio_coll_t c;
    colio_coll_init(&c, ops, TAG, seg_now);
    complete(&c, colio_coll_allgather(&c, &mine, 1, MPI_INT, got, comm), comm, "allgather");
    MPI_Allgather(&mine, 1, MPI_INT, want, 1, MPI_INT, comm);
    CHECK(memcmp(got, want, sizeof(int) * (size_t)size) == 0, "%s allgather differs", ops->name);

    /* uneven counts, some zero, blocks placed in reverse rank order with gaps */
    int counts[8], displs[8], total = 0;
    for (int j = size - 1; j >= 0; j--) {
        counts[j] = (j * 5 + 3) % 7;
        displs[j] = total + (j < size - 1); /* a gap before every block but the first */
        total = displs[j] + counts[j];
    }
    int64_t in[8], *g = calloc((size_t)total + 1, sizeof *g), *w = calloc((size_t)total + 1, sizeof *w);
    for (int j = 0; j < size; j++) { /* every rank's input, regenerated from its seed */
        unsigned seed = 99u + (unsigned)j;
        fill(w + displs[j], counts[j], &seed);
    }
    memcpy(in, w + displs[rank], sizeof *in * (size_t)counts[rank]);
    colio_coll_init(&c, ops, TAG, seg_now);
    complete(&c, colio_coll_allgatherv(&c, in, counts[rank], MPI_INT64_T, g, counts, displs, comm), comm,
             "allgatherv");
    for (int i = 0; i <= total; i++)
        CHECK(g[i] == w[i], "%s allgatherv on %d ranks differs at word %d: %lld, expected %lld", ops->name, size, i,
              (long long)g[i], (long long)w[i]);
    free(g);
    free(w);
}

static void check_alltoall(const colio_coll_ops_t *ops, MPI_Comm comm, int rank, int size)
{
    for (int n = 0; n <= 3; n++) {
        int64_t in[8 * 3], got[8 * 3], want[8 * 3];
        unsigned seed = 5u + (unsigned)(rank * 10 + n);
        fill(in, size * n, &seed);
        memset(got, 0, sizeof got);
        memset(want, 0, sizeof want);
        colio_coll_t c;
        colio_coll_init(&c, ops, TAG, seg_now);
        complete(&c, colio_coll_alltoall(&c, in, n, MPI_INT64_T, got, comm), comm, "alltoall");
        MPI_Alltoall(in, n, MPI_INT64_T, want, n, MPI_INT64_T, comm);
        CHECK(memcmp(got, want, sizeof got) == 0, "%s alltoall of %d words differs", ops->name, n);
    }
}

/* Several collectives back to back on one tag, completed only at the end (one at a time per object). */
static void check_back_to_back(const colio_coll_ops_t *ops, MPI_Comm comm, int rank, int size)
{
    int64_t a[2] = {rank, -rank}, r1[2], r2[2];
    colio_coll_t c;
    colio_coll_init(&c, ops, TAG, seg_now);
    complete(&c, colio_coll_allreduce(&c, a, r1, 2, MPI_INT64_T, MPI_MAX, comm), comm, "allreduce 1");
    a[0] = 2 * rank;
    complete(&c, colio_coll_allreduce(&c, a, r2, 2, MPI_INT64_T, MPI_MAX, comm), comm, "allreduce 2");
    CHECK(r1[0] == size - 1 && r1[1] == 0 && r2[0] == 2 * (size - 1) && r2[1] == 0,
          "%s back-to-back allreduce: %lld %lld %lld %lld", ops->name, (long long)r1[0], (long long)r1[1],
          (long long)r2[0], (long long)r2[1]);
}

/* Many allreduces in a row, a different rank late each time: consecutive ones reuse shm's two rows of slots. */
static void check_many(const colio_coll_ops_t *ops, MPI_Comm comm, int rank, int size)
{
    colio_coll_t c;
    colio_coll_init(&c, ops, TAG, seg_now);
    for (int k = 0; k < 40; k++) {
        int in[3] = {rank * k, k - rank, rank == k % size}, got[3] = {-1, -1, -1};
        if (rank == k % size && k % 3 == 0)
            usleep(200);
        complete(&c, colio_coll_allreduce(&c, in, got, 3, MPI_INT, MPI_SUM, comm), comm, "allreduce in a row");
        int want0 = k * size * (size - 1) / 2, want1 = k * size - size * (size - 1) / 2;
        CHECK(got[0] == want0 && got[1] == want1 && got[2] == 1, "%s allreduce %d in a row: %d %d %d, expected %d %d 1",
              ops->name, k, got[0], got[1], got[2], want0, want1);
    }
}

/* colio's local reduction against MPI's: the int64 builtins, a named op of colio's, one it leaves to MPI. */
static void check_reduce_local(MPI_Op keep)
{
    int64_t in[9] = {INT64_MIN, -5, -1, 0, 1, 7, INT64_MAX, 3, -9}, got[9], want[9];
    int64_t base[9] = {3, -6, 2, 0, -1, 7, -4, 3, 12};
    MPI_Op tried[] = {MPI_MIN, MPI_MAX, MPI_SUM, keep_known, keep, MPI_PROD};
    for (int k = 0; k < 6; k++) {
        memcpy(got, base, sizeof got), memcpy(want, base, sizeof want);
        int small = k == 2 || k == 5; /* sums and products: words that do not overflow; else all, INT64_MIN too */
        const int64_t *from = small ? in + 1 : in;
        int n = small ? 5 : 9;
        CHECK(colio_coll_reduce_local(from, got, n, MPI_INT64_T, tried[k]) == MPI_SUCCESS, "reduce_local %d", k);
        MPI_Reduce_local(from, want, n, MPI_INT64_T, tried[k]);
        CHECK(memcmp(got, want, sizeof got) == 0, "colio_coll_reduce_local (op %d) differs from MPI_Reduce_local", k);
    }
    int a[3] = {4, -2, 9}, b[3] = {1, 5, -7}, w[3];
    memcpy(w, b, sizeof w);
    MPI_Reduce_local(a, w, 3, MPI_INT, MPI_MIN);
    CHECK(colio_coll_reduce_local(a, b, 3, MPI_INT, MPI_MIN) == MPI_SUCCESS && memcmp(b, w, sizeof w) == 0,
          "another type goes to MPI");
}

/* solo beyond what the common checks reach at one rank: a block placed at a displacement, buffers in place. */
static void check_solo(MPI_Comm self)
{
    int64_t in[3] = {7, -8, 9}, out[6] = {0};
    int counts[1] = {3}, displs[1] = {2};
    colio_coll_t c;
    colio_coll_init(&c, &colio_coll_solo, TAG, NULL);
    complete(&c, colio_coll_allgatherv(&c, in, 3, MPI_INT64_T, out, counts, displs, self), self, "allgatherv");
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 7 && out[3] == -8 && out[4] == 9 && out[5] == 0,
          "solo allgatherv at displacement 2: %lld %lld %lld %lld %lld %lld", (long long)out[0], (long long)out[1],
          (long long)out[2], (long long)out[3], (long long)out[4], (long long)out[5]);
    int64_t words[2] = {4, -4};
    complete(&c, colio_coll_allreduce(&c, MPI_IN_PLACE, words, 2, MPI_INT64_T, MPI_SUM, self), self, "in place");
    CHECK(words[0] == 4 && words[1] == -4, "solo allreduce in place changed its words: %lld %lld",
          (long long)words[0], (long long)words[1]);
    complete(&c, colio_coll_allreduce(&c, words, words, 2, MPI_INT64_T, MPI_MIN, self), self, "in == out");
    CHECK(words[0] == 4 && words[1] == -4, "solo allreduce with in == out changed its words");
}

/*
 * Two levels, the allreduce among the nodes failing on every node's first
 * rank: every rank of every node returns an error (the others through the
 * published result, negated), and the next allreduce is whole again.
 */
static void check_leaders_fail(colio_coll_shm_t *seg, MPI_Comm comm, int size)
{
    if (!seg->two_level)
        return;
    seg->fail_leaders_at = seg->started + 1;
    colio_coll_t c;
    colio_coll_init(&c, &colio_coll_shm, TAG, seg);
    int64_t in = 1, out = 0;
    int rc = colio_coll_allreduce(&c, &in, &out, 1, MPI_INT64_T, MPI_SUM, comm);
    if (rc == MPI_SUCCESS)
        rc = colio_coll_wait(&c);
    int failed = rc != MPI_SUCCESS, everywhere = 0;
    MPI_Allreduce(&failed, &everywhere, 1, MPI_INT, MPI_MIN, comm);
    CHECK(everywhere == 1, "a failure among the nodes reached every rank (here: rc %d)", rc);
    CHECK(!colio_coll_pending(&c), "nothing pending after the failure");
    seg->fail_leaders_at = 0;
    colio_coll_init(&c, &colio_coll_shm, TAG, seg);
    rc = colio_coll_allreduce(&c, &in, &out, 1, MPI_INT64_T, MPI_SUM, comm);
    if (rc == MPI_SUCCESS)
        rc = colio_coll_wait(&c);
    CHECK(rc == MPI_SUCCESS && out == size, "the allreduce after the failure: rc %d, sum %lld of %d", rc,
          (long long)out, size);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Op keep;
    MPI_Op_create(keep_left, 0, &keep);
    MPI_Op_create(keep_left, 0, &keep_known);
    colio_coll_local_op(keep_known, keep_left);
    check_reduce_local(keep);
    check_solo(MPI_COMM_SELF);
    /* shm five times: slots on the communicator as one node, as nodes of two ranks and of one (two levels:
       the nodes' first ranks meet by p2p), slots on another communicator (WORLD's), none */
    const char *names[] = {"mpi", "p2p", "shm", "shm", "shm", "shm", "shm"};
    static colio_coll_shm_t world_seg, segs[3];
    const int node_sizes[3] = {0, 2, 1};
    CHECK(colio_coll_shm_create(MPI_COMM_WORLD, 0, &world_seg) == MPI_SUCCESS, "slots on MPI_COMM_WORLD");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int size = 1; size <= t_nprocs; size++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, t_rank < size ? 0 : MPI_UNDEFINED, t_rank, &comm);
        if (comm == MPI_COMM_NULL)
            continue;
        for (int k = 0; k < 3; k++)
            CHECK(colio_coll_shm_create(comm, node_sizes[k], &segs[k]) == MPI_SUCCESS, "slots on %d ranks, nodes of %d",
                  size, node_sizes[k]);
        CHECK(segs[1].two_level == (size > 2) && segs[2].two_level == (size > 1), "two levels where several nodes");
        MPI_Barrier(comm); /* orders the zeroing of the slots before their use */
        for (use_wait = 0; use_wait <= 1; use_wait++)
            for (int i = 0; i < 7 + (size == 1); i++) { /* one rank: solo too (a one-rank file's agreements) */
                const char *name = i < 7 ? names[i] : "solo";
                const colio_coll_ops_t *ops = i < 7 ? colio_coll_find(name) : &colio_coll_solo;
                CHECK(ops != NULL, "no implementation %s", name);
                if (!ops)
                    continue;
                seg_now = i >= 2 && i <= 4 ? &segs[i - 2] : i == 5 && size < t_nprocs ? &world_seg : NULL;
                check_allreduce(ops, comm, t_rank, keep, 9);
                check_allreduce(ops, comm, t_rank, keep, 40); /* more than a slot holds */
                check_bcast(ops, comm, t_rank, size);
                check_allgather(ops, comm, t_rank, size);
                check_alltoall(ops, comm, t_rank, size);
                check_back_to_back(ops, comm, t_rank, size);
                check_many(ops, comm, t_rank, size);
            }
        seg_now = NULL;
        check_leaders_fail(&segs[1], comm, size);
        check_leaders_fail(&segs[2], comm, size);
        for (int k = 0; k < 3; k++) { /* the allreduces that fit went through the slots */
            CHECK(segs[k].started > 0, "no allreduce through the slots of nodes of %d", node_sizes[k]);
            colio_coll_shm_free(&segs[k]);
        }
        MPI_Comm_free(&comm);
    }
    CHECK(world_seg.started == 0, "%lld allreduces on other communicators went through WORLD's slots",
          (long long)world_seg.started);
    colio_coll_shm_free(&world_seg);
    CHECK(colio_coll_find("nonesuch") == NULL, "unknown name found");
    CHECK(colio_coll_find("solo") == NULL, "solo found by name: colio_agreements could pick it for several ranks");
    MPI_Op_free(&keep); /* keep_known stays: colio's table names it until MPI_Finalize */
    return test_finish("test_coll");
}
