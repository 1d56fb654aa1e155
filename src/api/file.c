/*
 * File handle life cycle and the collective calls that are not data
 * operations: open, close, set_view, set_info, sync; plus local queries.
 * Every collective call agrees on one error code before it returns.
 */
#include "base/agree.h"
#include "api/open.h"
#include "api/comm_cache.h"
#include "engine/plancache.h"
#include "engine/progress.h"
#include "engine/strategy.h"
#include "place/registry.h"
#include "subfile/groups.h"
#include "subfile/layout.h"

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

#ifdef COLIO_SMPI
#define COLIO_MPI_ADVICE_RMA ""
#else
#include "colio_mpi_settings.h" /* generated: the MPI library's own advice (scripts/mpi/) */
#endif

#include "base/retire.h"

const char *colio_last_open_error(void) { return colio_err_thread_msg(); }

const char *colio_last_error(const colio_file *fh)
{
    return colio_file_valid(fh) ? fh->last_err.msg : colio_err_thread_msg();
}

void colio_open_identity(const colio_file *fh, int64_t id[COLIO_OPEN_ID_WORDS])
{
    int64_t ino = 0, dev = 0;
    const colio_store_ops_t *b = fh->base;
    if (b && b->identity && fh->path && b->identity(fh->path, &ino, &dev) != 0)
        ino = dev = -1; /* gone again, or never there: a file no other rank can have opened */
    id[0] = ino & INT64_MAX; /* never INT64_MIN (the ranges negate it) */
    id[1] = fh->topo_mpi.nnodes == 1 ? dev & INT64_MAX : 0;
}

int colio_open_same(const int64_t lo[COLIO_OPEN_ID_WORDS], const int64_t hi[COLIO_OPEN_ID_WORDS], colio_err_t *err)
{
    for (int i = 0; i < COLIO_OPEN_ID_WORDS; i++)
        if (lo[i] != hi[i])
            return colio_err_set(err, COLIO_ERR_NOT_SAME,
                                 "colio_open: the ranks opened different files (every rank must name the same file)");
    return COLIO_SUCCESS;
}

/* The exchange kernel a hint names; "auto" is resolved per operation (NULL here). */
static int find_kernel(const char *name, const colio_xchg_ops_t **ops)
{
    *ops = strcmp(name, "auto") == 0 ? NULL : colio_xchg_find(name);
    return strcmp(name, "auto") == 0 || *ops != NULL;
}

/* Name of node k in topology files: MPI's processor name, or nodeK for emulated nodes. */
static const char *node_name(const colio_file *fh, const colio_hints_t *h, int k, char *buf, size_t len)
{
    if (h->node_size > 0 || fh->topo_mpi.node_name == NULL) {
        snprintf(buf, len, "node%d", k);
        return buf;
    }
    return fh->topo_mpi.node_name[k];
}

/* The network model the hints name, over the nodes of topo. */
static int config_net(const colio_file *fh, const colio_hints_t *h, colio_topo_t *topo, colio_err_t *err)
{
    int n = topo->nnodes;
    char *buf = malloc((size_t)n * 24);
    const char **names = malloc(sizeof(char *) * (size_t)n);
    if (!buf || !names) {
        free(buf), free(names);
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for the network model");
    }
    for (int k = 0; k < n; k++)
        names[k] = node_name(fh, h, k, buf + (size_t)k * 24, 24);
    colio_net_opts_t opts = {.nnodes = n, .names = names};
    int rc = colio_net_create(h->topology, &opts, &topo->net, err);
    if (rc == COLIO_SUCCESS && h->node_size == 0) /* MPI's nodes: what the probe measured between them */
        colio_net_measured(topo->net, fh->topo_mpi.net_latency, fh->topo_mpi.net_bandwidth);
    free(buf), free(names);
    return rc;
}

