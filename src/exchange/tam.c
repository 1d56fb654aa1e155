/*
 * Two-layer aggregation, TAM (Kang et al. SC20, Sec. II and IV, Fig. 3d):
 * the ranks of a node are cut into groups, each led by a local aggregator
 * (LA, exchange/ctx.c builds la_of[]); a member hands its messages for
 * other nodes' aggregators to its LA, and only LAs and I/O aggregators talk
 * across nodes, which throttles the inter-node exchange implicitly.
 *
 * Routing: the "member side" of a message is its sender when aggregators
 * receive (up: writes, metadata), its receiver otherwise (down: read data).
 * A message goes direct (tag+0) when its member side m is an LA or the
 * other end is la_of[m]; else it goes through L = la_of[m]. An LA thus never
 * copies into its own (possibly derived-type) receive buffer.
 *
 * Up:   member --header (tag+1), messages (tag+2)--> L --one segment per
 *       destination (tag+3)--> aggregator, which receives the segment
 *       straight into its message buffers with one struct datatype.
 * Down: member --header of expected messages (tag+1)--> L; aggregator
 *       --one segment per LA (tag+3, struct over its send buffers)--> L
 *       --each member's piece (tag+2)--> member.
 * The LA's coalesce buffer is laid out [peer ascending][member ascending]
 * (peer: destination up, aggregator down) in both directions, and a segment
 * is the concatenation over members in ascending rank, which is also the
 * order the other end lists its messages in (sorted by peer).
 *
 * Every TAM message (tag+2, tag+3) is one MPI message, even above 2 GiB:
 * byte runs that long are described by a datatype of 1 GiB blocks, so the
 * number of requests never depends on sizes and the engine can reserve them
 * before its agreement on allocation failures (tam_requests).
 *
 * Deadlock freedom: at start every rank posts everything that does not
 * depend on another rank's data: direct sends and receives, headers (both
 * sides), a member's routed sends (up) or receives (down), a receiver's
 * segment receives (up) and an aggregator's segment sends (down). The only
 * requests posted later are an LA's: its gather (after all its headers
 * arrived) and its forward (after the gather completed); refused its
 * coalesce buffer, it runs gather and forward one peer at a time through a
 * spare buffer, each gather after the previous forward completed. Headers depend on
 * nothing but the members having started; gathers match requests the
 * members and aggregators posted at start; forwards match receives posted at
 * start. So no wait is in a cycle, provided every rank runs the same
 * sequence of exchanges as its group: the metadata exchange and, with tam
 * as data kernel, every round (round.c makes rounds dense for the ranks of
 * groups of two or more; a rank alone in its group meets others only in
 * rounds it has messages in). Messages of consecutive exchanges on one tag
 * match in order (MPI non-overtaking).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hints.h"
#include "exchange/kernels.h"

enum { TAG_DIRECT = 0, TAG_HEADER = 1, TAG_MEMBER = 2, TAG_SEGMENT = 3 };

/* What an LA's requests [first, end) are; ST_ALL: nothing left to post. */
enum { ST_HEADERS, ST_GATHER, ST_FORWARD, ST_ALL };

#define CHUNK ((int64_t)1 << 30)

/* One exchange's state, carved from the exchange's reserved scratch. */
typedef struct tam {
    int stage, first, end;         /* LA: the stage awaited and its requests */
    int la, nmembers, hwords;      /* my LA; LA: members but itself; header words (1 + 2 naggs) */
    int *members;                  /* LA: member ranks, ascending */
    int64_t *hdr_out;              /* member: my header: n, (peer, len) x n */
    int64_t *hdrs;                 /* LA: members' headers, hwords each */
    int64_t *entry_off;            /* LA: coalesce offset of each header entry, naggs per member */
    int64_t *seg_start, *seg_len;  /* LA: per peer, its segment in the coalesce buffer */
    int64_t *keys;                 /* messages grouped by LA; LA: layout cursors (nprocs) */
    int nel;                       /* struct builder: elements so far (room for nprocs) */
    int *bl;
    MPI_Aint *disp;
    MPI_Datatype *types;
    unsigned char *owned;          /* element type built here, freed after use */
    char *addr0;                   /* the first element's buffer */
    char *coal;                    /* LA: coalesce buffer, every peer's segment at seg_start */
    char *spare;                   /* LA refused the coalesce buffer: one segment at a time, at 0 */
    int lo, hi;                    /* LA: the peers [lo, hi) gathered and forwarded now */
} tam_t;

