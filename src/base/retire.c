/* Delayed freeing of closed handles and completed requests (base/retire.h). */
#include "base/retire.h"

#include <stdlib.h>

void colio_retire(colio_retire_t *r, void *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    void *oldest = r->kept[r->next];
    r->kept[r->next] = p;
    r->next = (r->next + 1) % COLIO_RETIRE_KEEP;
    pthread_mutex_unlock(&r->lock);
    free(oldest);
}
