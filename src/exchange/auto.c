/*
 * Automatic kernel choice (what Kang et al. SC20 leave as future work, from
 * their Sec. V conclusions): an exchange is all-to-many when the busiest
 * aggregator has at least colio_auto_fanin peers; with small messages (at
 * most colio_auto_msg_max bytes on average) contention and request
 * pile-up dominate. Then two-layer aggregation wins when there are several
 * nodes and some node has several ranks to gather (their Sec. V-B: TAM
 * beats every explicit throttle by shrinking the inter-node exchange to
 * local and I/O aggregators); on one node, or one rank per node, it would
 * only add a hop, and the balanced spread-out kernel with throttling and
 * Issend wins (their Fig. 5a-d). With a small fan-in or large messages,
 * throttling only underuses the network (FLASH-IO, BTIO data: their Fig.
 * 5e-h and the "hybrid" column), so ROMIO's post-all kernel stays.
 * Metadata and data are decided separately by the engine from the same
 * agreement, so every rank decides alike.
 */
#include "exchange/kernels.h"

const colio_xchg_ops_t *colio_xchg_auto(const colio_xchg_auto_in_t *in)
{
    if (in->peers < in->fanin || in->msg_bytes > in->msg_max)
        return &colio_xchg_romio;
    if (in->nnodes >= 2 && in->nprocs > in->nnodes) /* several nodes, one with several ranks */
        return &colio_xchg_tam;
    return &colio_xchg_balanced;
}

const colio_xchg_ops_t *const *colio_xchg_auto_candidates(void)
{
    static const colio_xchg_ops_t *const candidates[] = {&colio_xchg_romio, &colio_xchg_tam, &colio_xchg_balanced,
                                                         NULL};
    return candidates;
}