/* ---- layout of the state in the reserved scratch ------------------------------- */

typedef struct carver {
    char *base;
    size_t used;
} carver_t;

static void *carve(carver_t *c, size_t bytes)
{
    c->used = (c->used + 15) & ~(size_t)15;
    void *p = c->base ? c->base + c->used : NULL;
    c->used += bytes;
    return p;
}

/* The ranks other than `rank` whose LA is `rank`, ascending; their count. */
static int group_members(const colio_xchg_ctx_t *c, int rank, int *members)
{
    int n = 0;
    for (int r = 0; c->la_of && r < c->nprocs; r++)
        if (r != rank && c->la_of[r] == rank) {
            if (members)
                members[n] = r;
            n++;
        }
    return n;
}

/* Carve the state of `rank` from base (NULL: only measure); the bytes it takes. */
static size_t carve_state(const colio_xchg_ctx_t *c, int rank, char *base, tam_t **t_p)
{
    size_t p = (size_t)c->nprocs, h = 1 + 2 * (size_t)c->naggs;
    size_t g = c->group_size && c->group_size[rank] > 0 ? (size_t)c->group_size[rank] - 1 : 0;
    carver_t cv = {base, 0};
    tam_t *t = carve(&cv, sizeof *t);
    int *members = carve(&cv, sizeof(int) * g);
    int64_t *hdr_out = carve(&cv, sizeof(int64_t) * h), *hdrs = carve(&cv, sizeof(int64_t) * h * g);
    int64_t *entry_off = carve(&cv, sizeof(int64_t) * (size_t)c->naggs * g);
    int64_t *seg_start = carve(&cv, sizeof(int64_t) * p), *seg_len = carve(&cv, sizeof(int64_t) * p);
    int64_t *keys = carve(&cv, sizeof(int64_t) * p);
    int *bl = carve(&cv, sizeof(int) * p);
    MPI_Aint *disp = carve(&cv, sizeof(MPI_Aint) * p);
    MPI_Datatype *types = carve(&cv, sizeof(MPI_Datatype) * p);
    unsigned char *owned = carve(&cv, p);
    if (base) {
        *t = (tam_t){.la = c->la_of ? c->la_of[rank] : rank, .nmembers = (int)g, .hwords = (int)h,
                     .members = members, .hdr_out = hdr_out, .hdrs = hdrs, .entry_off = entry_off,
                     .seg_start = seg_start, .seg_len = seg_len, .keys = keys, .bl = bl, .disp = disp,
                     .types = types, .owned = owned};
        group_members(c, rank, members);
        *t_p = t;
    }
    return cv.used;
}

static size_t tam_scratch_bytes(const colio_xchg_ctx_t *c, int rank) { return carve_state(c, rank, NULL, NULL); }

/* A rank that leads or belongs to a group of two or more forwards or has headers every round. */
static int tam_grouped(const colio_xchg_ctx_t *c, int rank)
{
    return c->la_of && (c->la_of[rank] != rank || c->group_size[rank] > 1);
}

static int64_t tam_requests(const colio_xchg_ctx_t *c, int rank)
{
    int64_t g = c->group_size && c->group_size[rank] > 0 ? c->group_size[rank] - 1 : 0;
    /* my header; a segment per LA (receiver up, aggregator down); an LA's headers,
       its gather and forward (a message per member and aggregator, a segment per aggregator) */
    return 1 + c->nla + g + 2 * (g * c->naggs + c->naggs);
}