/* Nodes as the hints see them: MPI's, or colio_node_size consecutive ranks each; and their network. */
int colio_file_topo(const colio_file *fh, const colio_hints_t *h, colio_topo_t *topo, colio_err_t *err)
{
    int *node_of = malloc(sizeof(int) * (size_t)fh->nprocs);
    if (node_of == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory configuring the file");
    for (int r = 0; r < fh->nprocs; r++)
        node_of[r] = h->node_size > 0 ? r / h->node_size : fh->topo_mpi.node_of[r];
    int rc = colio_topo_from_nodes(fh->nprocs, node_of, topo);
    free(node_of);
    if (rc != 0)
        return colio_err_set(err, rc, "out of memory configuring the file");
    return config_net(fh, h, topo, err);
}

/*
 * A subfiled file: each subfile's aggregators come from its own group of
 * ranks (subfile/groups.h: blocks of nodes, or with colio_subfiles=ionode
 * the nodes of each storage target when the file has one subfile per
 * target) and its domains follow the subfile layout; with
 * more subfiles than ranks there are no groups and the stripe layout deals
 * the same stripes to any aggregator.
 */
static int config_subfiles(const colio_file *fh, const colio_hints_t *h, colio_config_t *cfg, colio_err_t *err)
{
    int n = fh->sub.nsub;
    cfg->domain = colio_domain_find("stripe");
    cfg->group_of_rank = malloc(sizeof(int) * (size_t)fh->nprocs);
    cfg->group_first = malloc(sizeof(int) * ((size_t)n + 1));
    if (!cfg->group_of_rank || !cfg->group_first)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory configuring the subfile groups");
    colio_subfiles_spec_t spec;
    colio_subfiles_parse(h->subfiles, &spec);
    int *by_target = spec.mode == COLIO_SUBFILES_IONODE ? malloc(sizeof(int) * (size_t)cfg->topo.nnodes) : NULL;
    int naggs = by_target && colio_subfile_target_groups(&cfg->topo, n, by_target) == 0
                    ? colio_subfile_groups_by_node(&cfg->topo, n, by_target, h->cb_nodes, h->aggs_per_node,
                                                   cfg->group_of_rank, cfg->group_first)
                    : colio_subfile_groups(&cfg->topo, n, h->cb_nodes, h->aggs_per_node, cfg->group_of_rank,
                                           cfg->group_first);
    free(by_target);
    if (naggs < 0)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory configuring the subfile groups");
    if (naggs == 0) { /* more subfiles than ranks */
        free(cfg->group_of_rank), free(cfg->group_first);
        cfg->group_of_rank = cfg->group_first = NULL;
        return COLIO_SUCCESS;
    }
    cfg->ngroups = n;
    cfg->set.naggs = naggs;
    cfg->domain = &colio_domain_subfile;
    return COLIO_SUCCESS;
}

/* Place in->naggs aggregators and build their exchange context. */
static int agg_set_build(colio_agg_set_t *set, const colio_place_ops_t *place, const colio_place_input_t *in,
                         const colio_hints_t *h, colio_err_t *err)
{
    set->aggs = malloc(sizeof(int) * (size_t)in->naggs);
    if (set->aggs == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory configuring the file");
    if (colio_place_select(place, in, set->aggs) != 0)
        return colio_err_set(err, COLIO_ERR_NOMEM, "aggregator placement (%s) failed", place->name);
    if (colio_xchg_ctx_build(&set->xctx, in->topo, set->aggs, in->naggs, h, err) != 0)
        return err->code;
    set->naggs = in->naggs;
    return COLIO_SUCCESS;
}

static void agg_set_free(colio_agg_set_t *set)
{
    colio_xchg_ctx_free(&set->xctx);
    free(set->aggs);
    memset(set, 0, sizeof *set);
}

int colio_file_configure(const colio_file *fh, const colio_hints_t *h, colio_config_t *cfg, colio_err_t *err)
{
    memset(cfg, 0, sizeof *cfg);
    if (colio_progress_check_hints(h, err) != 0)
        return err->code;
    cfg->place = colio_place_find(h->placement);
    cfg->domain = colio_domain_find(h->domain);
    cfg->coll = colio_coll_find(h->agreements);
    if (cfg->coll && fh->nprocs == 1)
        cfg->coll = &colio_coll_solo; /* every agreement a copy, whatever colio_agreements names */
    int kernels = find_kernel(h->exchange, &cfg->xchg_data) &&
                  find_kernel(h->meta_exchange[0] ? h->meta_exchange : h->exchange, &cfg->xchg_meta);
    if (!cfg->place || !cfg->domain || !cfg->coll || !kernels)
        return colio_err_set(err, COLIO_ERR_HINT, "unknown plug-in name in hints");
    if (colio_file_topo(fh, h, &cfg->topo, err) != 0) {
        colio_config_free(cfg);
        return err->code;
    }
    /* placements that read the access pattern choose per operation; until then (and for the
       exchange context of the file) the aggregators are ROMIO's */
    const colio_place_ops_t *now = cfg->place->uses_pattern ? colio_place_find("romio") : cfg->place;
    cfg->set.naggs = colio_place_count(&cfg->topo, h->cb_nodes, h->aggs_per_node);
    if (fh->sub.nsub > 0 && config_subfiles(fh, h, cfg, err) != 0) {
        colio_config_free(cfg);
        return err->code;
    }
    colio_place_input_t in = {.topo = &cfg->topo, .naggs = cfg->set.naggs, .per_node = h->aggs_per_node,
                              .group_of_rank = cfg->group_of_rank, .group_first = cfg->group_first,
                              .ngroups = cfg->ngroups};
    /* the wide set where calls may take it: every rank, not for subfiled files (their groups keep theirs) */
    colio_place_input_t wide = {.topo = &cfg->topo, .per_node = h->aggs_per_node,
                                .naggs = colio_place_wide_count(&cfg->topo, h->cb_nodes, h->aggs_per_node)};
    int rc = agg_set_build(&cfg->set, now, &in, h, err);
    if (rc == COLIO_SUCCESS && wide.naggs > cfg->set.naggs && fh->sub.nsub == 0)
        rc = agg_set_build(&cfg->wide, now, &wide, h, err);
    if (rc != COLIO_SUCCESS)
        colio_config_free(cfg);
    return rc;
}

/* Whether a kernel the hints name is one-sided (then the file needs its window). */
static int wants_window(const colio_hints_t *h)
{
    const colio_xchg_ops_t *d = colio_xchg_find(h->exchange);
    const colio_xchg_ops_t *m = colio_xchg_find(h->meta_exchange[0] ? h->meta_exchange : h->exchange);
    return (d && (d->caps & COLIO_XCHG_ONESIDED)) || (m && (m->caps & COLIO_XCHG_ONESIDED));
}

/*
 * A file on a duplicate of its own (under MPI_THREAD_MULTIPLE, where files
 * cannot share one; a one-sided kernel's window) keeps agreement slots of
 * its own in node-shared memory, so its blocking calls agree and stage
 * there as those of files on the shared duplicate do (through messages a
 * 64-byte call under MPI_THREAD_MULTIPLE was 2-6x slower:
 * bench/experiments/call_cost.c). MPI lets
 * one thread at a time make a collective call on a file, so the slots see
 * one call at a time, in the same order on every rank. Only with
 * colio_agreements=shm; on colio_node_size's emulated nodes, if it
 * emulates them (tests: the shared duplicate's slots, shared by files of
 * any hints, follow the real ones). Made, remade or given back at open and
 * whenever hints change, once they are agreed (everything this reads is
 * then the same on every rank); not at some later call, where the slots'
 * collectives would block a call that must keep stepping the operations in
 * flight. Collective on fh->comm; 0.1-0.2 ms (docs/PERFORMANCE.md).
 */
static void own_slots(colio_file *fh)
{
    int n = fh->hints.node_size, want = fh->shared == NULL && (fh->cfg.coll->caps & COLIO_COLL_CAP_NODE_SLOTS);
    if (fh->has_own_slots && (!want || fh->own_slots_node_size != n)) {
        colio_coll_shm_free(&fh->own_slots);
        fh->has_own_slots = 0;
    }
    if (want && !fh->has_own_slots) {
        int shared = n > 0 ? n > 1 && fh->nprocs > 1 : fh->topo_mpi.nnodes < fh->topo_mpi.nprocs;
        fh->has_own_slots = colio_coll_shm_create_agreed(fh->comm, n, shared, &fh->own_slots);
        fh->own_slots_node_size = n;
    }
    fh->agree_shm = fh->shared ? fh->shared->shm : fh->has_own_slots ? &fh->own_slots : NULL;
}

/*
 * The file leaves the shared duplicate for one of its own (its window's
 * communicator). Collective on the shared duplicate; every rank moves, or
 * none (a failed duplicate on one rank is agreed first).
 */
static int own_comm(colio_file *fh, colio_err_t *err)
{
    MPI_Comm own = MPI_COMM_NULL;
    int ok = MPI_Comm_dup(fh->comm, &own) == MPI_SUCCESS, all = 0;
    if (colio_allreduce_yielding(&ok, &all, 1, MPI_INT, MPI_MIN, fh->comm) != MPI_SUCCESS || !all) {
        if (ok)
            MPI_Comm_free(&own);
        return err->code ? err->code : colio_err_set(err, COLIO_ERR_MPI, "MPI_Comm_dup for the file's window failed");
    }
    MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
    colio_comm_cache_release(fh->shared);
    fh->shared = NULL;
    fh->agree_shm = NULL; /* slots of its own once the hints are agreed (own_slots) */
    fh->comm = own;
    return err->code;
}

/*
 * One dynamic window per file, only while the hints select a one-sided
 * kernel: operations attach and detach their own memory locally, so no
 * operation needs a collective window call (Open MPI 4's osc/rdma cannot
 * create dynamic windows without a single-copy shared-memory mechanism:
 * then the open fails here, with the MPI library's advice from
 * scripts/mpi/FAMILY-MAJOR.env; see docs/DESIGN.md). Such a file has a
 * duplicate of its own, not the shared one (api/comm_cache.h): MPICH 4.0.2
 * hung one run in six of the rma kernel's PSCW epochs on a reused duplicate.
 */
int colio_config_window(colio_file *fh, const colio_hints_t *h, colio_config_t *cfg, colio_err_t *err)
{
    if (!wants_window(h))
        return err->code;
    if (fh->shared)
        own_comm(fh, err);
    if (fh->shared) /* no duplicate of its own: no window */
        return err->code;
    int rc = MPI_Win_create_dynamic(MPI_INFO_NULL, fh->comm, &cfg->win);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        if (err->code == 0)
            colio_err_set(err, COLIO_ERR_MPI, "MPI_Win_create_dynamic for the rma exchange kernel failed: %s%s", msg,
                          COLIO_MPI_ADVICE_RMA);
        return err->code;
    }
    cfg->has_win = 1;
    MPI_Win_set_errhandler(cfg->win, MPI_ERRORS_RETURN);
    return err->code;
}

void colio_config_free(colio_config_t *cfg)
{
    if (cfg->has_win)
        MPI_Win_free(&cfg->win);
    colio_topo_free(&cfg->topo);
    agg_set_free(&cfg->set);
    agg_set_free(&cfg->wide);
    free(cfg->group_of_rank);
    free(cfg->group_first);
    memset(cfg, 0, sizeof *cfg);
}

/*
 * Rank 0: the storage figures colio_storage_model asks for, as the words an
 * agreement carries: given by the hint, or the backend's (measured once per
 * file system, store/cost.h), or the defaults (off: never used).
 */
static void figures_for(colio_file *fh, const colio_hints_t *h, int64_t w[COLIO_FIGURES_WORDS])
{
    colio_store_figures_t f;
    int given = 0;
    if (colio_figures_parse(h->storage_model, &f, &given) != 0 || !given) {
        colio_figures_default(&f);
        if (strcmp(h->storage_model, "probe") == 0 && fh->store->figures && fh->st)
            fh->store->figures(fh->st, fh->path, h, &f); /* its defaults where it cannot probe */
    }
    f.fixed |= strcmp(h->storage_model, "off") == 0;
    colio_figures_pack(&f, w);
}

static void rank0_figures(colio_file *fh, int64_t w[COLIO_FIGURES_WORDS]) { figures_for(fh, &fh->hints, w); }

/* Every rank adopts rank 0's hints, as ROMIO does, so all plans agree. */
static int hints_from_rank0(colio_file *fh, colio_hints_t *h, colio_err_t *err)
{
    int rc = MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, fh->comm);
    return colio_err_from_mpi(err, rc, "MPI_Bcast of hints");
}

