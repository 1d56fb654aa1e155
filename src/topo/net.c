/*
 * Network models (topo/net.h): spec parsing, the registry of generators,
 * the job's place on the machine (compact or scattered), and the API that
 * translates job nodes to machine nodes for the generators.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/net_impl.h"

/* Defaults (docs/TOPOLOGY.md): 1 us per hop, 10 GB/s links, 5 GB/s into a storage target. */
#define NET_DEFAULT_LATENCY 1e-6
#define NET_DEFAULT_BANDWIDTH 10e9
#define NET_DEFAULT_IO_BANDWIDTH 5e9

static const colio_net_gen_t *const generators[] = {
    &colio_net_flat, &colio_net_tree, &colio_net_fattree, &colio_net_dragonfly, &colio_net_torus,
};

int colio_net_parse_int(const char *val)
{
    char *end;
    long v = strtol(val, &end, 10);
    return *val && *end == '\0' && v >= 1 && v <= 1 << 30 ? (int)v : -1;
}

int colio_net_parse_dims(const char *val, int *dims)
{
    char buf[128], *save = NULL;
    int n = 0;
    if (snprintf(buf, sizeof buf, "%s", val) >= (int)sizeof buf)
        return -1;
    for (char *t = strtok_r(buf, "x", &save); t; t = strtok_r(NULL, "x", &save)) {
        if (n == NET_MAX_DIMS || (dims[n] = colio_net_parse_int(t)) < 0)
            return -1;
        n++;
    }
    return n > 0 && val[strlen(val) - 1] != 'x' ? n : -1;
}

static int parse_double(const char *val, double *out)
{
    char *end;
    double v = strtod(val, &end);
    if (!*val || *end != '\0' || !(v > 0) || v > 1e30)
        return -1;
    *out = v;
    return 0;
}

/* latency=, bandwidth=, io_bandwidth=, then the generator's own keys. */
static int apply_key(colio_net_t *net, const char *key, const char *val, colio_err_t *err)
{
    int rc = -1;
    if (strcmp(key, "latency") == 0)
        rc = parse_double(val, &net->latency) == 0 ? 0 : -2, net->latency_given = 1;
    else if (strcmp(key, "bandwidth") == 0)
        rc = parse_double(val, &net->bandwidth) == 0 ? 0 : -2, net->bandwidth_given = 1;
    else if (strcmp(key, "io_bandwidth") == 0)
        rc = parse_double(val, &net->io_bandwidth) == 0 ? 0 : -2;
    else if (net->gen->key)
        rc = net->gen->key(net, key, val);
    if (rc == -1)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: %s has no key '%s'", net->gen->name, key);
    if (rc == -2)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: bad value '%s' for %s", val, key);
    return COLIO_SUCCESS;
}

