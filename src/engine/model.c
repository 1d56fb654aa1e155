/*
 * The cost model (model.h) of two-phase I/O
 * and of the direct path for one call. Both move the same bytes to storage;
 * they differ in how many storage calls carry them and by whom, and in
 * what two-phase adds (agreements, moving the data to aggregators, copies,
 * work per piece). Storage terms come from the probe's figures, message
 * terms from the network model for bytes between nodes and from the memory
 * copy bandwidth inside a node (a shared-memory message is two copies).
 */
#include "engine/model.h"

#include <math.h> /* INFINITY */

#include "access/packed.h" /* the record formats */

/* Seconds per message inside a node (a shared-memory hand-off). */
#define COLIO_NODE_MSG_LATENCY 1e-6
/* CPU seconds the direct path spends per piece beside its storage call (listing it in a job). */
#define COLIO_DIRECT_COST_PER_PIECE 50e-9
/*
 * Copies a message of MBs costs inside a node, in memory copy bandwidth:
 * MPICH and Open MPI between two ranks here reach 2.3-5 GB/s for 16 MiB
 * against memcpy's 10-12 GB/s (shared-memory hand-off, copy in and out).
 */
#define COLIO_NODE_MSG_COPIES 3.0

static double max2(double a, double b) { return a > b ? a : b; }
/* ceil(x) for x >= 0 and log2 rounded up, without libm (colio links no maths library). */
static double ceil_pos(double x)
{
    double t = (double)(int64_t)x;
    return t < x ? t + 1 : t;
}
static double log2_ceil(double x)
{
    double steps = 0;
    for (double v = 1; v < x; v *= 2)
        steps++;
    return steps;
}
static double min2(double a, double b) { return a < b ? a : b; }

/* Per piece of a two-phase call, on average: metadata bytes to its aggregator, CPU seconds per handling. */
typedef struct piece_costs {
    double meta_bytes, cpu;
} piece_costs_t;

/*
 * Four-word records: the runs, and as many more as the split makes where it
 * cuts runs at the edges of rounds (each rank's extent crosses about
 * extent / round_bytes of them, COLIO_SPLIT_PARTS records each), at most a
 * record per piece.
 */
static double run_records(const colio_call_shape_t *s)
{
    double edges = s->round_bytes > 0 ? (double)s->extent_sum / (double)s->round_bytes + s->nprocs : 0;
    return min2((double)s->pieces, (double)s->runs + COLIO_SPLIT_PARTS * edges);
}

/*
 * A record of `words` words (8 bytes each) and COLIO_COST_PER_RECORD per
 * record: one a piece in the packed and two-word formats; in four words
 * run_records of them, and COLIO_COST_PER_PIECE_IN_RUN for each further
 * piece (one loop copies them). Where the shape does not say the format, or
 * not the runs of a four-word call, two words.
 */
static piece_costs_t per_piece(const colio_call_shape_t *s)
{
    int words = s->meta_words > 0 ? s->meta_words : COLIO_META_PIECE_WORDS;
    if (words == COLIO_META_WORDS && (s->runs <= 0 || s->pieces <= 0))
        words = COLIO_META_PIECE_WORDS;
    double records = words == COLIO_META_WORDS ? run_records(s) / (double)s->pieces : 1.0; /* per piece */
    return (piece_costs_t){records * words * (double)sizeof(int64_t),
                           records * COLIO_COST_PER_RECORD + (1 - records) * COLIO_COST_PER_PIECE_IN_RUN};
}

/*
 * How many streams' worth of speed k accessors get, spread over `nodes`
 * nodes, when two on a node give s (0.5: slower together, 1: serialised,
 * 2: independent): 1 + (s - 1)(k - 1) per node, between 1/k... k; on a
 * network file system every node adds its own, on a local one there is one.
 */
