/* The hint table: parsing, validation and reporting of every MPI_Info key colio knows. */
#include "base/hints.h"

#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll/coll.h"
#include "exec/exec.h"
#include "exchange/xchg.h"
#include "place/place.h"
#include "store/cost.h"
#include "store/store.h"
#include "subfile/layout.h"
#include "topo/net.h"

typedef colio_hint_def_t hint_def_t;

static int xchg_name_valid(const char *name) { return strcmp(name, "auto") == 0 || colio_xchg_find(name) != NULL; }
static int meta_name_valid(const char *name) { return name[0] == '\0' || xchg_name_valid(name); }
static int place_name_valid(const char *name) { return colio_place_find(name) != NULL; }
static int domain_name_valid(const char *name) { return colio_domain_find(name) != NULL; }
static int store_name_valid(const char *name) { return colio_store_find(name) != NULL; }
static int coll_name_valid(const char *name) { return colio_coll_find(name) != NULL; }
static int executor_name_valid(const char *name) { return colio_exec_find(name) != NULL; }
static int subfiles_valid(const char *spec)
{
    colio_subfiles_spec_t sp;
    return colio_subfiles_parse(spec, &sp) == 0;
}
static int topology_valid(const char *spec) { return colio_net_spec_valid(spec) == 0; }
static int storage_model_valid(const char *spec)
{
    colio_store_figures_t f;
    int given;
    return colio_figures_parse(spec, &f, &given) == 0;
}
static int counts_valid(const char *name)
{
    return strcmp(name, "auto") == 0 || strcmp(name, "dense") == 0 || strcmp(name, "sparse") == 0;
}
static int progress_valid(const char *name)
{
    return strcmp(name, "auto") == 0 || strcmp(name, "none") == 0 || strcmp(name, "thread") == 0;
}

#define F(field) COLIO_HINT_FIELD(field)

