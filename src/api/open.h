/*
 * Opening a file, its configuration and subfiling (api/file.c,
 * api/subfiling.c): what the file calls above the engine need.
 */
#ifndef COLIO_CORE_OPEN_H
#define COLIO_CORE_OPEN_H

#include "engine/file.h"

/* Build the configuration the hints select (local, deterministic); *cfg is freed on failure. */
int colio_file_configure(const colio_file *fh, const colio_hints_t *h, colio_config_t *cfg, colio_err_t *err);
/*
 * Collective over fh->comm: create the window of the one-sided kernels when
 * the hints h select one (the same on every rank: rank 0's hints). Called
 * by every rank even after a local error (err set), so the collective always
 * matches; errors are agreed by the caller.
 */
int colio_config_window(colio_file *fh, const colio_hints_t *h, colio_config_t *cfg, colio_err_t *err);
/* Local, except that freeing a window is collective: every rank frees its configuration together. */
void colio_config_free(colio_config_t *cfg);

/*
 * This rank's words for "every rank opened the same file": the inode PATH
 * names and, where every rank runs on one node, its device (parallel file
 * systems number devices per client); 0 and 0 for a backend without
 * identities. After the agreement that carried them as ranges (MIN, MAX),
 * colio_open_same fails with COLIO_ERR_NOT_SAME where they differ.
 */
#define COLIO_OPEN_ID_WORDS 2
void colio_open_identity(const colio_file *fh, int64_t id[COLIO_OPEN_ID_WORDS]);
int colio_open_same(const int64_t lo[COLIO_OPEN_ID_WORDS], const int64_t hi[COLIO_OPEN_ID_WORDS], colio_err_t *err);

/* Nodes as the hints see them (colio_node_size) and their network model. */
int colio_file_topo(const colio_file *fh, const colio_hints_t *h, colio_topo_t *topo, colio_err_t *err);

/*
 * Subfiling (api/subfiling.c), all collective with errors agreed:
 * decide reads PATH's metadata on rank 0 or, when the hints ask for
 * subfiling and the file is new, makes a layout (fh->sub); open creates or
 * checks the subfiles and opens the subfiling store; settle records the
 * logical size in the metadata and extends short subfiles (sync, close);
 * unlink removes the subfiles and the metadata (MPI_MODE_DELETE_ON_CLOSE).
 */
int colio_subfiling_decide(colio_file *fh, const colio_topo_t *topo, colio_err_t *err);
int colio_subfiling_open(colio_file *fh, int flags, colio_err_t *err);
int colio_subfiling_settle(colio_file *fh, colio_err_t *err);
int colio_subfiling_unlink(colio_file *fh, colio_err_t *err);
/* Local (colio_delete): path and, when subfiled, its subfiles, through the backend h names. */
int colio_subfiling_delete(const char *path, const colio_hints_t *h, colio_err_t *err);

#endif
