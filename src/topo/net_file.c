/*
 * Topology files (colio_topology=file:PATH, or any path): the machine as a
 * switch tree written out by hand or by a site's tools (docs/TOPOLOGY.md).
 *
 *   colio-topology 1
 *   latency 1e-6            # optional: seconds per hop
 *   bandwidth 1.25e10       # optional: bytes/s per link
 *   io_bandwidth 5e9        # optional: bytes/s into a storage target
 *   node NAME SW/SW/...     # a compute node under the switch path (root first)
 *   ionode NAME SW/SW/...   # a storage target (I/O node, LNET router) likewise
 *
 * Hops between two nodes: up from each to their lowest common switch (1 from
 * a node to its switch, 1 per level). A node's storage target is the nearest
 * ionode (ties: the first listed); without ionodes, one target above the top.
 * Job nodes are matched by processor name; every one must be listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/net_impl.h"

#define MAX_ELEMS (1 << 22)

typedef struct builder {
    net_tree_t *t;
    char **sw;        /* switch paths, element ids nodes+i... assigned at the end */
    int nsw, capsw;
    int *node_sw, *io_sw; /* switch index of each node / ionode */
    int nio, cap;
    const char *path;
    int line;
    colio_err_t *err;
} builder_t;

static int fail(builder_t *b, const char *what)
{
    return colio_err_set(b->err, COLIO_ERR_HINT, "topology file %s line %d: %s", b->path, b->line, what);
}

/* Index of switch path p (created with its ancestors), or -1. */
static int switch_index(builder_t *b, const char *p)
{
    for (int i = 0; i < b->nsw; i++)
        if (strcmp(b->sw[i], p) == 0)
            return i;
    if (b->nsw == b->capsw) {
        int cap = 2 * b->capsw + 16;
        char **g = realloc(b->sw, sizeof(char *) * (size_t)cap);
        if (g == NULL)
            return -1;
        b->sw = g, b->capsw = cap;
    }
    char *copy = strdup(p);
    if (copy == NULL)
        return -1;
    b->sw[b->nsw] = copy;
    int me = b->nsw++;
    char *slash = strrchr(copy, '/');
    if (slash) { /* make sure the parent exists too */
        *slash = '\0';
        int parent = switch_index(b, copy);
        *slash = '/';
        if (parent < 0)
            return -1;
    }
    return me;
}

static int grow(builder_t *b, int need)
{
    if (need <= b->cap)
        return 0;
    int cap = 2 * b->cap + 64;
    net_tree_t *t = b->t;
    char **names = realloc(t->name, sizeof(char *) * (size_t)cap);
    if (names)
        t->name = names;
    int *ns = realloc(b->node_sw, sizeof(int) * (size_t)cap), *is = ns ? realloc(b->io_sw, sizeof(int) * (size_t)cap) : NULL;
    if (ns)
        b->node_sw = ns;
    if (is)
        b->io_sw = is;
    if (!names || !ns || !is)
        return -1;
    b->cap = cap;
    return 0;
}

/* One line: header, parameters, node or ionode. */
static int parse_line(builder_t *b, colio_net_t *net, char *s)
{
    char *hash = strchr(s, '#'), *save = NULL;
    if (hash)
        *hash = '\0';
    char *word = strtok_r(s, " \t\r\n", &save), *a1 = strtok_r(NULL, " \t\r\n", &save);
    char *a2 = strtok_r(NULL, " \t\r\n", &save);
    if (word == NULL)
        return 0;
    if (strcmp(word, "colio-topology") == 0)
        return a1 && strcmp(a1, "1") == 0 ? 0 : fail(b, "unsupported format version");
    double *param = strcmp(word, "latency") == 0 ? &net->latency
                    : strcmp(word, "bandwidth") == 0 ? &net->bandwidth
                    : strcmp(word, "io_bandwidth") == 0 ? &net->io_bandwidth
                                                        : NULL;
    if (param) {
        char *end;
        double v = a1 ? strtod(a1, &end) : 0;
        if (!a1 || *end || !(v > 0))
            return fail(b, "expected a positive number");
        *param = v;
        return 0;
    }
    int is_node = strcmp(word, "node") == 0, is_io = strcmp(word, "ionode") == 0;
    if (!is_node && !is_io)
        return fail(b, "expected node, ionode, latency, bandwidth or io_bandwidth");
    if (!a1 || !a2 || a2[0] == '/' || a2[strlen(a2) - 1] == '/' || strstr(a2, "//"))
        return fail(b, "expected NAME SWITCH/PATH");
    int sw = switch_index(b, a2), n = b->t->nodes + b->nio;
    if (sw < 0 || grow(b, n + 1) != 0)
        return colio_err_set(b->err, COLIO_ERR_NOMEM, "out of memory reading topology file %s", b->path);
    if (is_node) {
        if (b->nio > 0)
            return fail(b, "list every node before the ionodes");
        b->node_sw[b->t->nodes] = sw;
        b->t->name[b->t->nodes++] = strdup(a1);
    } else {
        b->io_sw[b->nio++] = sw;
    }
    return 0;
}