static const hint_def_t hint_table[] = {
    {"cb_buffer_size", COLIO_HINT_BYTES, F(cb_buffer_size), 1, (int64_t)1 << 40, NULL, "16777216",
     "the most bytes of file an aggregator handles per two-phase round (its collective buffer), and the "
     "direct path's most per sieved read; colio_round_size chooses within it"},
    {"colio_round_size", COLIO_HINT_BYTES, F(round_size), 0, (int64_t)1 << 40, NULL, "0",
     "bytes of file per two-phase round and per sieved read of the direct path, at most cb_buffer_size; 0: "
     "chosen per file from the storage figures, the ranks and the network (colio_storage_model), as small as "
     "keeps a round's fixed costs (a storage call, a message from each source) under 5% of its time but not "
     "under 1 MiB, so a round's bytes stay in a core's cache while copied and pipelined rounds overlap storage "
     "sooner; cb_buffer_size without a model (colio_storage_model=off). The block and stripe layouts keep their "
     "unit: whole blocks, one stripe a round"},
    {"cb_nodes", COLIO_HINT_INT, F(cb_nodes), 1, INT_MAX, NULL, "one per node (on one node: ceil(sqrt(ranks)), at least two; every rank for writes of pieces under 2 KiB)",
     "number of aggregators (capped at the number of ranks)"},
    {"romio_cb_write", COLIO_HINT_TOGGLE, F(cb_write), 0, 0, NULL, "automatic",
     "collective buffering for writes: enable, disable (direct I/O by each rank), automatic"},
    {"romio_cb_read", COLIO_HINT_TOGGLE, F(cb_read), 0, 0, NULL, "automatic",
     "collective buffering for reads: enable, disable, automatic"},
    {"romio_ds_write", COLIO_HINT_TOGGLE, F(ds_write), 0, 0, NULL, "automatic",
     "aggregators fill holes by read-modify-write of the round's extent: enable, disable, automatic (when "
     "reading and rewriting the extent costs less than one write per covered stretch, by the storage figures; "
     "with colio_storage_model=off, while the average hole is at most 16 KiB)"},
    {"romio_ds_read", COLIO_HINT_TOGGLE, F(ds_read), 0, 0, NULL, "automatic",
     "aggregators read whole extents including holes: enable, disable, automatic"},
    {"striping_unit", COLIO_HINT_BYTES, F(striping_unit), 0, (int64_t)1 << 40, NULL, "0",
     "file-system stripe size; file-domain boundaries are aligned to it"},
    {"striping_factor", COLIO_HINT_INT, F(striping_factor), 0, INT_MAX, NULL, "0",
     "number of stripes (recorded and reported)"},
    {"romio_no_indep_rw", COLIO_HINT_BOOL, F(no_indep_rw), 0, 0, NULL, "false",
     "true: never take the direct (independent) path in automatic mode"},
    {"colio_lock_writes", COLIO_HINT_TOGGLE, F(lock_writes), 0, 0, NULL, "disable",
     "enable (or true): every storage write holds a POSIX byte-range write lock on its bytes, and aggregators "
     "write holes around (no read-modify-write), so another MPI-IO handle's data sieving on the same file (ROMIO "
     "and OMPIO lock the span they read back) cannot carry stale bytes over colio's; automatic: the same while "
     "some rank's view is not one contiguous stretch of the file (agreed at each set_view; an MPI library sieves "
     "only writes that leave holes in the file, so with contiguous views nothing can), no locks otherwise; "
     "libcolio_mpiio sets automatic on every file it takes; disable (or false): no locks"},
    {"direct_write", COLIO_HINT_TOGGLE, F(direct_write), 0, 0, NULL, "automatic",
     "true (or enable): storage writes go to the file system with O_DIRECT (no page cache, the device moves the "
     "bytes, not the rank's core): the whole blocks of each storage call at the file system's direct-I/O alignment "
     "(statx STATX_DIOALIGN, else st_blksize) through a descriptor of their own, the call's unaligned first and "
     "last bytes through the ordinary one, memory off the alignment through an aligned buffer; a call stores "
     "exactly its bytes, and Linux keeps the two descriptors coherent. Where the file system refuses O_DIRECT, "
     "buffered I/O. automatic: O_DIRECT for the storage writes from the size at which the storage figures "
     "(colio_storage_model; the probe measures 8 MiB and 4 KiB direct calls) say one costs less than buffered, "
     "where big direct writes were measured at least 1.25x faster than buffered ones with their fdatasync and "
     "left the core idle; else buffered. "
     "Read at open; false (disable): buffered"},
    {"direct_read", COLIO_HINT_TOGGLE, F(direct_read), 0, 0, NULL, "automatic",
     "true (or enable): storage reads with O_DIRECT as direct_write describes; reads still stop at the end of "
     "file. automatic: as direct_write's, against the buffered reads the probe measured (from the page cache, "
     "so on a local disk mostly buffered). Read at open; false (disable): buffered"},
    {"colio_storage_model", COLIO_HINT_PATH, F(storage_model), 0, 0, storage_model_valid, "probe",
     "how automatic mode chooses between two-phase I/O and the direct path for each call: probe (from a cost "
     "model whose storage figures, cost per call and bandwidth of writes and reads and memory copy bandwidth, "
     "are measured once per file system by a short probe on rank 0 at its first open there, in a scratch file "
     "it unlinks at once, and kept in colio_storage_cache; what a second concurrent stream adds is measured on "
     "a network file system and assumed on a local one, a page cache's; and the same for O_DIRECT calls where "
     "the file system takes them, for direct_write / direct_read automatic), figures "
     "given as write_call=S,write_bw=B,read_call=S,read_bw=B,copy_bw=B,write_streams=X,read_streams=X,"
     "write_call_streams=X,read_call_streams=X,direct_write_bw=B,direct_read_bw=B,direct_write_call=S,"
     "direct_read_call=S,shared=0|1 (seconds per call, bytes per second with k/M/G "
     "suffixes, what a second concurrent stream gives, 0.25-2; keys left out take a parallel file system's "
     "typical figures, and no direct I/O), or off (the fixed rules of colio_direct_min and colio_read_sieve_ratio)"},
    {"colio_storage_cache", COLIO_HINT_PATH, F(storage_cache), 0, 0, NULL, "~/.cache/colio/storage-figures",
     "file that keeps the probe's figures per file system between runs (30 days): empty for "
     "$COLIO_STORAGE_CACHE, else $XDG_CACHE_HOME/colio/storage-figures or ~/.cache/colio/storage-figures; none: "
     "no file (each process probes once per file system)"},
    {"colio_stage_bytes", COLIO_HINT_BYTES, F(stage_bytes), 0, COLIO_COLL_SHM_STAGE, NULL, "1024",
     "a blocking collective write whose rank has one piece of at most this many bytes hands it to the first rank "
     "of its node through node-shared memory (with the call's agreement), and that rank writes its node's pieces "
     "in one storage call per contiguous stretch, then all agree on the result: sixteen ranks' 64-byte pieces "
     "become one 1 KiB write instead of sixteen writes contending for the file; only where colio_agreements=shm "
     "runs the call's agreements through node-shared memory (blocking calls, two ranks or more on a node) and "
     "romio_cb_write is automatic; at most 4096; 0: never"},
    {"colio_express", COLIO_HINT_BOOL, F(express), 0, 0, NULL, "true",
     "true: a blocking collective call whose rank has one contiguous piece (memory of a predefined type, no "
     "operation in flight on the file) moves it and takes part in the call's agreement without colio's "
     "operation machinery, which it enters only where the agreed words ask for more (another rank's pieces, an "
     "error): a 64-byte call costs about one storage call and one agreement; false: every call runs as an "
     "operation from the start (the same bytes and errors; for comparisons)"},
    {"colio_direct_min", COLIO_HINT_BYTES, F(direct_min), 0, INT64_MAX, NULL, "262144",
     "with colio_storage_model=off: automatic mode goes direct (no aggregation) when every rank's pieces average "
     "at least this size (or it has none)"},
    {"colio_typed_min", COLIO_HINT_BYTES, F(typed_min), 0, INT64_MAX, NULL, "1073741824",
     "aggregators move a source's pieces with an MPI derived datatype (no staging copy) when they average at least this many "
     "bytes, else pack them into a staging buffer of at most one round; the default (1 GiB, more than a round's message) "
     "always packs: over shared memory packing took the same time run after run, the datatype 0.93-1.4x that time "
     "(2-64 KiB pieces, MPICH and Open MPI); 2048 was the default before"},
    {"colio_read_sieve_ratio", COLIO_HINT_INT, F(read_sieve_ratio), 0, 1000, NULL, "2",
     "with colio_storage_model=off: automatic reads go independent, each rank sieving its own extent, when all extents add up to at most this many times the bytes read (0: never)"},
    {"colio_exchange", COLIO_HINT_NAME, F(exchange), 0, 0, xchg_name_valid, "auto",
     "data exchange kernel: romio (post all, ascending ranks), issend (the same with synchronous sends), spread "
     "(spread-out, Kang et al. Alg. 1), balanced (balanced spread-out, Alg. 2), pairwise (one partner per step), "
     "rma (one-sided: MPI_Put/MPI_Get into the aggregators' collective buffers in a dynamic window, PSCW per "
     "round; overlapping writes of different data by several ranks are undefined byte by byte), "
     "tam (two-layer aggregation through colio_local_aggregators, Kang et al. Fig. 3d), "
     "auto (chosen per operation from fan-in and message size: romio, issend or balanced, see colio_auto_fanin; never rma or tam)"},
    {"colio_meta_exchange", COLIO_HINT_NAME, F(meta_exchange), 0, 0, meta_name_valid, "(colio_exchange)",
     "metadata (offset/length lists) exchange kernel, same values as colio_exchange"},
    {"colio_throttle", COLIO_HINT_INT, F(throttle), 0, INT_MAX, NULL, "32",
     "spread, balanced: steps per window, i.e. at most this many receives (and sends) in flight per rank; 0 = unlimited"},
    {"colio_node_size", COLIO_HINT_INT, F(node_size), 0, INT_MAX, NULL, "0",
     "emulate nodes of this many consecutive ranks (placement and kernels see them, and the agreement slots of a "
     "file with a duplicate of its own: under MPI_THREAD_MULTIPLE, or with a one-sided kernel); 0 = the nodes MPI "
     "reports"},
    {"colio_auto_fanin", COLIO_HINT_INT, F(auto_fanin), 1, INT_MAX, NULL, "16",
     "auto: an exchange whose busiest aggregator has at least this many peers is all-to-many"},
    {"colio_auto_msg_max", COLIO_HINT_BYTES, F(auto_msg_max), 0, INT64_MAX, NULL, "65536",
     "auto: ... only when messages average at most this many bytes (else romio)"},
    {"colio_auto_throttle_from", COLIO_HINT_INT, F(auto_throttle_from), 1, INT_MAX, NULL, "2048",
     "auto: an all-to-many exchange runs issend below this many peers of its busiest aggregator, balanced (windows of colio_throttle) from it"},
    {"colio_plan_cache", COLIO_HINT_INT, F(plan_cache), 0, 64, NULL, "4",
     "exchange plans kept per file for reuse by identical collective calls, and by calls of the same access "
     "moved by the same amount on every rank (even file domains; reads short of the end of file); 0 = no reuse"},
    {"colio_placement", COLIO_HINT_NAME, F(placement), 0, 0, place_name_valid, "romio",
     "aggregator placement: romio (first rank of each node, round-robin over nodes), greedy (lowest rank "
     "with data in each file domain), shortest / longest (rank nearest to / farthest from the storage target), "
     "topology (TAPIOCA: least C1 + C2 in each file domain), lap (TATP: file domains to ranks by linear "
     "assignment on hop-bytes); all but romio are chosen per operation from the access pattern and keep at "
     "most colio_aggregators_per_node per node"},
    {"colio_place_metrics", COLIO_HINT_TOGGLE, F(place_metrics), 0, 0, NULL, "automatic",
     "placement metrics in the statistics (hop-bytes, busiest link, domain balance, predicted cost): enable, "
     "disable, automatic (when the placement reads the access pattern anyway, or colio_stats is set); they cost "
     "one MPI_Iallgather and one MPI_Iallgatherv per operation with romio placement"},
    {"colio_aggregators_per_node", COLIO_HINT_INT, F(aggs_per_node), 0, INT_MAX, NULL, "0",
     "aggregators per node when cb_nodes is not set, and the most any placement but romio puts on one node; "
     "0: one per node when the job spans several nodes (ROMIO's); on one node ceil(sqrt(ranks)), at least two, "
     "and every rank for writes whose pieces average under 2 KiB (the exchange is then memory copies and "
     "per-piece work, shared out across cores); setting this hint or cb_nodes fixes the count for every call"},
    {"colio_network_probe", COLIO_HINT_BOOL, F(network_probe), 0, 0, NULL, "true",
     "at the first open on a communicator that spans nodes, measure the latency and bandwidth between two of "
     "them (their first ranks ping-pong 8 bytes and 1 MiB: a few milliseconds over TCP, once) for the choice "
     "between two-phase and direct I/O; false: colio_topology's figures (latency=, bandwidth= given there "
     "always win)"},
    {"colio_topology", COLIO_HINT_PATH, F(topology), 0, 0, topology_valid, "flat",
     "network model for placement and metrics: flat, tree:fanout=AxB..., fattree:k=K, "
     "dragonfly:groups=G,routers=R,nodes=N, torus:dims=AxBx...[,psets=P,bridges=Q], or a topology file "
     "path (docs/TOPOLOGY.md); ,latency=S,bandwidth=B,io_bandwidth=B override the defaults"},
    {"colio_domain", COLIO_HINT_NAME, F(domain), 0, 0, domain_name_valid, "even",
     "file-domain layout: even (equal contiguous shares, aligned to striping_unit when set), stripe "
     "(striping_unit stripes, 1 MiB when unset, dealt round-robin to the aggregators, one stripe per round: "
     "ROMIO's Lustre driver), block (equal contiguous shares and rounds aligned to colio_block_size: TAPIOCA)"},
    {"colio_subfiles", COLIO_HINT_NAME, F(subfiles), 0, 0, subfiles_valid, "none",
     "subfiling: a file this open creates is stored as subfiles PATH.sub.0..N-1, PATH holding "
     "their names, stripe and logical size (docs/SUBFILING.md); N subfiles, node (one per node), group:K (one "
     "per K nodes) or ionode (one per storage target of colio_topology). Each subfile's stripes are written by "
     "aggregators of its own group of nodes. An existing file keeps its layout whatever this says; colio reads "
     "a subfiled file with any process count and hints (TAPIOCA Sec. 5.4.2)"},
    {"colio_subfile_stripe", COLIO_HINT_BYTES, F(subfile_stripe), 0, (int64_t)1 << 40, NULL, "0",
     "subfiling: bytes of the logical file dealt to each subfile in turn (round-robin stripes); 0 = "
     "striping_unit when set, else 1 MiB"},
    {"colio_block_size", COLIO_HINT_BYTES, F(block_size), 0, (int64_t)1 << 40, NULL, "0",
     "file-system block size: the block layout's shares and rounds align to it, collective buffers are whole "
     "blocks aligned to it; 0 = the file's st_blksize (then striping_unit for the layout, 4096 for buffers)"},
    {"colio_pipeline", COLIO_HINT_INT, F(pipeline), 0, 2, NULL, "0",
     "collective buffers per aggregator: 2 writes a round to storage (or reads the next one ahead) in a helper "
     "thread while the next round's data exchange runs (TAPIOCA's pipelined buffers; only operations with more "
     "than one round per aggregator, not with colio_exchange=rma); 1 exchanges and accesses storage in turn; "
     "0 (automatic) is 2 where a storage call of the kind waits (the storage figures: at least 50 us a call, as "
     "on a parallel file system or behind a device queue; the default figures without a model) and 1 on a page "
     "cache, whose copies take the core the exchange needs"},
    {"colio_backend", COLIO_HINT_NAME, F(backend), 0, 0, store_name_valid, "posix",
     "storage backend: posix (the file system), fault (posix with injected failures or delays, see colio_fault), "
     "null (keeps nothing: writes are dropped, reads return zeros, the file is endless and never created; each "
     "access sleeps for the time colio_null_latency, _bandwidth and _block give, simulated time under SimGrid "
     "SMPI, nothing by default: TAPIOCA's /dev/null mode)"},
    {"colio_progress", COLIO_HINT_NAME, F(progress), 0, 0, progress_valid, "auto",
     "who moves nonblocking operations: none (only colio calls: test, wait, any later call, like ROMIO), "
     "thread (a progress thread, so I/O overlaps computation; needs MPI_THREAD_MULTIPLE, else "
     "COLIO_ERR_HINT), auto (thread when MPI_THREAD_MULTIPLE is available, else none)"},
    {"colio_agreements", COLIO_HINT_NAME, F(agreements), 0, 0, coll_name_valid, "shm",
     "how each operation's small collectives (error and extent agreement, access pattern, counts) run: shm "
     "(a blocking call's allreduces of up to 248 bytes go through slots in node-shared memory: no message at "
     "all on one node; on several, only the nodes' first ranks exchange messages, log2 of the nodes; everything "
     "else as p2p), p2p (colio's own "
     "schedules of point-to-point messages, log2(p) steps, stepped by every colio call: cheaper per call than "
     "MPI's nonblocking collectives under MPICH and Open MPI, and nonblocking operations overlap computation even "
     "where those do not progress or are linear, as in SimGrid SMPI), mpi (MPI's nonblocking collectives); a file "
     "opened by one rank takes none of them: each agreement is a copy of its own words"},
    {"colio_counts", COLIO_HINT_NAME, F(counts), 0, 0, counts_valid, "auto",
     "how aggregators learn what each rank sends them before the offset/length lists: dense (one alltoall of "
     "four words per rank pair, p^2 in all), sparse (one allreduce of a word per aggregator, then each rank "
     "sends its counts only to the aggregators it has pieces for: O(aggregators) per rank), auto (sparse from 16 "
     "ranks when the aggregators are at most a quarter of them; one-sided kernels always dense; the SimGrid SMPI "
     "build is dense unless sparse is set, which there needs one file's operations in flight at a time)"},
    {"colio_max_outstanding", COLIO_HINT_INT, F(max_outstanding), 1, 4096, NULL, "16",
     "nonblocking operations in flight per file; the next one first completes the oldest in its slot "
     "(each slot is a communicator of its own, and each operation in flight holds its own buffers)"},
    {"colio_io_executor", COLIO_HINT_NAME, F(io_executor), 0, 0, executor_name_valid, "threads",
     "what runs the storage jobs of nonblocking and pipelined operations: threads (the pool of "
     "colio_io_threads), uring (Linux io_uring: the kernel does the I/O, one thread per process reaps the "
     "completions; only for the posix backend without colio_lock_writes, and where liburing was found at "
     "build time and the kernel allows io_uring; every other job goes to threads), inline (no overlap: the "
     "calling thread runs each job when it is issued). Under SimGrid SMPI jobs always run inline"},
    {"colio_stats", COLIO_HINT_PATH, F(stats_path), 0, 0, NULL, "",
     "append one JSON line per operation to this file (empty, 0, none, off, false or disable: no file)"},
};
#undef F