static int64_t nodes_used(int64_t k, int nodes) { return nodes < 1 ? 1 : nodes < k ? nodes : k; }
static double per_node(int64_t k, int nodes)
{
    k = k < 1 ? 1 : k;
    return (double)((k + nodes_used(k, nodes) - 1) / nodes_used(k, nodes));
}

static double streams(double s, int64_t k, int nodes, int shared)
{
    if (k < 1)
        k = 1;
    int64_t used = nodes_used(k, nodes);
    double on_node = per_node(k, nodes);
    double node = 1 + (s - 1) * (on_node - 1);
    node = node < 0.25 ? 0.25 : node > on_node ? on_node : node;
    return shared ? node * (double)used : node;
}

/* calls and bytes over k accessors, the busiest making calls_max calls of bytes_max bytes. */
typedef struct storage_load {
    double calls, bytes, calls_max, bytes_max;
    int64_t k;
    int nodes;
} storage_load_t;

int colio_model_reads_at_once(const colio_store_figures_t *f)
{
    return !f->fixed && f->read_call >= COLIO_OVERLAP_CALL ? COLIO_DIRECT_JOBS : 1;
}

int colio_model_pipelines(const colio_store_figures_t *f, int write)
{
    return (write ? f->write_call : f->read_call) >= COLIO_OVERLAP_CALL;
}

/*
 * The share of a node's n calls in flight at once that holds what the
 * bytes need too, when together they run `speed` times as fast as one
 * after another. On a node's own file system: all of it where they gain
 * nothing (serialised, or slower together: the file's lock), none where
 * each runs as if alone (a wait before the call takes the lock: storage
 * behind a delay; or reads of a page cache, each on its own core, where
 * the busiest accessor's term decides anyway), linear in 1/speed between.
 * The probe cannot tell a wait before the lock from one under it (dirty
 * pages throttled while the file is locked): it takes calls that wait
 * for the former. On a file system that many nodes share, all of it: its
 * servers serve the calls and the bytes alike.
 */
static double calls_holding_bytes(double speed, double n, int shared)
{
    if (shared || n <= 1 || speed <= 1)
        return 1;
    double share = (n / speed - 1) / (n - 1);
    return share < 0 ? 0 : share;
}

/*
 * The load's storage time: its busiest accessor's calls and bytes one
 * after another, or all of them over the streams the accessors make,
 * whichever is longer. In the latter the calls add to the bytes' time only
 * by the share of them that holds what the bytes need (calls_holding_bytes:
 * on a node's file system one rank's wait lets another's bytes through the
 * file's lock). Each accessor may have at_once calls waiting at a time
 * (the direct path's reads on storage whose calls wait): their waits
 * overlap, their bytes do not (one core copies them).
 */
static double storage_time_at_once(const colio_store_figures_t *f, int write, const storage_load_t *load, int at_once)
{
    /* a file system of one machine (not shared between nodes) serves every accessor alike, whichever node it
       runs on: the emulated nodes of one machine over its tmpfs (bench/cross-node.sh) */
    storage_load_t one_machine = *load;
    if (!f->shared)
        one_machine.nodes = 1;
    const storage_load_t *l = &one_machine;
    double call = write ? f->write_call : f->read_call, bw = write ? f->write_bw : f->read_bw;
    double s_call = write ? f->write_call_streams : f->read_call_streams;
    double s_bw = write ? f->write_streams : f->read_streams;
    double waves = ceil_pos(l->calls_max / (double)at_once); /* the busiest accessor's calls, at_once at a time */
    double busiest = waves * call + l->bytes_max / bw;
    double in_flight = per_node(l->k * at_once, l->nodes), speed = streams(s_call, l->k * at_once, l->nodes, f->shared);
    double calls = l->calls * call / speed, bytes = l->bytes / bw / streams(s_bw, l->k, l->nodes, f->shared);
    double all = max2(calls, calls * calls_holding_bytes(speed, in_flight, f->shared) + bytes);
    return max2(busiest, all);
}