/*
 * Collective: adopt rank 0's candidate hints and the configuration they
 * select. If anything fails on any rank, every rank keeps its previous
 * hints and configuration. The backend and its fault spec stay as chosen at
 * open.
 */
static int adopt_hints(colio_file *fh, colio_hints_t *cand, colio_err_t *err)
{
    memcpy(cand->backend, fh->hints.backend, sizeof cand->backend);
    memcpy(cand->fault, fh->hints.fault, sizeof cand->fault);
    cand->lock_writes = fh->hints.lock_writes; /* read at open, like the backend */
    cand->direct_write = fh->hints.direct_write, cand->direct_read = fh->hints.direct_read;
    colio_config_t cfg = {0};
    int64_t fig[COLIO_FIGURES_WORDS];
    if (hints_from_rank0(fh, cand, err) == 0) {
        colio_file_configure(fh, cand, &cfg, err);
        colio_config_window(fh, cand, &cfg, err); /* every rank: rank 0's hints arrived */
    }
    if (fh->rank == 0 && strcmp(cand->storage_model, fh->hints.storage_model) == 0)
        colio_figures_pack(&fh->figures, fig); /* the same model: the same figures */
    else if (fh->rank == 0)
        figures_for(fh, cand, fig);
    if (colio_err_agree_root(fh->comm, err, fig, COLIO_FIGURES_WORDS) != 0) {
        colio_config_free(&cfg);
        return err->code;
    }
    colio_figures_unpack(fig, &fh->figures);
    if (strcmp(cand->storage_model, fh->hints.storage_model) != 0) /* measured afresh: direct as at open */
        colio_figures_as_direct(&fh->figures, fh->direct_min[0] == 0, fh->direct_min[1] == 0);
    colio_plancache_clear(&fh->plans, &fh->bufs); /* plans point at the old aggregators */
    colio_config_free(&fh->cfg);
    fh->cfg = cfg;
    fh->hints = *cand;
    fh->hints_gen++;
    if (fh->exec) { /* the executor and its helpers as the new hints say, from the next job on */
        colio_exec_unhold(fh->exec);
        fh->exec = NULL;
    }
    own_slots(fh);
    colio_file_choose_rounds(fh);
    colio_progress_file_rehint(fh);
    return COLIO_SUCCESS;
}

/* ---- open ----------------------------------------------------------------------- */

static int check_amode(int amode, colio_err_t *err)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (rw != 1)
        return colio_err_set(err, COLIO_ERR_AMODE, "amode needs exactly one of MPI_MODE_RDONLY, WRONLY, RDWR");
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return colio_err_set(err, COLIO_ERR_AMODE, "MPI_MODE_RDONLY cannot be combined with CREATE or EXCL");
    if (amode & MPI_MODE_SEQUENTIAL)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "MPI_MODE_SEQUENTIAL is not supported");
    return COLIO_SUCCESS;
}

static int store_flags(int amode, int create_here)
{
    int flags = 0;
    if (amode & (MPI_MODE_RDONLY | MPI_MODE_RDWR))
        flags |= COLIO_STORE_READ;
    if (amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR))
        flags |= COLIO_STORE_WRITE;
    if (create_here && (amode & MPI_MODE_CREATE))
        flags |= COLIO_STORE_CREATE;
    if (create_here && (amode & MPI_MODE_EXCL))
        flags |= COLIO_STORE_EXCL;
    return flags;
}

static int open_store(colio_file *fh, int create_here, colio_err_t *err)
{
    int rc = fh->store->open(fh->path, store_flags(fh->amode, create_here), &fh->hints, fh->rank, &fh->st,
                             &fh->readable);
    if (rc == 0)
        return COLIO_SUCCESS;
    fh->st = NULL;
    return colio_err_set(err, colio_err_from_errno(-rc), "colio_open: %s: %s (errno %d)", fh->path, strerror(-rc),
                         -rc);
}

/* Whether PATH names nothing yet (rank 0 before it creates: a failed open removes what it made). */
static int path_is_new(const colio_file *fh)
{
    int64_t ino, dev;
    return fh->base->identity && fh->base->identity(fh->path, &ino, &dev) == -ENOENT;
}