#define N_SHARED ((int)(sizeof hint_table / sizeof hint_table[0]))

/* The plug-ins' own keys: each registry's implementations, in registry order (a key named twice counts once). */
#define MAX_HINTS 128
static const hint_def_t *all_hints[MAX_HINTS];
static int n_hints;
static pthread_once_t hints_merged = PTHREAD_ONCE_INIT;

static void add_hint(const hint_def_t *d)
{
    for (int i = 0; i < n_hints; i++)
        if (strcmp(all_hints[i]->key, d->key) == 0)
            return;
    if (n_hints == MAX_HINTS) { /* a table this size is a build's mistake: say so rather than drop keys */
        fprintf(stderr, "colio: more than %d hint keys; raise MAX_HINTS in api/hints.c\n", MAX_HINTS);
        abort();
    }
    all_hints[n_hints++] = d;
}

static void add_plugin_hints(const hint_def_t *list)
{
    for (; list && list->key; list++)
        add_hint(list);
}

static void merge_hints(void)
{
    for (int i = 0; i < N_SHARED; i++)
        add_hint(&hint_table[i]);
    for (int i = 0; colio_xchg_name(i); i++)
        add_plugin_hints(colio_xchg_find(colio_xchg_name(i))->hints);
    for (int i = 0; colio_store_name(i); i++)
        add_plugin_hints(colio_store_find(colio_store_name(i))->hints);
    for (int i = 0; colio_exec_name(i); i++)
        add_plugin_hints(colio_exec_find(colio_exec_name(i))->hints);
}