/* ---- posting ------------------------------------------------------------------- */

static int post_raw(colio_xchg_t *x, void *buf, int count, MPI_Datatype type, int peer, int kind, int tagoff)
{
    if (colio_xchg_reserve(x, 1) != 0) /* reserved by the engine: never fails there */
        return COLIO_ERR_NOMEM;
    MPI_Request *r = &x->reqs[x->nreqs];
    int tag = x->tag + tagoff, rc;
    if (kind == COLIO_XCHG_RECV)
        rc = MPI_Irecv(buf, count, type, peer, tag, x->comm, r);
    else
        rc = MPI_Isend(buf, count, type, peer, tag, x->comm, r);
    if (rc != MPI_SUCCESS)
        return COLIO_ERR_MPI;
    x->nreqs++;
    x->nmsgs++;
    return 0;
}

/* len bytes (len > INT_MAX) as one datatype of 1 GiB blocks and a remainder. */
static int big_bytes_type(int64_t len, MPI_Datatype *t)
{
    MPI_Datatype chunk;
    int64_t q = len / CHUNK, rem = len % CHUNK;
    int bl[2] = {(int)q, (int)rem};
    MPI_Aint disp[2] = {0, (MPI_Aint)(q * CHUNK)};
    if (MPI_Type_contiguous((int)CHUNK, MPI_BYTE, &chunk) != MPI_SUCCESS)
        return COLIO_ERR_MPI;
    MPI_Datatype types[2] = {chunk, MPI_BYTE};
    int rc = MPI_Type_create_struct(rem ? 2 : 1, bl, disp, types, t);
    MPI_Type_free(&chunk);
    return rc == MPI_SUCCESS ? 0 : COLIO_ERR_MPI;
}

/* The struct builder: one MPI message made of several buffers (absolute addresses). */
static void builder_reset(tam_t *t) { t->nel = 0; }

static int builder_add(tam_t *t, char *buf, int64_t len, MPI_Datatype type)
{
    int i = t->nel++;
    if (i == 0)
        t->addr0 = buf;
    MPI_Get_address(buf, &t->disp[i]);
    t->owned[i] = 0;
    t->bl[i] = 1;
    t->types[i] = type;
    if (type != MPI_BYTE) /* a derived type over buf describes the message (at most 1 GiB) */
        return 0;
    if (len <= INT_MAX) {
        t->bl[i] = (int)len;
        return 0;
    }
    t->owned[i] = 1;
    return big_bytes_type(len, &t->types[i]);
}

static void builder_free(tam_t *t)
{
    for (int i = 0; i < t->nel; i++)
        if (t->owned[i])
            MPI_Type_free(&t->types[i]);
    t->nel = 0;
}

/* Post the built buffers as one message; a struct type is freed at once (MPI keeps it while in use). */
static int builder_post(colio_xchg_t *x, tam_t *t, int peer, int kind, int tagoff)
{
    int rc = 0;
    if (t->nel == 1 && !t->owned[0]) {
        rc = post_raw(x, t->addr0, t->types[0] == MPI_BYTE ? t->bl[0] : 1, t->types[0], peer, kind, tagoff);
    } else if (t->nel > 0) {
        MPI_Datatype st;
        if (MPI_Type_create_struct(t->nel, t->bl, t->disp, t->types, &st) != MPI_SUCCESS)
            rc = COLIO_ERR_MPI;
        else {
            if (MPI_Type_commit(&st) != MPI_SUCCESS)
                rc = COLIO_ERR_MPI;
            else
                rc = post_raw(x, MPI_BOTTOM, 1, st, peer, kind, tagoff);
            MPI_Type_free(&st);
        }
    }
    builder_free(t);
    return rc;
}

