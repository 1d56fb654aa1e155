/*
 * Automatic kernel choice (what Kang et al. SC20 leave as future work, from
 * their Sec. V conclusions), re-derived from colio's own measurements
 * (docs/SCALE.md, "The auto rule"): the simulated Cori-like dragonfly and
 * Summit-like fat-tree at 256 to 4,096 ranks and this machine at 2 ranks,
 * E3SM-like and interleaved writes.
 *
 * An exchange is all-to-many when the busiest aggregator has at least
 * colio_auto_fanin peers and messages average at most colio_auto_msg_max
 * bytes. Otherwise ROMIO's post-all kernel stays: with few peers or large
 * messages there is no request pile-up to avoid, and throttling only
 * leaves the network idle (their FLASH-IO and BTIO data, Fig. 5e-h).
 *
 * All-to-many below colio_auto_throttle_from peers: post-all with
 * synchronous sends (issend, their Sec. IV-A). A sender cannot run ahead of
 * its aggregators, so the next exchange's messages do not crowd the one in
 * progress, and nothing waits for a window. From that many peers on (2048
 * by default: a peer is another rank, so a job of more than 2,048 ranks all
 * writing to one aggregator), the balanced spread-out order with the
 * throttle (Alg. 2), where the aggregators' simultaneous flows cost more
 * than windows of colio_throttle. With colio's computation modelled
 * (docs/SCALE.md, "The auto rule"), issend was the fastest kernel up to
 * 1,024 ranks on both simulated networks; balanced was the fastest at 4,096
 * ranks in the runs that charged measured CPU time.
 *
 * TAM is never chosen: in every simulated cell it was 2-3x slower than
 * the best kernel (its local aggregators serialise their node's traffic and
 * the inter-node stage it shrinks is not the bottleneck there); it stays
 * available as colio_exchange=tam. Metadata and data are decided separately
 * by the engine from the same agreement, so every rank decides alike.
 */
#include "exchange/kernels.h"

const colio_xchg_ops_t *colio_xchg_auto(const colio_xchg_auto_in_t *in)
{
    if (in->peers < in->fanin || in->msg_bytes > in->msg_max)
        return &colio_xchg_romio;
    if (in->peers < in->throttle_from)
        return &colio_xchg_issend;
    return &colio_xchg_balanced;
}

const colio_xchg_ops_t *const *colio_xchg_auto_candidates(void)
{
    static const colio_xchg_ops_t *const candidates[] = {&colio_xchg_romio, &colio_xchg_issend, &colio_xchg_balanced,
                                                         NULL};
    return candidates;
}