/* Every key colio knows, the shared ones first. */
static int hint_count(void)
{
    pthread_once(&hints_merged, merge_hints);
    return n_hints;
}

static const hint_def_t *hint_at(int i) { return all_hints[i]; }

static const char *const toggle_names[] = {"automatic", "enable", "disable"};

static int parse_value(const hint_def_t *d, const char *v, colio_hints_t *h);

void colio_hints_default(colio_hints_t *h)
{
    memset(h, 0, sizeof *h);
    h->cb_buffer_size = 16 << 20;
    h->cb_nodes = 0;
    h->direct_min = 256 << 10;
    h->stage_bytes = 1024; /* 2 ranks, tmpfs: staged 64 B-1 KiB writes gained, 4 KiB did not (PERFORMANCE.md) */
    h->typed_min = (int64_t)1 << 30; /* always pack: faster over shared memory (colio-bench --size medium) */
    h->express = 1;
    h->network_probe = 1;
    h->read_sieve_ratio = 2;
    h->throttle = 32;
    h->auto_fanin = 16;
    h->auto_msg_max = 64 << 10;
    h->auto_throttle_from = 2048;
    h->plan_cache = 4;
    h->aggs_per_node = 0;
    h->max_outstanding = 16;
    strcpy(h->progress, "auto");
    strcpy(h->io_executor, "threads");
    strcpy(h->agreements, colio_coll_default_name());
    h->pipeline = 0;
    h->lock_writes = COLIO_DISABLE; /* the toggles' zero is automatic; libcolio_mpiio asks for that itself */
    strcpy(h->topology, "flat");
    strcpy(h->exchange, "auto");
    strcpy(h->placement, "romio");
    strcpy(h->domain, "even");
    strcpy(h->backend, "posix");
    strcpy(h->subfiles, "none");
    strcpy(h->storage_model, "probe");
    strcpy(h->counts, "auto");
    for (int i = N_SHARED, n = hint_count(); i < n; i++) /* a plug-in's keys: from their default's text */
        parse_value(hint_at(i), hint_at(i)->dflt, h);
}