/* "name:key=v,key=v" or "file:PATH" or a path (contains '/'). */
static int parse_spec(const char *spec, colio_net_t *net, colio_err_t *err)
{
    int is_file = strncmp(spec, "file:", 5) == 0 || strchr(spec, '/') != NULL;
    if (is_file) {
        const char *path = strncmp(spec, "file:", 5) == 0 ? spec + 5 : spec;
        net->gen = &colio_net_file;
        if (!*path || snprintf(net->path, sizeof net->path, "%s", path) >= (int)sizeof net->path)
            return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: empty or too long topology file path");
        return COLIO_SUCCESS;
    }
    char buf[512], *save = NULL;
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: spec too long");
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    for (size_t i = 0; i < sizeof generators / sizeof *generators && !net->gen; i++)
        if (strcmp(generators[i]->name, buf) == 0)
            net->gen = generators[i];
    if (net->gen == NULL)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: unknown topology '%s'", buf);
    for (char *kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (eq == NULL)
            return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: '%s' is not key=value", kv);
        *eq = '\0';
        if (apply_key(net, kv, eq + 1, err) != 0)
            return err->code;
    }
    return COLIO_SUCCESS;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Job node i on machine node i, or on a seeded random choice of distinct machine nodes. */
static int allocate(colio_net_t *net, uint64_t seed)
{
    if (net->place)
        return COLIO_SUCCESS; /* the file generator placed the job by name */
    int m = net->machine;
    int *perm = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    if (perm == NULL)
        return COLIO_ERR_NOMEM;
    for (int i = 0; i < m; i++)
        perm[i] = i;
    for (int i = 0; seed && i < net->nnodes; i++) { /* a Fisher-Yates prefix */
        int j = i + (int)(splitmix64(&seed) % (uint64_t)(m - i));
        int t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    net->place = perm;
    return COLIO_SUCCESS;
}

int colio_net_create(const char *spec, const colio_net_opts_t *opts, colio_net_t **net_p, colio_err_t *err)
{
    *net_p = NULL;
    colio_net_t *net = calloc(1, sizeof *net);
    if (net == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for the network model");
    net->nnodes = opts->nnodes;
    net->latency = NET_DEFAULT_LATENCY;
    net->bandwidth = NET_DEFAULT_BANDWIDTH;
    net->io_bandwidth = NET_DEFAULT_IO_BANDWIDTH;
    int rc = parse_spec(spec, net, err);
    if (rc == 0)
        rc = net->gen->build(net, opts, err);
    if (rc == 0 && net->nnodes > net->machine)
        rc = colio_err_set(err, COLIO_ERR_HINT, "colio_topology: the topology has %d nodes, the job %d", net->machine,
                           net->nnodes);
    if (rc == 0 && allocate(net, opts->scatter_seed) != 0)
        rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for the network model");
    if (rc != 0) {
        colio_net_free(net);
        return rc;
    }
    *net_p = net;
    return COLIO_SUCCESS;
}

int colio_net_spec_valid(const char *spec)
{
    colio_net_t probe = {.latency = 1, .bandwidth = 1, .io_bandwidth = 1};
    colio_err_t err = {0};
    colio_net_opts_t none = {0};
    if (parse_spec(spec, &probe, &err) != 0)
        return -1;
    if (probe.gen == &colio_net_file)
        return 0; /* read at open */
    int rc = probe.gen->build(&probe, &none, &err);
    colio_tree_free(&probe.tree);
    free(probe.coord);
    return rc == 0 ? 0 : -1;
}

void colio_net_free(colio_net_t *net)
{
    if (net == NULL)
        return;
    colio_tree_free(&net->tree);
    free(net->place);
    free(net->coord);
    free(net);
}

int colio_net_hops(const colio_net_t *net, int a, int b)
{
    return a == b ? 0 : net->gen->hops(net, net->place[a], net->place[b]);
}

int colio_net_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    return a == b ? 0 : net->gen->route(net, net->place[a], net->place[b], links, max);
}

int colio_net_io_hops(const colio_net_t *net, int node) { return net->gen->io_route(net, net->place[node], NULL, 0); }

int colio_net_io_route(const colio_net_t *net, int node, int64_t *links, int max)
{
    return net->gen->io_route(net, net->place[node], links, max);
}

int colio_net_io_target(const colio_net_t *net, int node) { return net->gen->io_target(net, net->place[node]); }
int colio_net_ntargets(const colio_net_t *net) { return net->ntargets; }
int64_t colio_net_nlinks(const colio_net_t *net) { return net->nlinks; }
void colio_net_measured(colio_net_t *net, double latency, double bandwidth)
{
    if (latency > 0 && !net->latency_given)
        net->latency = latency;
    if (bandwidth > 0 && !net->bandwidth_given)
        net->bandwidth = bandwidth;
}

double colio_net_latency(const colio_net_t *net) { return net->latency; }
double colio_net_bandwidth(const colio_net_t *net) { return net->bandwidth; }
double colio_net_io_bandwidth(const colio_net_t *net) { return net->io_bandwidth; }
int colio_net_machine_node(const colio_net_t *net, int node) { return net->place[node]; }
int colio_net_machine_nodes(const colio_net_t *net) { return net->machine; }
const char *colio_net_describe(const colio_net_t *net) { return net->desc; }
