/*
 * Which path a call takes (docs/DESIGN.md, "Call paths"). At START a rank
 * whose access is one small write stages it, one contiguous piece moves
 * early; at SETUP hints and overlapping pieces may force a path, else the
 * cost model (colio_storage_model: the same figures and agreed words on
 * every rank) picks the cheapest, or without a model the fixed rules do.
 * The predictions go to the statistics.
 */
#include "engine/strategy.h"

#include <string.h>

#include "engine/file.h"
#include "engine/place_step.h"
#include "engine/plan.h"
#include "engine/step.h"

/* The registry: START paths in the order they are tried, then SETUP paths, ties to the first. */
static const colio_path_ops_t *const paths[] = {
    &colio_path_staged,
    &colio_path_early,
    &colio_path_two_phase,
    &colio_path_direct,
};
enum { NPATHS = sizeof paths / sizeof paths[0] };
_Static_assert(NPATHS <= COLIO_STRATEGY_PATHS, "room for every path's prediction");

colio_phase_t colio_strategy_start(colio_op_t *op)
{
    for (int i = 0; i < NPATHS; i++)
        if (paths[i]->at == COLIO_PATH_AT_START && paths[i]->qualifies(op)) {
            op->path = paths[i];
            return paths[i]->enter(op);
        }
    return COLIO_PH_PROPOSE;
}

colio_phase_t colio_strategy_detour(colio_op_t *op, colio_phase_t next)
{
    for (int i = 0; i < NPATHS; i++)
        if (paths[i]->detour)
            next = paths[i]->detour(op, next);
    return next;
}

/* The busiest rank's share and every rank's totals, for the cost model. */
static void chooser_words(const colio_access_t *acc, colio_setup_words_t *w)
{
    int64_t extent = acc->n ? acc->end - colio_access_run(acc, 0).off : 0;
    w->busiest = (colio_setup_busiest_t){-acc->npieces, -acc->nbytes, -extent};
    w->totals = (colio_setup_totals_t){extent, acc->nbytes, acc->npieces, acc->n};
}

void colio_strategy_propose(colio_op_t *op, const colio_proposal_t *p, colio_setup_words_t *w)
{
    chooser_words(p->acc, w);
    for (int i = 0; i < NPATHS; i++)
        if (paths[i]->propose)
            paths[i]->propose(op, p, w);
}

/* The network model's terms (engine/model.h), a node's own without a model. */
static colio_net_terms_t net_terms(const colio_file *fh)
{
    const colio_net_t *net = fh->cfg.topo.net;
    return (colio_net_terms_t){net ? colio_net_latency(net) : 1e-6, net ? colio_net_bandwidth(net) : 10e9};
}

static int file_nodes(const colio_file *fh) { return fh->cfg.topo.nnodes > 0 ? fh->cfg.topo.nnodes : 1; }

/* The call as every rank knows it after SETUP, for the cost model. */
static colio_call_shape_t call_shape(const colio_op_t *op)
{
    const colio_file *fh = op->fh;
    const colio_setup_words_t *w = &op->agree_out.setup;
    return (colio_call_shape_t){
        .write = op->args.kind == COLIO_OP_WRITE,
        .nprocs = fh->nprocs,
        .nnodes = file_nodes(fh),
        .naggs = colio_op_agg_set(op)->naggs,
        .bytes = w->totals.bytes,
        .pieces = w->totals.pieces,
        .runs = w->totals.runs,
        .extent = op->ghi - op->glo,
        .extent_sum = w->totals.extent,
        .pieces_max = -w->busiest.pieces_neg,
        .bytes_max = -w->busiest.bytes_neg,
        .extent_max = -w->busiest.extent_neg,
        .round_bytes = fh->round_bytes[op->args.kind == COLIO_OP_WRITE][0],
        .sieve_bytes = fh->round_bytes[0][1],
        .pipelined = colio_plan_pipelines(op),
        .meta_words = colio_op_meta_words(op),
    };
}