static const hint_def_t *hint_find(const char *key)
{
    for (int i = 0, n = hint_count(); i < n; i++)
        if (strcmp(hint_at(i)->key, key) == 0)
            return hint_at(i);
    return NULL;
}

static const char *trim(const char *s, char *buf, size_t len)
{
    while (isspace((unsigned char)*s))
        s++;
    snprintf(buf, len, "%s", s);
    size_t n = strlen(buf);
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return buf;
}

/* Integers with an optional binary suffix: 4096, 4k, 16M, 1GiB. */
static int parse_int64(const char *s, int allow_suffix, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno != 0)
        return -1;
    int64_t mult = 1;
    if (allow_suffix && *end) {
        switch (tolower((unsigned char)*end)) {
        case 'k':
            mult = 1 << 10;
            break;
        case 'm':
            mult = 1 << 20;
            break;
        case 'g':
            mult = 1 << 30;
            break;
        default:
            return -1;
        }
        end++;
        if (strcasecmp(end, "ib") == 0 || strcasecmp(end, "b") == 0)
            end += strlen(end);
    }
    if (*end != '\0')
        return -1;
    if (v != 0 && (v > INT64_MAX / mult || v < INT64_MIN / mult))
        return -1;
    *out = (int64_t)v * mult;
    return 0;
}

