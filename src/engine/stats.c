/* Per-operation statistics: kept on the handle, optionally appended as JSON lines. */
#include "engine/stats.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/file.h"

static void add_times(colio_phase_times *sum, const colio_phase_times *t)
{
    sum->total += t->total;
    sum->meta_exchange += t->meta_exchange;
    sum->data_exchange += t->data_exchange;
    sum->io += t->io;
    sum->compute += t->compute;
    sum->io_async += t->io_async;
}

static void accumulate(colio_op_stats *sum, const colio_op_stats *s)
{
    add_times(&sum->time, &s->time);
    sum->bytes += s->bytes;
    sum->pieces += s->pieces;
    sum->rounds += s->rounds;
    sum->io_calls += s->io_calls;
    sum->io_bytes += s->io_bytes;
    sum->sent_bytes += s->sent_bytes;
    sum->recv_bytes += s->recv_bytes;
    if (s->memory > sum->memory)
        sum->memory = s->memory;
    if (s->aggregators > sum->aggregators)
        sum->aggregators = s->aggregators;
    sum->is_aggregator |= s->is_aggregator;
    sum->messages += s->messages;
    sum->plans_reused += s->plans_reused;
    sum->max_requests = s->max_requests > sum->max_requests ? s->max_requests : sum->max_requests;
    sum->max_fanin = s->max_fanin > sum->max_fanin ? s->max_fanin : sum->max_fanin;
    sum->exchange_min += s->exchange_min;
    sum->exchange_max += s->exchange_max;
    sum->hop_bytes += s->hop_bytes;
    sum->max_link_bytes += s->max_link_bytes;
    sum->agg_bytes_max = s->agg_bytes_max > sum->agg_bytes_max ? s->agg_bytes_max : sum->agg_bytes_max;
    sum->agg_bytes_min = s->agg_bytes_min > sum->agg_bytes_min ? s->agg_bytes_min : sum->agg_bytes_min;
    sum->predicted_cost += s->predicted_cost;
    sum->predicted_two_phase += s->predicted_two_phase;
    sum->predicted_direct += s->predicted_direct;
    sum->meta_messages += s->meta_messages;
    sum->detour_bytes += s->detour_bytes;
    sum->express += s->express;
    sum->io_jobs_handed += s->io_jobs_handed;
    if (s->meta_words)
        sum->meta_words = s->meta_words;
    sum->work_runs += s->work_runs;
    sum->work_pieces += s->work_pieces;
    sum->work_bytes += s->work_bytes;
    if (s->strategy[0])
        memcpy(sum->strategy, s->strategy, sizeof sum->strategy);
    if (s->placement[0])
        memcpy(sum->placement, s->placement, sizeof sum->placement);
    if (s->meta_kernel[0])
        memcpy(sum->meta_kernel, s->meta_kernel, sizeof sum->meta_kernel);
    if (s->data_kernel[0])
        memcpy(sum->data_kernel, s->data_kernel, sizeof sum->data_kernel);
}