const colio_path_ops_t *colio_strategy_cheapest(const colio_call_shape_t *s, const colio_store_figures_t *f,
                                                const colio_net_terms_t *net, double *costs)
{
    const colio_path_ops_t *best = NULL;
    double best_cost = 0;
    for (int i = 0, k = 0; i < NPATHS; i++) {
        if (paths[i]->at != COLIO_PATH_AT_SETUP || !paths[i]->predict)
            continue;
        double c = paths[i]->predict(s, f, net);
        costs[k++] = c;
        if (best == NULL || c < best_cost)
            best = paths[i], best_cost = c;
    }
    return best;
}

static colio_path_verdict_t verdict(const colio_path_ops_t *p, const colio_op_t *op)
{
    return p->qualifies ? (colio_path_verdict_t)p->qualifies(op) : COLIO_PATH_MAY;
}

/* Without a model: the first path whose rule holds, else the first without a rule. */
static const colio_path_ops_t *by_rules(const colio_op_t *op, const colio_path_ops_t *const *may, int n)
{
    const colio_path_ops_t *fallback = NULL;
    for (int i = 0; i < n; i++) {
        if (may[i]->rule && may[i]->rule(op))
            return may[i];
        if (!may[i]->rule && !fallback)
            fallback = may[i];
    }
    return fallback ? fallback : may[0];
}

/* With the model: the cheapest of those that may serve the call; every prediction to the statistics. */
static const colio_path_ops_t *by_model(colio_op_t *op, const colio_path_ops_t *const *may, int n)
{
    colio_call_shape_t shape = call_shape(op);
    colio_net_terms_t terms = net_terms(op->fh);
    const colio_path_ops_t *best = NULL;
    double best_cost = 0;
    for (int i = 0; i < n; i++) {
        double c = may[i]->predict(&shape, &op->fh->figures, &terms);
        *(double *)((char *)&op->stats + may[i]->predicted) = c;
        if (best == NULL || c < best_cost)
            best = may[i], best_cost = c;
    }
    return best;
}

static const colio_path_ops_t *choose_at_setup(colio_op_t *op)
{
    const colio_path_ops_t *may[NPATHS];
    int n = 0;
    for (int i = 0; i < NPATHS; i++) {
        if (paths[i]->at != COLIO_PATH_AT_SETUP)
            continue;
        colio_path_verdict_t v = verdict(paths[i], op);
        if (v == COLIO_PATH_MUST)
            return paths[i];
        if (v == COLIO_PATH_MAY)
            may[n++] = paths[i];
    }
    if (n == 1)
        return may[0];
    if (op->fh->figures.fixed) /* colio_storage_model=off, or storage without a cost model */
        return by_rules(op, may, n);
    return by_model(op, may, n);
}

colio_phase_t colio_strategy_setup(colio_op_t *op)
{
    op->path = choose_at_setup(op);
    strcpy(op->stats.strategy, op->path->name);
    return op->path->enter(op);
}

/* One of fh->round_bytes; direct: one rank's storage calls, no messages. */
static int64_t choose_round_bytes(const colio_file *fh, int write, int direct)
{
    const colio_hints_t *h = &fh->hints;
    if (h->round_size > 0)
        return h->round_size < h->cb_buffer_size ? h->round_size : h->cb_buffer_size;
    if (fh->figures.fixed)
        return h->cb_buffer_size;
    colio_call_shape_t s = {.write = write, .nprocs = direct ? 1 : fh->nprocs, .nnodes = direct ? 1 : file_nodes(fh),
                            .round_bytes = h->cb_buffer_size};
    colio_net_terms_t terms = net_terms(fh);
    return colio_model_round_bytes(&s, &fh->figures, &terms);
}

void colio_file_choose_rounds(colio_file *fh)
{
    for (int write = 0; write < 2; write++)
        for (int direct = 0; direct < 2; direct++)
            fh->round_bytes[write][direct] = choose_round_bytes(fh, write, direct);
}