static int parse_toggle(const char *s, colio_toggle_t *out)
{
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, toggle_names[i]) == 0) {
            *out = (colio_toggle_t)i;
            return 0;
        }
    static const char *const yes[] = {"true", "1", "yes"}, *const no[] = {"false", "0", "no"};
    for (int i = 0; i < 3; i++) { /* a toggle that was a yes/no hint keeps its old words */
        if (strcasecmp(s, yes[i]) == 0)
            return *out = COLIO_ENABLE, 0;
        if (strcasecmp(s, no[i]) == 0)
            return *out = COLIO_DISABLE, 0;
    }
    return strcasecmp(s, "auto") == 0 ? (*out = COLIO_AUTOMATIC, 0) : -1;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"true", "1", "yes", "enable"};
    static const char *const no[] = {"false", "0", "no", "disable"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return *out = 1, 0;
        if (strcasecmp(s, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

static int parse_value(const hint_def_t *d, const char *v, colio_hints_t *h)
{
    char *field = (char *)h + d->offset;
    int64_t n;
    switch (d->kind) {
    case COLIO_HINT_BYTES:
    case COLIO_HINT_INT:
        if (parse_int64(v, d->kind == COLIO_HINT_BYTES, &n) != 0 || n < d->min || n > d->max)
            return -1;
        if (d->kind == COLIO_HINT_BYTES)
            *(int64_t *)field = n;
        else
            *(int *)field = (int)n;
        return 0;
    case COLIO_HINT_TOGGLE:
        return parse_toggle(v, (colio_toggle_t *)field);
    case COLIO_HINT_BOOL:
        return parse_bool(v, (int *)field);
    case COLIO_HINT_NAME:
    case COLIO_HINT_PATH:
        if (strlen(v) >= d->size || (d->valid && !d->valid(v)))
            return -1;
        strcpy(field, v);
        return 0;
    }
    return -1;
}

int colio_hints_set(colio_hints_t *h, const char *key, const char *value, colio_err_t *err)
{
    char kbuf[MPI_MAX_INFO_KEY + 1], vbuf[MPI_MAX_INFO_VAL + 1];
    const hint_def_t *d = hint_find(trim(key, kbuf, sizeof kbuf));
    if (d == NULL)
        return COLIO_SUCCESS; /* unknown keys are ignored, as MPI-IO does */
    if (parse_value(d, trim(value, vbuf, sizeof vbuf), h) != 0) /* writes nothing on a bad value */
        return colio_err_set(err, COLIO_ERR_HINT, "hint %s: invalid value \"%s\" (see docs/HINTS.md)", d->key, vbuf);
    return COLIO_SUCCESS;
}

static int apply_info(colio_hints_t *h, MPI_Info info, colio_err_t *err)
{
    int nkeys = 0;
    if (info == MPI_INFO_NULL)
        return COLIO_SUCCESS;
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_ARG, "invalid MPI_Info object");
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int vlen, flag;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get_valuelen(info, key, &vlen, &flag);
        if (!flag)
            continue;
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        int rc = colio_hints_set(h, key, value, err);
        if (rc != COLIO_SUCCESS)
            return rc;
    }
    return COLIO_SUCCESS;
}

/* COLIO_HINTS="key=value;key=value" */
static int apply_env(colio_hints_t *h, colio_err_t *err)
{
    const char *env = getenv("COLIO_HINTS");
    if (env == NULL || *env == '\0')
        return COLIO_SUCCESS;
    char *copy = strdup(env), *save = NULL;
    if (copy == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "COLIO_HINTS: out of memory");
    int rc = COLIO_SUCCESS;
    for (char *item = strtok_r(copy, ";", &save); item && rc == 0; item = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            char tmp[128];
            if (trim(item, tmp, sizeof tmp)[0] == '\0')
                continue;
            rc = colio_err_set(err, COLIO_ERR_HINT, "COLIO_HINTS: \"%s\" is not key=value", tmp);
            break;
        }
        *eq = '\0';
        rc = colio_hints_set(h, item, eq + 1, err);
    }
    free(copy);
    return rc;
}