/* Rank 0 creates the file first (honouring EXCL), then everyone opens it. */
static void open_plain(colio_file *fh, colio_err_t *err)
{
    int creating = (fh->amode & MPI_MODE_CREATE) != 0;
    if (creating && fh->rank == 0 && err->code == 0) {
        int is_new = path_is_new(fh);
        fh->made_here = open_store(fh, 1, err) == 0 && is_new;
    }
    if (creating && colio_err_agree(fh->comm, err) != 0)
        return;
    if ((!creating || fh->rank != 0) && err->code == 0)
        open_store(fh, 0, err);
}


static int open_everywhere(colio_file *fh, colio_err_t *err)
{
    if (fh->sub.nsub > 0)
        colio_subfiling_open(fh, store_flags(fh->amode, 1), err);
    else
        open_plain(fh, err);
    if (err->code == 0 && (fh->amode & MPI_MODE_APPEND)) { /* file pointers start at the end */
        int64_t size = 0;
        int rc = fh->store->size(fh->st, &size);
        if (rc != 0)
            colio_err_set(err, colio_err_from_errno(-rc), "colio_open: %s: size query failed", fh->path);
        fh->fp = size;
    }
    if (err->code == 0 && fh->rank == 0 && fh->store->block_size && fh->store->block_size(fh->st, &fh->blksize) != 0)
        fh->blksize = 0; /* a preference only: unknown is fine */
    int64_t facts[1 + COLIO_FIGURES_WORDS] = {fh->blksize};
    if (err->code == 0 && fh->rank == 0)
        rank0_figures(fh, facts + 1);
    int64_t id[COLIO_OPEN_ID_WORDS], lo[COLIO_OPEN_ID_WORDS], hi[COLIO_OPEN_ID_WORDS];
    colio_open_identity(fh, id);
    /* rank 0's block size and storage figures, so every rank plans and chooses alike; which file each opened */
    int rc = colio_err_agree_words(fh->comm, err, facts, 1 + COLIO_FIGURES_WORDS, id, COLIO_OPEN_ID_WORDS, lo, hi);
    fh->blksize = facts[0];
    colio_figures_unpack(facts + 1, &fh->figures);
    return rc != COLIO_SUCCESS ? rc : colio_open_same(lo, hi, err);
}

static int default_view(colio_file *fh, colio_err_t *err)
{
    fh->view.disp = 0;
    fh->view.etype_size = 1;
    fh->view.ftype_owned = 1;
    return colio_flat_create(MPI_BYTE, &fh->view.ftype, err);
}

static void view_free(colio_view_t *v);

static void file_free(colio_file *fh)
{
    if (fh == NULL)
        return;
    colio_progress_file_close(fh);
    if (fh->exec) /* jobs went to the executor (its helpers stay for the next file) */
        colio_exec_unhold(fh->exec);
    if (fh->st)
        fh->store->close(fh->st);
    view_free(&fh->view);
    colio_topo_free(&fh->topo_mpi);
    colio_plancache_clear(&fh->plans, &fh->bufs);
    colio_config_free(&fh->cfg);
    if (fh->own != MPI_COMM_NULL && fh->cache)
        colio_comm_cache_keep(fh->cache, &fh->own, fh->own_id); /* for the next open */
    else if (fh->own != MPI_COMM_NULL)
        MPI_Comm_free(&fh->own);
    if (fh->cache)
        colio_comm_cache_release(fh->cache);
    if (fh->has_own_slots)
        colio_coll_shm_free(&fh->own_slots); /* before its communicator */
    if (fh->shared)
        colio_comm_cache_release(fh->shared);
    else if (fh->comm != MPI_COMM_NULL)
        MPI_Comm_free(&fh->comm);
    colio_pool_free(&fh->bufs);
    colio_subfile_layout_free(&fh->sub);
    free(fh->path);
    fh->path = NULL;
    fh->magic = 0;
    static colio_retire_t retired = COLIO_RETIRE_INIT;
    colio_retire(&retired, fh); /* a copy of the handle kept by the program reads as closed for a while */
}

/* Checks that need no file system access; errors are agreed by the caller. */
static int open_prepare(colio_file *fh, const char *path, int amode, MPI_Info info, colio_err_t *err)
{
    if (fh->no_handle)
        return colio_err_set(err, COLIO_ERR_ARG, "colio_open: NULL handle pointer");
    if (path == NULL || path[0] == '\0')
        return colio_err_set(err, COLIO_ERR_BAD_FILE, "colio_open: empty or NULL path");
    if ((fh->path = strdup(path)) == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "colio_open: out of memory");
    if (check_amode(amode, err) != 0)
        return err->code;
    colio_hints_default(&fh->hints);
    if (colio_hints_apply(&fh->hints, info, err) != 0)
        return err->code;
    if (colio_store_find(fh->hints.backend) == NULL)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_backend: unknown backend %s", fh->hints.backend);
    return default_view(fh, err);
}

/*
 * A hash of the hints as parsed, equal on ranks given the same hints. The
 * struct is about 4 KiB, so four independent lanes of words (a serial chain
 * of multiplies was most of an open's own CPU time), folded at the end.
 */
static int64_t hints_hash_lanes(const colio_hints_t *h)
{
    uint64_t lane[4] = {1469598103934665603ull, 7809847782465536322ull, 3141592653589793238ull, 2718281828459045235ull};
    const unsigned char *p = (const unsigned char *)h;
    size_t i = 0, n = sizeof *h;
    for (; i + 4 * sizeof(uint64_t) <= n; i += 4 * sizeof(uint64_t))
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + k * sizeof w, sizeof w);
            lane[k] = (lane[k] ^ w) * 1099511628211ull;
            lane[k] ^= lane[k] >> 29;
        }
    uint64_t x = lane[0];
    for (int k = 1; k < 4; k++)
        x = (x ^ lane[k]) * 1099511628211ull;
    for (; i < n; i++)
        x = (x ^ p[i]) * 1099511628211ull;
    return (int64_t)(x >> 1); /* never INT64_MIN */
}

/*
 * The hash, remembered for the hints of the last open in this process: a
 * program opens its files with the same hints, and comparing the struct is
 * a quarter of hashing it.
 */
static int64_t hints_hash(const colio_hints_t *h)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static colio_hints_t last;
    static int64_t last_hash = -1;
    pthread_mutex_lock(&lock);
    int64_t hash = last_hash >= 0 && memcmp(&last, h, sizeof *h) == 0 ? last_hash : -1;
    if (hash < 0) {
        hash = hints_hash_lanes(h);
        last = *h, last_hash = hash;
    }
    pthread_mutex_unlock(&lock);
    return hash;
}

