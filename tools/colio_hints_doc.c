/* Print the hint table (src/api/hints.c) as the Markdown table of docs/HINTS.md. */
#include <stdio.h>
#include <string.h>

#include "base/hints.h"
#include "exchange/xchg.h"
#include "place/place.h"
#include "store/store.h"

typedef const char *(*name_at_fn_t)(int i);

/* Exchange kernels, then "auto" (the engine's choice, not a kernel of the registry). */
static const char *kernel_or_auto(int i)
{
    const char *name = colio_xchg_name(i);
    return name ? name : (colio_xchg_name(i - 1) ? "auto" : NULL);
}

/* The plug-ins a naming hint accepts, straight from their registries. */
static name_at_fn_t registry_of(const char *key)
{
    if (!strcmp(key, "colio_exchange") || !strcmp(key, "colio_meta_exchange"))
        return kernel_or_auto;
    if (!strcmp(key, "colio_placement"))
        return colio_place_name;
    if (!strcmp(key, "colio_domain"))
        return colio_domain_name;
    if (!strcmp(key, "colio_backend"))
        return colio_store_name;
    return NULL;
}

int main(void)
{
    printf("| key | default | meaning |\n|---|---|---|\n");
    const char *doc, *dflt, *key;
    for (int i = 0; (key = colio_hints_key(i, &doc, &dflt)) != NULL; i++) {
        printf("| `%s` | %s | %s", key, dflt[0] ? dflt : "(empty)", doc);
        name_at_fn_t names = registry_of(key);
        for (int k = 0; names && names(k); k++)
            printf("%s`%s`", k ? ", " : "; one of ", names(k));
        printf(" |\n");
    }
    return 0;
}
