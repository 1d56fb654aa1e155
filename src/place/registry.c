/* The only lists of placement strategies and file-domain layouts. */
#include <stdlib.h>
#include <string.h>

#include "place/registry.h"

static const colio_place_ops_t *const placements[] = {
    &colio_place_romio, &colio_place_greedy, &colio_place_shortest,
    &colio_place_longest, &colio_place_topology, &colio_place_lap,
};

static const colio_domain_ops_t *const domains[] = {
    &colio_domain_even,
    &colio_domain_stripe,
    &colio_domain_block,
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const colio_place_ops_t *colio_place_find(const char *name)
{
    for (int i = 0; i < COUNT(placements); i++)
        if (strcmp(placements[i]->name, name) == 0)
            return placements[i];
    return NULL;
}

const char *colio_place_name(int i) { return i >= 0 && i < COUNT(placements) ? placements[i]->name : NULL; }

const colio_domain_ops_t *colio_domain_find(const char *name)
{
    for (int i = 0; i < COUNT(domains); i++)
        if (strcmp(domains[i]->name, name) == 0)
            return domains[i];
    return NULL;
}

const char *colio_domain_name(int i) { return i >= 0 && i < COUNT(domains) ? domains[i]->name : NULL; }

void colio_domains_free(colio_domains_t *d)
{
    free(d->start);
    free(d->end);
    d->start = d->end = NULL;
}