/*
 * Reopening an existing file (no CREATE, no APPEND) with a backend that is
 * its own bookkeeping and no one-sided window. Each rank decides from its
 * own hints; the open's one agreement then tells whether every rank did so
 * with the same hints.
 */
static int can_open_quickly(const colio_file *fh)
{
    const colio_store_ops_t *ops = colio_store_find(fh->hints.backend);
    return !(fh->amode & (MPI_MODE_CREATE | MPI_MODE_APPEND)) && ops && ops->bookkeeping == NULL &&
           !wants_window(&fh->hints);
}

/* Rank 0, quick open: whether its first bytes are colio subfile metadata (unreadable: an ordinary file). */
static int64_t head_is_subfiled(colio_file *fh)
{
    char head[64];
    int64_t got = 0;
    if (!fh->readable || colio_store_pread(fh->store, fh->st, head, (int64_t)sizeof head, 0, &got) != 0)
        return 0;
    return colio_subfile_meta_is(head, (size_t)got);
}

/*
 * The open's one agreement, reduced by MIN: errors (those of the checks
 * alone, and with the quick attempt's), the amode and the hints' hash as
 * ranges (MIN of -x is -MAX of x; neither is ever INT64_MIN), whether every
 * rank took the quick way, and rank 0's facts about PATH (INT64_MAX
 * elsewhere).
 */
typedef struct open_words {
    int64_t key, prep_key;
    int64_t amode_lo, amode_hi_neg, hash_lo, hash_hi_neg;
    int64_t own_lo, own_hi_neg; /* the kept duplicate each rank would take (api/comm_cache.h) */
    int64_t quick, subfiled, blksize;
    int64_t figures[COLIO_FIGURES_WORDS]; /* rank 0's storage figures (store/cost.h) */
    int64_t id_lo[COLIO_OPEN_ID_WORDS], id_hi_neg[COLIO_OPEN_ID_WORDS]; /* which file each rank opened */
} open_words_t;

/*
 * The quick way, local: the configuration from the topology kept on the
 * communicator and the store opened as an ordinary file, rank 0 looking at
 * its first bytes (a subfiled file is closed again and opened the long
 * way). 0 when this rank cannot go this way.
 */
static int open_quickly_here(colio_file *fh, MPI_Comm user_comm, colio_err_t *err, open_words_t *w)
{
    if (err->code != 0 || !can_open_quickly(fh))
        return 0;
    colio_comm_cache_t *kept = colio_comm_cache_find(user_comm);
    if (kept == NULL || colio_topo_copy(&kept->topo, &fh->topo_mpi) != COLIO_SUCCESS)
        return 0; /* the long way builds the topology or fails */
    fh->store = fh->base = colio_store_find(fh->hints.backend);
    w->subfiled = w->blksize = 0; /* rank 0's, also when it fails: then its error decides */
    if (colio_file_configure(fh, &fh->hints, &fh->cfg, err) == 0)
        open_store(fh, 0, err);
    int64_t id[COLIO_OPEN_ID_WORDS];
    colio_open_identity(fh, id);
    for (int i = 0; i < COLIO_OPEN_ID_WORDS; i++)
        w->id_lo[i] = id[i], w->id_hi_neg[i] = -id[i];
    if (err->code == 0 && fh->rank == 0) {
        w->subfiled = head_is_subfiled(fh);
        if (fh->store->block_size && fh->store->block_size(fh->st, &w->blksize) != 0)
            w->blksize = 0; /* a preference only: unknown is fine */
        rank0_figures(fh, w->figures);
    }
    return 1;
}

/* A quick attempt the agreement turned down: back to the state after the checks (the topology stays). */
static void undo_quick(colio_file *fh, colio_err_t *err, const colio_err_t *prep)
{
    if (fh->st)
        fh->store->close(fh->st);
    fh->st = NULL;
    colio_config_free(&fh->cfg);
    *err = *prep;
}

/*
 * The nodes, found once per communicator (api/comm_cache.h): the first
 * open on it finds them, collectively, over its fresh duplicate, which may
 * become the one its files share.
 */
static int open_topology(colio_file *fh, MPI_Comm user_comm, colio_err_t *err)
{
    colio_comm_cache_t *kept = colio_comm_cache_find(user_comm); /* the same on every rank */
    if (kept == NULL)
        return colio_comm_cache_build(user_comm, fh->comm, fh->hints.network_probe, &fh->topo_mpi, &fh->shared,
                                      &fh->cache, err);
    if (colio_topo_copy(&kept->topo, &fh->topo_mpi) != COLIO_SUCCESS)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory copying the topology");
    return COLIO_SUCCESS;
}

/*
 * The long way: every rank with rank 0's hints, the topology built once per
 * communicator, what PATH is (an existing or new subfiled file changes the
 * configuration), the window, then the file system (creating first on rank
 * 0). Errors so far are agreed already.
 */
static int open_long_way(colio_file *fh, MPI_Comm user_comm, colio_err_t *err)
{
    int cached = fh->cache != NULL;
    if (fh->topo_mpi.nprocs > 0 || open_topology(fh, user_comm, err) == 0) { /* kept from the quick try */
        if (!cached && fh->cache) /* the first open on the communicator built the cache */
            colio_comm_cache_own(fh->cache, -1, &fh->own, &fh->own_id, err); /* agreed below */
        fh->store = fh->base = colio_store_find(fh->hints.backend);
        colio_file_configure(fh, &fh->hints, &fh->cfg, err);
    }
    if (colio_subfiling_decide(fh, &fh->cfg.topo, err) == 0 && fh->sub.nsub > 0) {
        colio_config_free(&fh->cfg);
        colio_file_configure(fh, &fh->hints, &fh->cfg, err);
    }
    colio_config_window(fh, &fh->hints, &fh->cfg, err); /* collective: every rank, whatever failed */
    return open_everywhere(fh, err); /* skips the file system after an error, still agrees */
}

/*
 * The file's own duplicate for its nonblocking slots, taken after the open's
 * agreement: a closed file's kept one where every rank proposed the same,
 * else the spare. A spare that failed to form (MPI_Comm_idup's error, local
 * and past the agreement) leaves the file without one: its first
 * nonblocking call then stops with that reason (engine/lanes.c).
 */
static void take_own(colio_file *fh, int64_t id)
{
    colio_err_t lost = {0};
    if (colio_comm_cache_own(fh->cache, id, &fh->own, &fh->own_id, &lost) != 0)
        fh->own = MPI_COMM_NULL;
}

/* Start duplicating the user's communicator; the open's local work runs while it forms. */
static int dup_start(MPI_Comm comm, MPI_Comm *out, MPI_Request *req)
{
#ifdef COLIO_SMPI
    *req = MPI_REQUEST_NULL;
    return MPI_Comm_dup(comm, out); /* smpi_compat.h: no communicator is made */
#else
    return MPI_Comm_idup(comm, out, req);
#endif
}