/* Elements: nodes, switches, the top, ionodes (or one target above the top). */
static int assemble(builder_t *b)
{
    net_tree_t *t = b->t;
    int nodes = t->nodes, top = nodes + b->nsw, ntargets = b->nio ? b->nio : 1;
    t->nelem = top + 1 + ntargets;
    t->parent = malloc(sizeof(int) * (size_t)t->nelem);
    t->depth = malloc(sizeof(int) * (size_t)t->nelem);
    t->target = malloc(sizeof(int) * (size_t)ntargets);
    if (!t->parent || !t->depth || !t->target)
        return COLIO_ERR_NOMEM;
    t->parent[top] = -1, t->depth[top] = 0;
    for (int i = 0; i < b->nsw; i++) { /* depth: one per path component */
        char *slash = strrchr(b->sw[i], '/');
        int parent = top, depth = 1;
        for (const char *c = b->sw[i]; *c; c++)
            depth += *c == '/';
        if (slash) { /* look the prefix up in a copy: the path itself would match */
            char prefix[4096];
            snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - b->sw[i]), b->sw[i]);
            parent = nodes + switch_index(b, prefix);
        }
        t->parent[nodes + i] = parent;
        t->depth[nodes + i] = depth;
    }
    for (int i = 0; i < nodes; i++)
        t->parent[i] = nodes + b->node_sw[i], t->depth[i] = t->depth[t->parent[i]] + 1;
    for (int i = 0; i < ntargets; i++) {
        int e = top + 1 + i, sw = b->nio ? nodes + b->io_sw[i] : top;
        t->parent[e] = sw, t->depth[e] = t->depth[sw] + 1, t->target[i] = e;
    }
    t->ntargets = ntargets;
    return COLIO_SUCCESS;
}

/* Job node i is the file's node named names[i]. */
static int place_by_name(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    if (opts->nnodes > 0 && opts->names == NULL)
        return colio_err_set(err, COLIO_ERR_HINT, "topology file %s: node names are needed", net->path);
    net->place = malloc(sizeof(int) * (size_t)(opts->nnodes > 0 ? opts->nnodes : 1));
    if (net->place == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for the network model");
    for (int i = 0; i < opts->nnodes; i++) {
        net->place[i] = -1;
        for (int m = 0; m < net->tree.nodes && net->place[i] < 0; m++)
            if (strcmp(net->tree.name[m], opts->names[i]) == 0)
                net->place[i] = m;
        if (net->place[i] < 0)
            return colio_err_set(err, COLIO_ERR_HINT, "topology file %s does not list node '%s'", net->path,
                                 opts->names[i]);
    }
    return COLIO_SUCCESS;
}

static int read_file(colio_net_t *net, builder_t *b)
{
    FILE *f = fopen(net->path, "r");
    if (f == NULL)
        return colio_err_set(b->err, COLIO_ERR_HINT, "cannot open topology file %s", net->path);
    char line[4096];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        b->line++;
        rc = parse_line(b, net, line);
    }
    fclose(f);
    if (rc == 0 && b->t->nodes == 0)
        rc = colio_err_set(b->err, COLIO_ERR_HINT, "topology file %s lists no node", net->path);
    return rc;
}

static int file_build(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    builder_t b = {.t = &net->tree, .path = net->path, .err = err};
    int rc = read_file(net, &b);
    if (rc == 0 && assemble(&b) != 0)
        rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory reading topology file %s", net->path);
    for (int i = 0; i < b.nsw; i++)
        free(b.sw[i]);
    free(b.sw), free(b.node_sw), free(b.io_sw);
    if (rc == 0)
        rc = place_by_name(net, opts, err);
    if (rc != 0)
        return rc;
    net->machine = net->tree.nodes;
    net->ntargets = net->tree.ntargets;
    net->nlinks = net->tree.nelem;
    snprintf(net->desc, sizeof net->desc, "file %.100s: %d nodes, %d switches, %d storage targets", net->path,
             net->tree.nodes, net->tree.nelem - net->tree.nodes - 1 - net->tree.ntargets, net->tree.ntargets);
    return COLIO_SUCCESS;
}

static int file_hops(const colio_net_t *net, int a, int b) { return colio_tree_hops(&net->tree, a, b); }

static int file_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    return colio_tree_route(&net->tree, a, b, links, max);
}

static int file_io_target(const colio_net_t *net, int a) { return colio_tree_nearest_target(&net->tree, a); }

static int file_io_route(const colio_net_t *net, int a, int64_t *links, int max)
{
    return colio_tree_route(&net->tree, a, net->tree.target[colio_tree_nearest_target(&net->tree, a)], links, max);
}

const colio_net_gen_t colio_net_file = {
    .name = "file",
    .build = file_build,
    .hops = file_hops,
    .route = file_route,
    .io_target = file_io_target,
    .io_route = file_io_route,
};
