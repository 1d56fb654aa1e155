/*
 * The PATTERN phases: after the split every rank knows its bytes in each
 * file domain; one Iallgather of entry counts and one Iallgatherv of
 * (domain, bytes) pairs give every rank TATP's matrix C (Liu et al. Sec.
 * 4.1) -- TAPIOCA's "preliminary MPI_Allgather" (Tessier et al. Sec. 4.1).
 * From it every rank computes the same aggregators (placements that read
 * the pattern) and the placement metrics of the statistics, then posts the
 * counts Ialltoall. A rank that failed earlier still takes part, with no
 * entries; the error is agreed at READY before any data moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/arrays.h"
#include "engine/file.h"
#include "engine/place_step.h"
#include "engine/step.h"

const colio_agg_set_t *colio_op_agg_set(const colio_op_t *op)
{
    const colio_setup_totals_t *w = &op->agree_out.setup.totals;
    const colio_config_t *c = &op->fh->cfg;
    int wide = c->wide.naggs > 0 && colio_place_wide_call(op->args.kind == COLIO_OP_WRITE, w->bytes, w->pieces);
    return wide ? &c->wide : &c->set;
}

/* This rank's row of C: (domain, bytes) for every domain it has data in. */
static void pattern_row(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    op->pat_n = 0;
    for (int j = 0; j < p->naggs && op->err.code == 0; j++) {
        int64_t b = p->to_agg[j].bytes;
        if (b > 0) {
            op->pat_mine[2 * op->pat_n] = j;
            op->pat_mine[2 * op->pat_n + 1] = b;
            op->pat_n++;
        }
    }
    op->pat_words_mine = 2 * op->pat_n;
}

/* The gathered pairs as a pattern (by rank and by domain). */
static int pattern_build(const colio_op_t *op, colio_pattern_t *pat)
{
    int np = op->fh->nprocs;
    int64_t nnz = 0;
    for (int r = 0; r < np; r++)
        nnz += op->pat_counts[r] / 2;
    memset(pat, 0, sizeof *pat);
    pat->nprocs = np;
    pat->ndom = op->plan.naggs;
    pat->row_start = malloc(sizeof(int64_t) * ((size_t)np + 1));
    pat->dom = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    pat->bytes = malloc(sizeof(int64_t) * (size_t)(nnz > 0 ? nnz : 1));
    if (!pat->row_start || !pat->dom || !pat->bytes)
        return COLIO_ERR_NOMEM;
    int64_t k = 0;
    for (int r = 0; r < np; r++) {
        pat->row_start[r] = k;
        for (int w = 0; w < op->pat_counts[r]; w += 2, k++) {
            pat->dom[k] = (int)op->pat_all[op->pat_displs[r] + w];
            pat->bytes[k] = op->pat_all[op->pat_displs[r] + w + 1];
        }
    }
    pat->row_start[np] = k;
    return colio_pattern_index(pat);
}

/* Aggregators for this pattern and their exchange context. */
static int choose_aggs(colio_op_t *op, const colio_place_input_t *in)
{
    colio_plan_t *p = &op->plan;
    colio_err_t e;
    colio_err_clear(&e);
    p->aggs_owned = malloc(sizeof(int) * (size_t)p->naggs);
    p->xctx_owned = calloc(1, sizeof *p->xctx_owned);
    if (!p->aggs_owned || !p->xctx_owned)
        return COLIO_ERR_NOMEM;
    int rc = colio_place_select(op->fh->cfg.place, in, p->aggs_owned);
    if (rc == COLIO_SUCCESS && colio_xchg_ctx_build(p->xctx_owned, in->topo, p->aggs_owned, p->naggs,
                                                    &op->fh->hints, &e) != 0)
        rc = e.code;
    if (rc != COLIO_SUCCESS)
        return rc;
    p->aggs = p->aggs_owned;
    p->xctx = p->xctx_owned;
    return COLIO_SUCCESS;
}