/*
 * One agreement per open where it can be (docs/DESIGN.md, "What an open
 * costs"): the checks, and for a reopen the store itself, run while the
 * file's communicator forms (MPI_Comm_idup); then one MIN allreduce carries
 * errors, amode, the hints' hash and rank 0's facts. Only when ranks differ
 * (hints, quick or not) or PATH is subfiled does the open go the long way,
 * after rank 0's hints are broadcast (MPI lets info differ between ranks).
 */
static int open_collective(colio_file *fh, MPI_Comm user_comm, MPI_Request dup, const char *path, int amode,
                           MPI_Info info, colio_err_t *err)
{
    open_words_t w = {.subfiled = INT64_MAX, .blksize = INT64_MAX};
    int64_t own = fh->cache ? colio_comm_cache_proposal(fh->cache) : -1;
    if (colio_progress_file_open(fh, err) == 0)
        open_prepare(fh, path, amode, info, err);
    colio_err_t prep = *err;
    int quick = open_quickly_here(fh, user_comm, err, &w);
    if (fh->shared == NULL) {
        int rc = MPI_Wait(&dup, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) { /* not agreed: a communicator that did not form cannot agree */
            fh->comm = MPI_COMM_NULL;
            return colio_err_from_mpi(err, rc, "colio_open: MPI_Comm_idup");
        }
        MPI_Comm_set_errhandler(fh->comm, MPI_ERRORS_RETURN);
    }
    int64_t hash = hints_hash(&fh->hints);
    w.key = colio_err_key(err->code, fh->rank);
    w.prep_key = colio_err_key(prep.code, fh->rank);
    w.amode_lo = amode, w.amode_hi_neg = -(int64_t)amode, w.hash_lo = hash, w.hash_hi_neg = -hash;
    w.own_lo = own, w.own_hi_neg = -own;
    w.quick = quick;
    if (fh->rank != 0) { /* MIN keeps rank 0's */
        w.subfiled = w.blksize = INT64_MAX;
        for (int i = 0; i < COLIO_FIGURES_WORDS; i++)
            w.figures[i] = INT64_MAX;
    }
    open_words_t all;
    int rc = colio_allreduce_yielding(&w, &all, (int)(sizeof w / sizeof(int64_t)), MPI_INT64_T, MPI_MIN, fh->comm);
    if (rc != MPI_SUCCESS) {
        colio_err_clear(err);
        return colio_err_from_mpi(err, rc, "colio_open: agreement (MPI_Allreduce)");
    }
    if (fh->cache) /* after the agreement, so every rank takes the same duplicate */
        take_own(fh, all.own_lo == -all.own_hi_neg ? all.own_lo : -1);
    int same = all.amode_lo == -all.amode_hi_neg && all.hash_lo == -all.hash_hi_neg;
    if (all.quick && same && !all.subfiled) {
        fh->blksize = all.blksize;
        colio_figures_unpack(all.figures, &fh->figures);
        if (all.key != 0)
            return colio_err_adopt_key(fh->comm, err, all.key);
        int64_t hi[COLIO_OPEN_ID_WORDS];
        for (int i = 0; i < COLIO_OPEN_ID_WORDS; i++)
            hi[i] = -all.id_hi_neg[i];
        return colio_open_same(all.id_lo, hi, err);
    }
    undo_quick(fh, err, &prep);
    if (all.prep_key != 0)
        return colio_err_adopt_key(fh->comm, err, all.prep_key);
    if (all.amode_lo != -all.amode_hi_neg)
        return colio_err_set(err, COLIO_ERR_NOT_SAME, "amode differs across ranks"); /* known to all alike */
    if (all.hash_lo != -all.hash_hi_neg && hints_from_rank0(fh, &fh->hints, err) != 0)
        return err->code; /* alike everywhere: a broadcast fails on every rank or none */
    return open_long_way(fh, user_comm, err);
}

/*
 * colio_lock_writes: whether storage writes take byte-range locks from now
 * on. automatic: while some rank's view leaves holes in the file, since an
 * MPI library's handle sieves (reads a span, fills it, writes it back) only
 * writes that leave holes; with every view contiguous (the default view,
 * IOR's pattern) no span of its can cover colio's bytes, and a small call
 * spares two fcntl calls (1.7 us of a 64-byte write through
 * libcolio_mpiio: bench/interpose-suite.sh). enable and disable stay as
 * the store opened them; a store that cannot change them keeps them on.
 */
static void set_write_locks(colio_file *fh, int views_leave_holes)
{
    const colio_store_ops_t *s = fh->store;
    if (fh->lock_mode == COLIO_AUTOMATIC && s && s->set_locks && fh->st)
        s->set_locks(fh->st, views_leave_holes);
}

/*
 * direct_write / direct_read: true, every storage call with O_DIRECT;
 * automatic, the calls the storage figures, alike on every rank, say cost
 * less that way (store/cost.h, colio_figures_direct). Where every call goes
 * direct, the cost model takes the direct figures.
 */
static void set_direct_io(colio_file *fh)
{
    const colio_store_ops_t *s = fh->store;
    int64_t w, r;
    colio_figures_direct(&fh->figures, &w, &r);
    w = fh->hints.direct_write == COLIO_AUTOMATIC ? w : fh->hints.direct_write == COLIO_ENABLE ? 0 : INT64_MAX;
    r = fh->hints.direct_read == COLIO_AUTOMATIC ? r : fh->hints.direct_read == COLIO_ENABLE ? 0 : INT64_MAX;
    if ((w < INT64_MAX || r < INT64_MAX) && s && s->set_direct && fh->st)
        s->set_direct(fh->st, w, r);
    fh->direct_min[0] = w, fh->direct_min[1] = r;
    colio_figures_as_direct(&fh->figures, w == 0, r == 0); /* every call direct: the model costs them so */
}

/*
 * A NULL fh_p still takes part (the other ranks would wait for this rank's
 * words): the open fails its checks on this rank, so on every rank.
 */