static double storage_time(const colio_store_figures_t *f, int write, const storage_load_t *l)
{
    return storage_time_at_once(f, write, l, 1);
}

/* The direct path: each rank its own pieces, one call each (writes; reads may sieve instead). */
static void direct_costs(const colio_call_shape_t *s, const colio_store_figures_t *f, colio_model_costs_t *c)
{
    storage_load_t pieces = {(double)s->pieces, (double)s->bytes, (double)s->pieces_max, (double)s->bytes_max,
                             s->nprocs, s->nnodes};
    c->direct_pieces = storage_time_at_once(f, s->write, &pieces, s->write ? 1 : colio_model_reads_at_once(f)) +
                       (double)s->pieces_max * COLIO_DIRECT_COST_PER_PIECE;
    c->direct_sieved = INFINITY;
    if (!s->write) {
        int64_t chunk = s->sieve_bytes > 0 ? s->sieve_bytes : s->round_bytes;
        double rb = (double)(chunk > 0 ? chunk : 1);
        storage_load_t sieved = {(double)s->extent_sum / rb + s->nprocs, (double)s->extent_sum,
                                 ceil_pos((double)s->extent_max / rb), (double)s->extent_max, s->nprocs, s->nnodes};
        c->direct_sieved = storage_time(f, 0, &sieved) + (double)s->bytes_max / f->copy_bw;
    }
    c->direct = min2(c->direct_pieces, c->direct_sieved); /* reads choose per stretch (colio_model_sieve) */
}

/* Seconds per message: inside a node a shared-memory hand-off, between nodes the network's latency. */
static double message_latency(const colio_call_shape_t *s, const colio_net_terms_t *net)
{
    return s->nnodes > 1 ? max2(net->latency, COLIO_NODE_MSG_LATENCY) : COLIO_NODE_MSG_LATENCY;
}

/* Moving bytes to or from one aggregator in `messages` messages: two copies inside its node, the link across. */
static double move_time(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net,
                        double bytes, double messages)
{
    double inside = s->nnodes > 1 ? 1.0 / s->nnodes : 1.0;
    double link = net->bandwidth > 0 ? net->bandwidth : 1e10;
    return bytes * inside * COLIO_NODE_MSG_COPIES / f->copy_bw + bytes * (1 - inside) / link +
           messages * message_latency(s, net);
}

/*
 * The storage of two-phase write rounds that leave holes, as the engine's
 * rule for each round picks (colio_model_sieve_write): a read of every
 * round besides `whole` (its writes of whole rounds), or one write per
 * covered stretch. The stretches a round holds are not known before the
 * lists: at most one more than its holes, each hole at least a byte, and
 * no more than its pieces.
 */
static double holes_cost(const colio_call_shape_t *s, const colio_store_figures_t *f, const storage_load_t *load,
                         double per_agg, double pieces_agg, double whole)
{
    double rounds = load->calls_max, hole_bytes = (double)(s->extent - s->bytes) / (load->k > 1 ? load->k : 1);
    double runs = 1 + min2(pieces_agg, hole_bytes) / rounds;
    if (colio_model_sieve_write(f, load->bytes_max / rounds, per_agg / rounds, runs))
        return whole + storage_time(f, 0, load);
    storage_load_t apart = {load->calls * runs, (double)s->bytes, rounds * runs, per_agg, load->k, load->nodes};
    return storage_time(f, 1, &apart);
}