/* Placement and metrics from the gathered pattern; the file's aggregators when placement ignores it. */
static void place_from_pattern(colio_op_t *op)
{
    colio_file *fh = op->fh;
    colio_plan_t *p = &op->plan;
    colio_pattern_t pat;
    int rc = pattern_build(op, &pat);
    colio_place_input_t in = {.topo = &fh->cfg.topo, .naggs = p->naggs, .per_node = fh->hints.aggs_per_node,
                              .pat = &pat, .group_of_rank = fh->cfg.group_of_rank,
                              .group_first = fh->cfg.group_first, .ngroups = fh->cfg.ngroups};
    if (rc == COLIO_SUCCESS && fh->cfg.place->uses_pattern)
        rc = choose_aggs(op, &in);
    if (rc == COLIO_SUCCESS)
        rc = colio_place_measure(&in, p->aggs, &p->metrics);
    if (rc != COLIO_SUCCESS)
        colio_op_fail(op, rc, "aggregator placement (%s) failed: out of memory", fh->cfg.place->name);
    colio_pattern_free(&pat);
}

/* With the aggregators known: my role, statistics, then the counts. */
static void placed(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    p->my_agg = -1;
    for (int i = 0; i < p->naggs; i++)
        if (p->aggs[i] == op->fh->rank)
            p->my_agg = i;
    op->stats.aggregators = p->naggs;
    op->stats.is_aggregator = p->my_agg >= 0;
    op->phase = COLIO_PH_COUNTS_POST;
}

/* The pattern is gathered for placements that read it, and for the metrics when asked. */
static int wants_pattern(const colio_file *fh)
{
    const colio_hints_t *h = &fh->hints;
    if (fh->nprocs == 1 || h->place_metrics == COLIO_DISABLE)
        return fh->nprocs > 1 && fh->cfg.place->uses_pattern;
    return fh->cfg.place->uses_pattern || h->place_metrics == COLIO_ENABLE || h->stats_path[0] != '\0';
}

/* PLACE: gather the pattern, or place the aggregators at once. */
int colio_step_place(colio_op_t *op)
{
    colio_file *fh = op->fh;
    const colio_agg_set_t *set = colio_op_agg_set(op); /* until a placement that reads the pattern chooses */
    op->plan.aggs = set->aggs;
    op->plan.xctx = &set->xctx;
    if (!wants_pattern(fh)) { /* one rank: nothing to place or move; else metrics not asked for */
        int64_t one = fh->nprocs == 1 ? op->nbytes : 0;
        op->plan.metrics = (colio_place_metrics_t){.max_agg_bytes = one, .min_agg_bytes = one};
        placed(op);
        return COLIO_STEP_NEXT;
    }
    pattern_row(op);
    int rc = colio_coll_allgather(&op->coll, &op->pat_words_mine, 1, MPI_INT, op->pat_counts, op->comm);
    return colio_op_posted(op, rc, "pattern size gather", COLIO_PH_PATTERN_COUNTS);
}

int colio_step_pattern_counts(colio_op_t *op)
{
    colio_file *fh = op->fh;
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    int64_t total = 0;
    for (int r = 0; r < fh->nprocs; r++) {
        op->pat_displs[r] = (int)total;
        total += op->pat_counts[r];
    }
    /* at most 2 * naggs words per rank. Without room to receive, this rank cannot take part in
       the gather and the others would wait for it forever: like TAM's last-resort buffer, abort */
    op->pat_all = malloc(sizeof(int64_t) * (size_t)(total > 0 ? total : 1));
    if (op->pat_all == NULL) {
        fprintf(stderr, "colio: rank %d: out of memory for the %lld-word access pattern, aborting\n", fh->rank,
                (long long)total);
        MPI_Abort(fh->comm, COLIO_ERR_NOMEM);
    }
    int rc = colio_coll_allgatherv(&op->coll, op->pat_mine, op->pat_words_mine, MPI_INT64_T, op->pat_all,
                                   op->pat_counts, op->pat_displs, op->comm);
    return colio_op_posted(op, rc, "access pattern gather", COLIO_PH_PATTERN);
}

int colio_step_pattern(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    if (op->err.code == 0)
        place_from_pattern(op);
    placed(op);
    return COLIO_STEP_NEXT;
}