int colio_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, colio_file **fh_p)
{
    int inter = 0;
    if (fh_p)
        *fh_p = NULL;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return colio_fail(NULL, COLIO_ERR_ARG, "colio_open: invalid or inter-communicator");
    colio_file *fh = calloc(1, sizeof *fh);
    colio_comm_cache_t *kept = colio_comm_cache_find(comm); /* alike everywhere */
    MPI_Request dup = MPI_REQUEST_NULL;
    if (fh)
        fh->own = MPI_COMM_NULL, fh->own_id = -1, fh->no_handle = fh_p == NULL;
    if (fh && kept && kept->nursery != MPI_COMM_NULL)
        fh->cache = colio_comm_cache_hold(kept);
    if (fh && kept && kept->shared != MPI_COMM_NULL)
        fh->comm = colio_comm_cache_take(fh->shared = kept);
    else if (fh == NULL || dup_start(comm, &fh->comm, &dup) != MPI_SUCCESS) {
        if (fh && fh->cache)
            colio_comm_cache_release(fh->cache);
        free(fh);
        return colio_fail(NULL, COLIO_ERR_NOMEM, "colio_open: out of memory or MPI_Comm_idup failed");
    }
    MPI_Comm_rank(comm, &fh->rank);
    MPI_Comm_size(comm, &fh->nprocs);
    fh->amode = amode;
    colio_err_t err = {0};
    int rc = open_collective(fh, comm, dup, path, amode, info, &err);
    if (rc != 0) {
        colio_fail(NULL, rc, "%s", err.msg);
        if (fh->made_here) /* rank 0 made PATH in this open: a failed open leaves no new file */
            fh->base->unlink(fh->path);
        file_free(fh);
        return rc;
    }
    colio_err_thread_msg()[0] = '\0';
    own_slots(fh);
    colio_file_choose_rounds(fh);
    colio_progress_file_rehint(fh);
    fh->lock_mode = fh->hints.lock_writes;
    set_write_locks(fh, 0); /* the default view: one contiguous stretch */
    set_direct_io(fh);
    fh->magic = COLIO_FILE_MAGIC;
    *fh_p = fh;
    return COLIO_SUCCESS;
}

int colio_delete(const char *path, MPI_Info info)
{
    colio_err_t err = {0};
    colio_hints_t h;
    colio_hints_default(&h);
    if (path == NULL || path[0] == '\0')
        colio_err_set(&err, COLIO_ERR_BAD_FILE, "colio_delete: empty or NULL path");
    else if (colio_hints_apply(&h, info, &err) == 0)
        colio_subfiling_delete(path, &h, &err);
    colio_fail(NULL, err.code, "%s", err.msg);
    return err.code;
}

/* ---- close ---------------------------------------------------------------------- */

/* Every operation in flight on the file completes before a call that changes the file handle. */
static void complete_all(colio_file *fh)
{
    colio_progress_lock();
    colio_progress_complete_file(fh);
    colio_progress_unlock();
}

/* The handle check of every call on a file: the message goes to colio_last_error(NULL). */
static int bad_handle(const char *api) { return colio_fail(NULL, COLIO_ERR_ARG, "%s: NULL or closed file handle", api); }

int colio_complete(colio_file *fh)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_complete");
    complete_all(fh);
    return COLIO_SUCCESS;
}

int colio_close(colio_file **fh_p)
{
    if (fh_p == NULL)
        return colio_fail(NULL, COLIO_ERR_ARG, "colio_close: NULL handle pointer");
    if (!colio_file_valid(*fh_p))
        return bad_handle("colio_close");
    colio_file *fh = *fh_p;
    *fh_p = NULL;
    complete_all(fh); /* MPI calls closing with requests pending erroneous; colio completes them */
    colio_err_t err = {0};
    int rc = fh->store->close(fh->st);
    fh->st = NULL;
    if (rc != 0)
        colio_err_set(&err, colio_err_from_errno(-rc), "colio_close: %s: %s", fh->path, strerror(-rc));
    colio_err_agree(fh->comm, &err); /* also: everyone has closed before the unlink */
    if (err.code == 0 && !(fh->amode & MPI_MODE_DELETE_ON_CLOSE))
        colio_subfiling_settle(fh, &err); /* the metadata's logical size, for the next open */
    int subfiles_gone = 1;
    if ((fh->amode & MPI_MODE_DELETE_ON_CLOSE) && fh->sub.nsub > 0)
        subfiles_gone = colio_subfiling_unlink(fh, &err) == 0;
    /* the metadata goes last, and stays while a subfile it names could not be removed */
    if ((fh->amode & MPI_MODE_DELETE_ON_CLOSE) && fh->rank == 0 && subfiles_gone) {
        int urc = fh->base->unlink(fh->path);
        if (urc != 0 && err.code == 0)
            colio_err_set(&err, colio_err_from_errno(-urc), "colio_close: unlink %s: %s", fh->path, strerror(-urc));
    }
    if (fh->amode & MPI_MODE_DELETE_ON_CLOSE)
        colio_err_agree(fh->comm, &err);
    rc = err.code;
    file_free(fh);
    return rc;
}

/* ---- views ---------------------------------------------------------------------- */

static void view_free(colio_view_t *v)
{
    colio_flat_release(v->ftype, v->ftype_owned); /* the filetype may be gone: the last holder frees a cached one */
    memset(v, 0, sizeof *v);
}

/*
 * MPI-IO's rules for etype and filetype: non-negative, non-decreasing
 * displacements, whole etypes; no overlap where the file is open for
 * writing (MPI-4.1 sec. 14.3: a read-only file's view may name a byte twice).
 */
static int check_view_types(colio_file *fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                            colio_flat_t **ftype_p, int *owned_p, int64_t *esize_p, colio_err_t *err)
{
    if (disp < 0)
        return colio_err_set(err, COLIO_ERR_ARG, "colio_set_view: negative displacement %lld", (long long)disp);
    if (colio_type_check(etype, fh->comm, "etype", err) || colio_type_check(filetype, fh->comm, "filetype", err))
        return err->code;
    colio_flat_t *ef = NULL;
    if (colio_flat_create(etype, &ef, err) != 0)
        return err->code;
    int64_t esize = ef->size;
    int ok = ef->nonneg && ef->monotonic;
    colio_flat_free(ef);
    if (esize <= 0 || !ok)
        return colio_err_set(err, COLIO_ERR_TYPE, "colio_set_view: etype must hold data at non-negative, increasing displacements");
    /* flattened once per type, cached on it; the view's duplicate shares it */
    if (colio_flat_get(filetype, ftype_p, owned_p, err) != 0)
        return err->code;
    const colio_flat_t *f = *ftype_p;
    if (!f->nonneg)
        return colio_err_set(err, COLIO_ERR_TYPE, "colio_set_view: filetype has a negative displacement");
    if (!f->ordered)
        return colio_err_set(err, COLIO_ERR_TYPE, "colio_set_view: filetype displacements decrease");
    if (!f->monotonic && !(fh->amode & MPI_MODE_RDONLY))
        return colio_err_set(err, COLIO_ERR_TYPE,
                             "colio_set_view: filetype pieces overlap, which MPI allows only on a file opened read-only");
    if (f->size % esize != 0)
        return colio_err_set(err, COLIO_ERR_TYPE, "colio_set_view: filetype size %lld is not a multiple of the etype size %lld",
                             (long long)f->size, (long long)esize);
    *esize_p = esize;
    return COLIO_SUCCESS;
}

