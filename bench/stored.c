/*
 * How colio-bench reads back what a run stored, and removes it: an
 * ordinary file with plain pread, a subfiled file (colio_subfiles) through
 * its subfiles by the layout its metadata names (the arithmetic of
 * src/subfile/layout.c, unit-tested against brute force; the data path
 * under test -- aggregation, exchange, the subfiling store -- stays out).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "colio.h"
#include "subfile/layout.h"

struct bench_stored {
    int fd;                      /* ordinary file */
    colio_subfile_layout_t lay;  /* subfiled: nsub > 0 */
    int *fds;
};

static char *read_text(const char *path, size_t *len_p)
{
    struct stat sb;
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    if (f && fstat(fileno(f), &sb) == 0 && sb.st_size < (64 << 20) && (text = malloc((size_t)sb.st_size + 1))) {
        *len_p = fread(text, 1, (size_t)sb.st_size, f);
        text[*len_p] = '\0';
    }
    if (f)
        fclose(f);
    return text;
}

bench_stored_t *bench_stored_open(const char *path)
{
    bench_stored_t *s = calloc(1, sizeof *s);
    size_t len = 0;
    char *text = read_text(path, &len), msg[256];
    int subfiled = text && colio_subfile_meta_is(text, len);
    if (s && subfiled && colio_subfile_meta_parse(text, len, path, &s->lay, msg, sizeof msg) == 0 &&
        (s->fds = malloc(sizeof(int) * (size_t)s->lay.nsub))) {
        for (int k = 0; k < s->lay.nsub; k++)
            s->fds[k] = open(s->lay.names[k], O_RDONLY);
    } else if (s) {
        s->fd = subfiled ? -1 : open(path, O_RDONLY);
    }
    free(text);
    if (s && s->lay.nsub == 0 && s->fd < 0) {
        free(s);
        return NULL;
    }
    return s;
}

static int64_t pread_fd(int fd, unsigned char *buf, int64_t len, int64_t off)
{
    int64_t got = 0;
    while (fd >= 0 && got < len) {
        ssize_t k = pread(fd, buf + got, (size_t)(len - got), off + got);
        if (k <= 0)
            break;
        got += k;
    }
    return got;
}

int64_t bench_stored_pread(bench_stored_t *s, unsigned char *buf, int64_t len, int64_t off)
{
    if (s->lay.nsub == 0)
        return pread_fd(s->fd, buf, len, off);
    int64_t done = 0;
    while (done < len) { /* stripe by stripe; a subfile ending early ends the read there */
        int k;
        int64_t phys, stripe_end;
        colio_subfile_locate(&s->lay, off + done, &k, &phys, &stripe_end);
        int64_t n = stripe_end - (off + done) < len - done ? stripe_end - (off + done) : len - done;
        int64_t got = pread_fd(s->fds[k], buf + done, n, phys);
        done += got;
        if (got < n)
            break;
    }
    return done;
}

void bench_stored_close(bench_stored_t *s)
{
    if (s == NULL)
        return;
    for (int k = 0; k < s->lay.nsub; k++)
        if (s->fds && s->fds[k] >= 0)
            close(s->fds[k]);
    if (s->lay.nsub == 0 && s->fd >= 0)
        close(s->fd);
    free(s->fds);
    colio_subfile_layout_free(&s->lay);
    free(s);
}

void bench_stored_remove(const char *path)
{
    colio_delete(path, MPI_INFO_NULL); /* subfiles too; a missing file is fine */
}