/* Two-phase I/O: agreements and lists, then per round the exchange, the copies and the aggregators' storage. */
static double two_phase_cost(const colio_call_shape_t *s, const colio_store_figures_t *f,
                             const colio_net_terms_t *net)
{
    double a = s->naggs > 0 ? s->naggs : 1, p = s->nprocs > 0 ? s->nprocs : 1;
    double domain = (double)s->extent / a, per_agg = (double)s->bytes / a, pieces_agg = (double)s->pieces / a;
    double rb = (double)(s->round_bytes > 0 ? s->round_bytes : 1), rounds = ceil_pos(domain / rb);
    rounds = rounds < 1 ? 1 : rounds;
    double agreements = 4 * 2 * log2_ceil(p > 1 ? p : 2) * message_latency(s, net);
    piece_costs_t piece = per_piece(s);
    double lists = pieces_agg * (piece.meta_bytes * 2 / f->copy_bw + piece.cpu);
    double exchange = move_time(s, f, net, per_agg * (p - 1) / p, rounds * min2(p - 1, (double)s->pieces));
    double copies = per_agg / f->copy_bw + (pieces_agg + (double)s->pieces_max) * piece.cpu;
    int aggs_nodes = s->nnodes < s->naggs ? s->nnodes : s->naggs;
    storage_load_t load = {rounds * a, (double)s->extent, rounds, domain, s->naggs, aggs_nodes};
    double store = storage_time(f, s->write, &load);
    if (s->write && s->bytes < s->extent) /* holes: each round fills them or writes around them (holes_cost) */
        store = holes_cost(s, f, &load, per_agg, pieces_agg, store);
    double moving = exchange + copies;
    /* pipelined rounds hide only storage time that waits without the CPU, the calls' own cost (a copy into
       a page cache uses the core the next round's exchange needs: no overlap measured on tmpfs) */
    double waiting = load.calls * (s->write ? f->write_call : f->read_call);
    double overlap = s->pipelined && rounds > 1 ? min2(moving, waiting) * (1 - 1 / rounds) : 0;
    return agreements + lists + moving + store - overlap;
}

void colio_model_costs(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net,
                       colio_model_costs_t *costs)
{
    direct_costs(s, f, costs);
    costs->two_phase = two_phase_cost(s, f, net);
}

double colio_model_direct(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net)
{
    (void)net; /* each rank its own storage calls: no messages */
    colio_model_costs_t c;
    direct_costs(s, f, &c);
    return c.direct;
}

double colio_model_two_phase(const colio_call_shape_t *s, const colio_store_figures_t *f,
                             const colio_net_terms_t *net)
{
    return two_phase_cost(s, f, net);
}

int64_t colio_model_round_bytes(const colio_call_shape_t *s, const colio_store_figures_t *f,
                                   const colio_net_terms_t *net)
{
    int64_t cap = s->round_bytes;
    if (cap <= COLIO_ROUND_CACHE_BYTES)
        return cap;
    double call = s->write ? f->write_call : f->read_call, bw = s->write ? f->write_bw : f->read_bw;
    double sources = s->nprocs > 1 ? s->nprocs - 1 : 0;
    double fixed = call + move_time(s, f, net, 0, sources);     /* per round */
    double per_byte = 1 / bw + (sources > 0 ? move_time(s, f, net, 1, 0) : 1 / f->copy_bw);
    double want = fixed / (COLIO_ROUND_FIXED_SHARE * per_byte);
    if (!(want < (double)cap)) /* also NaN from figures of 0 */
        return cap;
    int64_t bytes = ((int64_t)want + (64 << 10) - 1) / (64 << 10) * (64 << 10); /* whole 64 KiB */
    bytes = bytes < COLIO_ROUND_CACHE_BYTES ? COLIO_ROUND_CACHE_BYTES : bytes;
    return bytes < cap ? bytes : cap;
}

int colio_model_sieve(const colio_store_figures_t *f, double avg_piece, double avg_hole)
{
    /* per piece: a call (calls that wait, several at once), against reading the hole before it and copying the
       piece out (one sieved read at a time: they share the bounce buffer) */
    double call = f->read_call / colio_model_reads_at_once(f);
    return avg_hole / f->read_bw + avg_piece / f->copy_bw < call;
}

int colio_model_sieve_write(const colio_store_figures_t *f, double extent, double covered, double runs)
{
    double rmw = f->read_call + extent / f->read_bw + f->write_call + extent / f->write_bw;
    return rmw < runs * f->write_call + covered / f->write_bw;
}