/* One buffer as one message. */
static int post_single(colio_xchg_t *x, tam_t *t, char *buf, int64_t len, MPI_Datatype type, int peer, int kind,
                       int tagoff)
{
    builder_reset(t);
    int rc = builder_add(t, buf, len, type);
    if (rc != 0) {
        builder_free(t);
        return rc;
    }
    return builder_post(x, t, peer, kind, tagoff);
}

/* ---- routing ------------------------------------------------------------------- */

/* The LA a message src -> dst goes through, or -1 when it goes direct. */
static int routed_via(const colio_xchg_t *x, int src, int dst)
{
    const int *la = x->ctx->la_of;
    int m = x->to_aggs ? src : dst, other = x->to_aggs ? dst : src;
    return la[m] == m || la[m] == other ? -1 : la[m];
}

static int msg_via(const colio_xchg_t *x, const colio_xchg_msg_t *m, int send)
{
    return send ? routed_via(x, x->rank, m->peer) : routed_via(x, m->peer, x->rank);
}

/* Direct messages: every receive, then every send, as ROMIO posts them. */
static int post_direct(colio_xchg_t *x)
{
    for (int i = 0; i < x->nrecvs; i++)
        if (msg_via(x, &x->recvs[i], 0) < 0 && colio_xchg_post_tag(x, &x->recvs[i], COLIO_XCHG_RECV, TAG_DIRECT) != 0)
            return COLIO_ERR_MPI;
    for (int i = 0; i < x->nsends; i++)
        if (msg_via(x, &x->sends[i], 1) < 0 && colio_xchg_post_tag(x, &x->sends[i], COLIO_XCHG_SEND, TAG_DIRECT) != 0)
            return COLIO_ERR_MPI;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * The segments at the non-LA end: receives from each LA (up) or sends to
 * each LA (down), one struct type per LA over my messages routed through it,
 * in ascending peer order.
 */
static int post_segments(colio_xchg_t *x, tam_t *t, const colio_xchg_msg_t *msgs, int n, int send)
{
    int nk = 0, rc = 0;
    for (int i = 0; i < n; i++) {
        int via = msg_via(x, &msgs[i], send);
        if (via >= 0)
            t->keys[nk++] = ((int64_t)via << 32) | i;
    }
    qsort(t->keys, (size_t)nk, sizeof *t->keys, by_key); /* by LA, then by peer (msgs are sorted) */
    for (int a = 0; a < nk && rc == 0;) {
        int via = (int)(t->keys[a] >> 32);
        builder_reset(t);
        for (; a < nk && (int)(t->keys[a] >> 32) == via && rc == 0; a++) {
            const colio_xchg_msg_t *m = &msgs[t->keys[a] & 0xffffffff];
            rc = builder_add(t, m->buf, m->len, m->type);
        }
        rc = rc ? (builder_free(t), rc) : builder_post(x, t, via, send ? COLIO_XCHG_SEND : COLIO_XCHG_RECV, TAG_SEGMENT);
    }
    return rc;
}

/*
 * Member: the header of my routed messages (sends up, expected receives
 * down), then the messages themselves with my LA on tag+2, ascending peer.
 */
static int member_start(colio_xchg_t *x, tam_t *t)
{
    const colio_xchg_msg_t *msgs = x->to_aggs ? x->sends : x->recvs;
    int n = x->to_aggs ? x->nsends : x->nrecvs, k = 0, rc;
    for (int i = 0; i < n; i++) {
        if (msg_via(x, &msgs[i], x->to_aggs) < 0)
            continue;
        if (2 * k + 3 > t->hwords) /* more peers than aggregators: not an exchange of the engine */
            return COLIO_ERR_ARG;
        t->hdr_out[1 + 2 * k] = msgs[i].peer;
        t->hdr_out[2 + 2 * k] = msgs[i].len;
        k++;
    }
    t->hdr_out[0] = k;
    rc = post_raw(x, t->hdr_out, 1 + 2 * k, MPI_INT64_T, t->la, COLIO_XCHG_SEND, TAG_HEADER);
    for (int i = 0; i < n && rc == 0; i++)
        if (msg_via(x, &msgs[i], x->to_aggs) >= 0)
            rc = post_single(x, t, msgs[i].buf, msgs[i].len, msgs[i].type, t->la,
                             x->to_aggs ? COLIO_XCHG_SEND : COLIO_XCHG_RECV, TAG_MEMBER);
    return rc;
}

/* ---- the local aggregator's stages ---------------------------------------------- */

static int la_post_headers(colio_xchg_t *x, tam_t *t)
{
    t->stage = ST_HEADERS;
    t->first = x->nreqs;
    for (int m = 0; m < t->nmembers; m++)
        if (post_raw(x, t->hdrs + (size_t)m * t->hwords, t->hwords, MPI_INT64_T, t->members[m], COLIO_XCHG_RECV,
                     TAG_HEADER) != 0)
            return COLIO_ERR_MPI;
    t->end = x->nreqs;
    return 0;
}

static int64_t *header(const tam_t *t, int m) { return t->hdrs + (size_t)m * t->hwords; }
static int64_t *entry_off(const tam_t *t, const colio_xchg_t *x, int m) { return t->entry_off + (size_t)m * x->ctx->naggs; }

/* Check what members announced (a bad header would corrupt memory, not just data). */
static int headers_valid(const colio_xchg_t *x, const tam_t *t)
{
    for (int m = 0; m < t->nmembers; m++) {
        const int64_t *h = header(t, m);
        if (h[0] < 0 || 2 * h[0] + 1 > t->hwords)
            return 0;
        for (int64_t k = 0; k < h[0]; k++)
            if (h[1 + 2 * k] < 0 || h[1 + 2 * k] >= x->nprocs || h[2 + 2 * k] <= 0)
                return 0;
    }
    return 1;
}

/* The coalesce layout [peer][member]: each peer's segment and each entry's offset; total bytes. */
static int64_t la_layout(colio_xchg_t *x, tam_t *t)
{
    int64_t total = 0;
    memset(t->seg_len, 0, sizeof(int64_t) * (size_t)x->nprocs);
    for (int m = 0; m < t->nmembers; m++)
        for (int64_t k = 0, *h = header(t, m); k < h[0]; k++)
            t->seg_len[h[1 + 2 * k]] += h[2 + 2 * k];
    for (int p = 0; p < x->nprocs; p++) {
        t->seg_start[p] = t->keys[p] = total;
        total += t->seg_len[p];
    }
    for (int m = 0; m < t->nmembers; m++) /* members ascending within each peer */
        for (int64_t k = 0, *h = header(t, m); k < h[0]; k++) {
            entry_off(t, x, m)[k] = t->keys[h[1 + 2 * k]];
            t->keys[h[1 + 2 * k]] += h[2 + 2 * k];
        }
    return total;
}

/* Where peer p's segment lies now, and where entry k of member m lies in it. */
static char *seg_at(const tam_t *t, int p) { return t->spare ? t->spare : t->coal + t->seg_start[p]; }

static char *entry_at(const colio_xchg_t *x, const tam_t *t, int m, int64_t k)
{
    int p = (int)header(t, m)[1 + 2 * k];
    return seg_at(t, p) + (entry_off(t, x, m)[k] - t->seg_start[p]);
}

/* The next batch of peers after the current one: all of them at once, or one segment at a time; 0: none left. */
static int next_batch(const colio_xchg_t *x, tam_t *t)
{
    if (t->spare == NULL) {
        if (t->hi > 0)
            return 0;
        t->lo = 0, t->hi = x->nprocs;
        return 1;
    }
    for (int p = t->hi; p < x->nprocs; p++)
        if (t->seg_len[p] > 0) {
            t->lo = p, t->hi = p + 1;
            return 1;
        }
    return 0;
}

static int in_batch(const tam_t *t, int64_t p) { return p >= t->lo && p < t->hi; }

/*
 * Gather the batch. Up: each member's messages for the batch's peers (a
 * member sends them in ascending peer order, the order batches come in);
 * down: each aggregator's segment.
 */
static int la_gather(colio_xchg_t *x, tam_t *t)
{
    int rc = 0;
    t->stage = ST_GATHER;
    t->first = x->nreqs;
    for (int m = 0; m < t->nmembers && x->to_aggs; m++)
        for (int64_t k = 0, *h = header(t, m); k < h[0] && rc == 0; k++)
            if (in_batch(t, h[1 + 2 * k]))
                rc = post_single(x, t, entry_at(x, t, m, k), h[2 + 2 * k], MPI_BYTE, t->members[m], COLIO_XCHG_RECV,
                                 TAG_MEMBER);
    for (int p = t->lo; p < t->hi && !x->to_aggs && rc == 0; p++)
        if (t->seg_len[p] > 0)
            rc = post_single(x, t, seg_at(t, p), t->seg_len[p], MPI_BYTE, p, COLIO_XCHG_RECV, TAG_SEGMENT);
    t->end = x->nreqs;
    colio_xchg_note_inflight(x);
    return rc;
}

/*
 * Forward the gathered batch. Up: one segment per destination; down: each
 * member's pieces, in ascending aggregator order (the order it posted its
 * receives in). With the spare buffer, the next batch waits for these sends.
 */
static int la_forward(colio_xchg_t *x, tam_t *t)
{
    int rc = 0;
    t->stage = ST_FORWARD;
    t->first = x->nreqs;
    for (int p = t->lo; p < t->hi && x->to_aggs && rc == 0; p++)
        if (t->seg_len[p] > 0)
            rc = post_single(x, t, seg_at(t, p), t->seg_len[p], MPI_BYTE, p, COLIO_XCHG_SEND, TAG_SEGMENT);
    for (int m = 0; m < t->nmembers && !x->to_aggs; m++)
        for (int64_t k = 0, *h = header(t, m); k < h[0] && rc == 0; k++)
            if (in_batch(t, h[1 + 2 * k]))
                rc = post_single(x, t, entry_at(x, t, m, k), h[2 + 2 * k], MPI_BYTE, t->members[m], COLIO_XCHG_SEND,
                                 TAG_MEMBER);
    t->end = x->nreqs;
    if (t->spare == NULL)
        t->stage = ST_ALL; /* the last batch: its sends complete with the rest */
    colio_xchg_note_inflight(x);
    return rc;
}

/*
 * No coalesce buffer (out of memory, or colio_fault=coalesce:N): gather and
 * forward one peer's segment at a time through a spare buffer of the largest
 * segment, slower but with every byte right (forwarding anything else would
 * hand aggregators wrong run lists). Not even that: nothing can keep the
 * peers going.
 */
static void la_spare(colio_xchg_t *x, tam_t *t)
{
    int64_t most = 0;
    for (int p = 0; p < x->nprocs; p++)
        most = t->seg_len[p] > most ? t->seg_len[p] : most;
    t->spare = malloc((size_t)most);
    if (t->spare == NULL) {
        fprintf(stderr, "colio: tam: out of memory for a %lld-byte segment at rank %d\n", (long long)most, x->rank);
        MPI_Abort(x->comm, 1);
    }
}

/* The coalesce buffer (NULL when out of memory, or refused by colio_fault=coalesce:N for tests). */
static char *coalesce_alloc(const colio_xchg_t *x, int64_t bytes)
{
    const colio_xchg_ctx_t *c = x->ctx;
    if (c->fault_nth > 0 && (c->fault_rank < 0 || c->fault_rank == x->rank) && ++*c->fault_seen == c->fault_nth)
        return NULL;
    return malloc((size_t)bytes);
}

/* Headers arrived: lay out the coalesce buffer and post the first gather. */
static int la_headers_done(colio_xchg_t *x, tam_t *t)
{
    if (!headers_valid(x, t))
        return COLIO_ERR_MPI;
    int64_t total = la_layout(x, t);
    t->lo = t->hi = 0;
    if (total > 0 && (t->coal = coalesce_alloc(x, total)) == NULL)
        la_spare(x, t);
    if (!next_batch(x, t)) {
        t->stage = ST_ALL;
        return 0;
    }
    return la_gather(x, t);
}

/* One step of the LA's stages; *moved when a stage completed. */
static int la_advance(colio_xchg_t *x, tam_t *t, int *moved)
{
    int flag = 1;
    *moved = 0;
    if (t->end > t->first &&
        MPI_Testall(t->end - t->first, x->reqs + t->first, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return COLIO_ERR_MPI;
    if (!flag)
        return 0;
    *moved = 1;
    if (t->stage == ST_HEADERS)
        return la_headers_done(x, t);
    if (t->stage == ST_GATHER)
        return la_forward(x, t);
    if (next_batch(x, t)) /* ST_FORWARD with the spare buffer: it is free again */
        return la_gather(x, t);
    t->stage = ST_ALL;
    return 0;
}

/* ---- the kernel ------------------------------------------------------------------ */

static int tam_start(colio_xchg_t *x)
{
    x->wait_any = 1;
    x->priv = NULL;
    if (x->ctx == NULL || x->ctx->la_of == NULL) /* no groups: every message direct */
        return colio_xchg_post_all(x, COLIO_XCHG_SEND);
    size_t need = carve_state(x->ctx, x->rank, NULL, NULL);
    tam_t *t = NULL;
    if (colio_xchg_reserve_scratch(x, need) != 0) /* reserved by the engine: never fails there */
        return COLIO_ERR_NOMEM;
    carve_state(x->ctx, x->rank, x->scratch, &t);
    x->priv = t;
    t->stage = t->nmembers > 0 ? ST_HEADERS : ST_ALL;
    int rc = post_direct(x);
    if (rc == 0 && t->la != x->rank)
        rc = member_start(x, t);
    if (rc == 0)
        rc = x->to_aggs ? post_segments(x, t, x->recvs, x->nrecvs, 0) : post_segments(x, t, x->sends, x->nsends, 1);
    if (rc == 0 && t->nmembers > 0)
        rc = la_post_headers(x, t);
    colio_xchg_note_inflight(x);
    return rc;
}

static int tam_progress(colio_xchg_t *x, int *done_p)
{
    tam_t *t = x->priv;
    int moved = 1, rc = 0;
    *done_p = 0;
    while (t && t->stage != ST_ALL && moved && rc == 0)
        rc = la_advance(x, t, &moved);
    if (rc != 0)
        return rc;
    if (t && t->stage != ST_ALL)
        return 0;
    return colio_xchg_testall(x, done_p);
}

static void tam_cleanup(colio_xchg_t *x)
{
    tam_t *t = x->priv;
    if (t) {
        free(t->coal);
        free(t->spare);
        t->coal = t->spare = NULL;
    }
    x->priv = NULL;
    x->wait_any = 0;
    colio_xchg_reset(x);
}

static int local_aggs_valid(const char *spec) { return colio_local_aggs_valid(spec) == 0; }

static const colio_hint_def_t tam_hints[] = {
    {"colio_local_aggregators", COLIO_HINT_NAME, COLIO_HINT_FIELD(local_aggs), 0, 0, local_aggs_valid, "*:1",
     "tam: local aggregators, *:N per node or N in all (spread over nodes by size, at least one per node)"},
    {0},
};

const colio_xchg_ops_t colio_xchg_tam = {
    .name = "tam",
    .hints = tam_hints,
    .caps = COLIO_XCHG_RELAYED,
    .start = tam_start,
    .progress = tam_progress,
    .cleanup = tam_cleanup,
    .extra_requests = tam_requests,
    .scratch_bytes = tam_scratch_bytes,
    .every_round = tam_grouped,
};