/* JSON string body: quotes, backslashes and control characters escaped. */
static void json_escape(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    for (; *in && o + 7 < outlen; in++) {
        unsigned char c = (unsigned char)*in;
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(out + o, outlen - o, "\\%c", c);
        else if (c < 0x20)
            o += (size_t)snprintf(out + o, outlen - o, "\\u%04x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

int colio_stats_json(char *out, int outlen, const colio_op_stats *s, const char *api, int rank,
                     const char *path)
{
    char esc[1100];
    json_escape(path, esc, sizeof esc);
    return snprintf(out, (size_t)outlen,
                    "{\"op\":\"%s\",\"rank\":%d,\"path\":\"%s\",\"time\":%.9f,\"meta_exchange\":%.9f,"
                    "\"data_exchange\":%.9f,\"io\":%.9f,\"io_async\":%.9f,\"compute\":%.9f,\"bytes\":%lld,\"pieces\":%lld,"
                    "\"rounds\":%lld,\"io_calls\":%lld,\"io_bytes\":%lld,\"sent_bytes\":%lld,"
                    "\"recv_bytes\":%lld,\"memory\":%lld,\"aggregators\":%d,\"is_aggregator\":%d,"
                    "\"meta_kernel\":\"%s\",\"data_kernel\":\"%s\",\"messages\":%lld,\"max_requests\":%lld,"
                    "\"max_fanin\":%lld,\"exchange_min\":%.9f,\"exchange_max\":%.9f,\"plan_reused\":%lld,"
                    "\"placement\":\"%s\",\"hop_bytes\":%lld,\"max_link_bytes\":%lld,\"agg_bytes_max\":%lld,"
                    "\"agg_bytes_min\":%lld,\"predicted_cost\":%.9g,\"strategy\":\"%s\","
                    "\"predicted_two_phase\":%.9g,\"predicted_direct\":%.9g,\"meta_messages\":%lld,"
                    "\"detour_bytes\":%lld,\"express\":%lld,\"io_jobs_handed\":%lld,\"meta_words\":%lld,"
                    "\"work_runs\":%lld,\"work_pieces\":%lld,\"work_bytes\":%lld}",
                    api, rank, esc, s->time.total, s->time.meta_exchange, s->time.data_exchange, s->time.io,
                    s->time.io_async, s->time.compute, (long long)s->bytes, (long long)s->pieces, (long long)s->rounds,
                    (long long)s->io_calls, (long long)s->io_bytes, (long long)s->sent_bytes,
                    (long long)s->recv_bytes, (long long)s->memory, s->aggregators, s->is_aggregator,
                    s->meta_kernel, s->data_kernel, (long long)s->messages, (long long)s->max_requests,
                    (long long)s->max_fanin, s->exchange_min, s->exchange_max, (long long)s->plans_reused,
                    s->placement, (long long)s->hop_bytes, (long long)s->max_link_bytes,
                    (long long)s->agg_bytes_max, (long long)s->agg_bytes_min, s->predicted_cost, s->strategy,
                    s->predicted_two_phase, s->predicted_direct, (long long)s->meta_messages,
                    (long long)s->detour_bytes, (long long)s->express, (long long)s->io_jobs_handed,
                    (long long)s->meta_words, (long long)s->work_runs, (long long)s->work_pieces, (long long)s->work_bytes);
}

/* One write(2) per line with O_APPEND, so lines of different ranks never interleave. */
static void append_line(const char *stats_path, const char *line, int len)
{
    int fd = open(stats_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return; /* statistics never fail an operation */
    ssize_t rc = write(fd, line, (size_t)len);
    (void)rc;
    close(fd);
}

/* colio_stats names a file; "", "0", "none", "off", "false" and "disable" mean no statistics file. */
static int stats_file_wanted(const char *path)
{
    static const char *const off[] = {"", "0", "none", "off", "false", "disable"};
    if (path[0] == '\0') /* the default: no file, decided without a comparison per call */
        return 0;
    for (size_t i = 0; i < sizeof off / sizeof *off; i++)
        if (strcmp(path, off[i]) == 0)
            return 0;
    return 1;
}

colio_op_stats *colio_stats_fresh(colio_file *fh)
{
    memset(&fh->stats.last, 0, sizeof fh->stats.last);
    return &fh->stats.last;
}

void colio_stats_record(colio_file *fh, const colio_op_stats *op, const char *api)
{
    if (op != &fh->stats.last)
        fh->stats.last = *op;
    op = &fh->stats.last;
    fh->stats.operations++;
    accumulate(&fh->stats.total, op);
    if (!stats_file_wanted(fh->hints.stats_path))
        return;
    char line[2048];
    int len = colio_stats_json(line, (int)sizeof line - 1, op, api, fh->rank, fh->path);
    if (len <= 0 || len >= (int)sizeof line - 1)
        return;
    line[len++] = '\n';
    append_line(fh->hints.stats_path, line, len);
}
