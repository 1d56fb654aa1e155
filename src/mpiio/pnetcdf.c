/*
 * PnetCDF 1.15 and later take their GIO driver by default (nc_driver=gio),
 * which writes with POSIX calls and makes no MPI-IO data call, so an MPI-IO
 * interposer would see nothing. When libcolio_mpiio is loaded, PnetCDF is
 * asked for its MPI-IO driver instead: nc_driver=mpiio is added to
 * PNETCDF_HINTS, which PnetCDF reads at every create and open, before the
 * program runs. Not when the program chose a driver itself: PNETCDF_HINTS
 * already naming nc_driver, or an MPI_Info_set of nc_driver to anything but
 * mpiio (the addition is taken back before the next create or open, so the
 * info's choice holds). COLIO_PNETCDF_DRIVER=keep leaves PnetCDF's choice
 * alone; COLIO_DISABLE=1 turns all of libcolio_mpiio off. Earlier PnetCDF
 * releases, which have no GIO driver, ignore the key.
 */
#include "mpiio/pnetcdf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ADDED "nc_driver=mpiio"
/* Set beside it: a process started by one that added it (mpiexec, preloaded too) knows it is colio's. */
#define MARK "COLIO_PNETCDF_ADDED"

static int added; /* PNETCDF_HINTS holds our ADDED (and the program has not chosen otherwise) */

/* Whether a PNETCDF_HINTS value names key (entries "key=value" apart by ';', blanks allowed). */
static int names_key(const char *hints, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = hints; p && *p; p = strchr(p, ';'), p = p ? p + 1 : NULL) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, key, n) == 0 && (p[n] == '=' || p[n] == ' ' || p[n] == '\t'))
            return 1;
    }
    return 0;
}

/* Whether hints ends with ADDED, as ask_for_mpiio leaves it. */
static int ends_with_added(const char *hints)
{
    size_t n = strlen(hints), k = strlen(ADDED);
    return n >= k && strcmp(hints + n - k, ADDED) == 0 && (n == k || hints[n - k - 1] == ';');
}

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcasecmp(v, value) == 0;
}

__attribute__((constructor)) static void ask_for_mpiio(void)
{
    const char *off = getenv("COLIO_DISABLE");
    if ((off && *off && strcmp(off, "0") != 0) || env_is("COLIO_PNETCDF_DRIVER", "keep"))
        return;
    const char *hints = getenv("PNETCDF_HINTS");
    if (hints && names_key(hints, "nc_driver")) { /* the user's choice, or colio's in the parent */
        added = env_is(MARK, "1") && ends_with_added(hints);
        return;
    }
    char value[4096];
    int n = hints && *hints ? snprintf(value, sizeof value, "%s;" ADDED, hints) : snprintf(value, sizeof value, ADDED);
    if (n < 0 || n >= (int)sizeof value || setenv("PNETCDF_HINTS", value, 1) != 0)
        return;
    setenv(MARK, "1", 1);
    added = 1;
}

/* Take ADDED out of PNETCDF_HINTS again (it is the last entry: ask_for_mpiio put it there). */
static void take_back(void)
{
    const char *hints = getenv("PNETCDF_HINTS");
    size_t n = hints ? strlen(hints) : 0, k = strlen(ADDED);
    added = 0;
    unsetenv(MARK);
    if (!hints || !ends_with_added(hints))
        return; /* the program rewrote the variable: its own now */
    if (n == k) {
        unsetenv("PNETCDF_HINTS");
        return;
    }
    char *copy = strndup(hints, n - k - 1); /* without ";" ADDED */
    if (copy)
        setenv("PNETCDF_HINTS", copy, 1);
    free(copy);
}

void colio_pnetcdf_info_set(const char *key, const char *value)
{
    if (added && key && value && strcmp(key, "nc_driver") == 0 && strcasecmp(value, "mpiio") != 0)
        take_back();
}

const char *colio_pnetcdf_note(void)
{
    return added ? "PNETCDF_HINTS gained nc_driver=mpiio: PnetCDF 1.15 and later would take its GIO driver, "
                   "which makes no MPI-IO call (COLIO_PNETCDF_DRIVER=keep leaves PnetCDF's choice)"
                 : NULL;
}