int colio_set_view(colio_file *fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, MPI_Info info)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_set_view");
    colio_err_t err = {0};
    colio_flat_t *ftype = NULL;
    int owned = 1;
    int64_t esize = 0;
    complete_all(fh);
    colio_hints_t hints = fh->hints;
    colio_view_t v = {.disp = disp};
    if (check_view_types(fh, disp, etype, filetype, &ftype, &owned, &esize, &err) == 0)
        colio_hints_apply(&hints, info, &err);
    v.etype_size = esize;
    /* the view holds the cached flattening (counted): the user may free the filetype now */
    v.ftype = ftype;
    v.ftype_owned = owned;
    /* info may differ between ranks (MPI allows it): new hints if any rank passed some; and whether
       some rank's view leaves holes (colio_lock_writes=automatic) */
    enum { ANY_INFO = 1, ANY_HOLES = 2 };
    int any = (info != MPI_INFO_NULL ? ANY_INFO : 0) | (ftype && !colio_flat_dense(ftype) ? ANY_HOLES : 0);
    if (colio_err_agree_same(fh->comm, &err, esize, "etype size", &any) == 0 && (any & ANY_INFO))
        adopt_hints(fh, &hints, &err);
    if (err.code != 0) {
        view_free(&v);
        return colio_file_result(fh, &err);
    }
    view_free(&fh->view);
    fh->view = v;
    fh->fp = 0;
    set_write_locks(fh, (any & ANY_HOLES) != 0);
    return COLIO_SUCCESS;
}

/* ---- hints, sync, queries ----------------------------------------------------------- */

int colio_set_info(colio_file *fh, MPI_Info info)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_set_info");
    complete_all(fh);
    colio_err_t err = {0};
    colio_hints_t hints = fh->hints;
    colio_hints_apply(&hints, info, &err);
    if (colio_err_agree(fh->comm, &err) == 0)
        adopt_hints(fh, &hints, &err);
    return colio_file_result(fh, &err);
}

/* What colio_get_info reports for key: the hints in effect, and the file's own subfile layout. */
static int file_hint(const colio_file *fh, const char *key, char *value, int len)
{
    if (strcmp(key, "colio_subfiles") == 0 && fh->sub.nsub == 0)
        snprintf(value, len, "none");
    else if (strcmp(key, "colio_subfiles") == 0)
        snprintf(value, len, "%d", fh->sub.nsub);
    else if (strcmp(key, "colio_subfile_stripe") == 0)
        snprintf(value, len, "%lld", (long long)fh->sub.stripe);
    else
        return colio_hints_report(&fh->hints, fh->cfg.set.naggs, key, value, len);
    return COLIO_SUCCESS;
}

int colio_get_info(colio_file *fh, MPI_Info *info_used)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_get_info");
    if (info_used == NULL)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_get_info: NULL info pointer");
    if (MPI_Info_create(info_used) != MPI_SUCCESS)
        return colio_fail(fh, COLIO_ERR_MPI, "colio_get_info: MPI_Info_create failed");
    char value[COLIO_PATH_LEN];
    for (int i = 0; colio_hints_key(i, NULL, NULL) != NULL; i++)
        if (file_hint(fh, colio_hints_key(i, NULL, NULL), value, sizeof value) == COLIO_SUCCESS && value[0] != '\0')
            MPI_Info_set(*info_used, colio_hints_key(i, NULL, NULL), value);
    return COLIO_SUCCESS;
}

int colio_get_hint(colio_file *fh, const char *key, char *value, int valuelen, int *flag)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_get_hint");
    if (key == NULL || value == NULL || flag == NULL)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_get_hint: NULL %s", key == NULL ? "key" : value == NULL ? "value" : "flag");
    if (valuelen <= 0)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_get_hint: valuelen %d leaves no room for a value", valuelen);
    char v[COLIO_PATH_LEN];
    *flag = file_hint(fh, key, v, sizeof v) == COLIO_SUCCESS && v[0] != '\0';
    if (*flag)
        snprintf(value, (size_t)valuelen, "%s", v);
    return COLIO_SUCCESS;
}

int colio_sync(colio_file *fh)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_sync");
    complete_all(fh);
    colio_err_t err = {0};
    int rc = fh->store->sync(fh->st);
    if (rc != 0)
        colio_err_set(&err, colio_err_from_errno(-rc), "colio_sync: %s: %s (errno %d)", fh->path, strerror(-rc), -rc);
    if (colio_err_agree(fh->comm, &err) == 0)
        colio_subfiling_settle(fh, &err);
    return colio_file_result(fh, &err);
}

int colio_get_size(colio_file *fh, MPI_Offset *size)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_get_size");
    if (size == NULL)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_get_size: NULL size pointer");
    int64_t s = 0;
    int rc = fh->store->size(fh->st, &s);
    if (rc != 0)
        return colio_fail(fh, colio_err_from_errno(-rc), "colio_get_size: %s: %s (errno %d)", fh->path, strerror(-rc),
                          -rc);
    *size = (MPI_Offset)s;
    return COLIO_SUCCESS;
}

int colio_get_stats(colio_file *fh, colio_stats *stats)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_get_stats");
    if (stats == NULL)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_get_stats: NULL stats pointer");
    colio_progress_lock(); /* the progress thread may be finishing an operation */
    *stats = fh->stats;
    colio_progress_unlock();
    return COLIO_SUCCESS;
}

int colio_get_position(colio_file *fh, MPI_Offset *offset)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_get_position");
    if (offset == NULL)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_get_position: NULL offset pointer");
    *offset = (MPI_Offset)fh->fp;
    return COLIO_SUCCESS;
}

/* The end of file in etypes of the view (rounded up: a partial etype counts). */
static int end_of_file_etypes(colio_file *fh, int64_t *end_p)
{
    int64_t size = 0;
    int rc = fh->store->size(fh->st, &size);
    if (rc != 0)
        return colio_fail(fh, colio_err_from_errno(-rc), "colio_seek: %s: size query failed: %s (errno %d)", fh->path,
                          strerror(-rc), -rc);
    int64_t bytes = colio_view_bytes_below(&fh->view, size);
    *end_p = (bytes + fh->view.etype_size - 1) / fh->view.etype_size;
    return COLIO_SUCCESS;
}

int colio_seek(colio_file *fh, MPI_Offset offset, int whence)
{
    if (!colio_file_valid(fh))
        return bad_handle("colio_seek");
    int64_t base = 0;
    if (whence == MPI_SEEK_CUR)
        base = fh->fp;
    else if (whence == MPI_SEEK_END) {
        int rc = end_of_file_etypes(fh, &base);
        if (rc != COLIO_SUCCESS)
            return rc;
    } else if (whence != MPI_SEEK_SET)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_seek: whence %d is none of MPI_SEEK_SET, CUR, END", whence);
    if (offset < 0 && base + offset < 0)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_seek: the position %lld is before the view's start",
                          (long long)(base + offset));
    if (offset > 0 && base > INT64_MAX - offset)
        return colio_fail(fh, COLIO_ERR_ARG, "colio_seek: the position overflows 64 bits");
    fh->fp = base + offset;
    return COLIO_SUCCESS;
}