int colio_hints_apply(colio_hints_t *h, MPI_Info info, colio_err_t *err)
{
    colio_hints_t tmp = *h;
    int rc = apply_info(&tmp, info, err);
    if (rc == COLIO_SUCCESS)
        rc = apply_env(&tmp, err);
    if (rc == COLIO_SUCCESS)
        *h = tmp;
    return rc;
}

int colio_hints_get(const colio_hints_t *h, const char *key, char *out, int outlen)
{
    const hint_def_t *d = hint_find(key);
    if (d == NULL)
        return COLIO_ERR_ARG;
    const char *field = (const char *)h + d->offset;
    switch (d->kind) {
    case COLIO_HINT_BYTES:
        snprintf(out, outlen, "%lld", (long long)*(const int64_t *)field);
        break;
    case COLIO_HINT_INT:
        snprintf(out, outlen, "%d", *(const int *)field);
        break;
    case COLIO_HINT_TOGGLE:
        snprintf(out, outlen, "%s", toggle_names[*(const colio_toggle_t *)field]);
        break;
    case COLIO_HINT_BOOL:
        snprintf(out, outlen, "%s", *(const int *)field ? "true" : "false");
        break;
    case COLIO_HINT_NAME:
    case COLIO_HINT_PATH:
        snprintf(out, outlen, "%s", field);
        break;
    }
    return COLIO_SUCCESS;
}

int colio_hints_report(const colio_hints_t *h, int naggs, const char *key, char *out, int outlen)
{
    int rc = colio_hints_get(h, key, out, outlen);
    if (rc == COLIO_SUCCESS && strcmp(key, "cb_nodes") == 0)
        snprintf(out, outlen, "%d", naggs);
    if (rc == COLIO_SUCCESS && strcmp(key, "colio_meta_exchange") == 0 && out[0] == '\0')
        snprintf(out, outlen, "%s", h->exchange);
    return rc;
}

const char *colio_hints_key(int i, const char **doc, const char **dflt)
{
    if (i < 0 || i >= hint_count())
        return NULL;
    if (doc)
        *doc = hint_at(i)->doc;
    if (dflt)
        *dflt = hint_at(i)->dflt;
    return hint_at(i)->key;
}

