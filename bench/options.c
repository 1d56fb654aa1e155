/* colio-bench command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run.h"

static const char *usage =
    "usage: mpiexec -n N colio-bench [options]\n"
    "  --workload LIST   comma-separated, or all (default): interleaved,random,cube,collperf,flash,btio,hacc,e3sm,\n"
    "                    lattice (4D lattice QCD gauge field, subarray view); also ior (IOR's segmented\n"
    "                    pattern, one collective call per block; not in all)\n"
    "  --size S          small (default), medium or large\n"
    "  --sweep LIST      several sizes, e.g. small,medium,large (bandwidth against size)\n"
    "  --engine LIST     colio,mpiio (default), posix, ceiling, alltoallv (the hand-written transposition:\n"
    "                    one MPI_Alltoallv into p file-order slabs, then one pwrite or pread per rank),\n"
    "                    gio (GIO's list calls, where colio-bench was built with GIO: scripts/peers.sh);\n"
    "                    colio:KERNEL (e.g. colio:balanced) or colio:key=value+key=value runs colio with\n"
    "                    those hints too, side by side\n"
    "  --steps N         colio, mpiio, alltoallv: N collective calls per open file, like checkpoint steps;\n"
    "                    posix, ceiling: N passes over the pieces on one open file; times are per call\n"
    "                    (default 1)\n"
    "  --op LIST         write,read (default)\n"
    "  --repeat N        timed repeats (default 5), medians quoted\n"
    "  --warmup N        untimed runs first (default 1)\n"
    "  --interleave      every engine once per repeat, in an order shuffled each repeat (default: each\n"
    "                    engine's repeats in a row): the machine's drift falls on all alike; x_mpiio\n"
    "                    is then the median of the repeats' ratios. Warm-ups still run engine by\n"
    "                    engine first; reads rewrite the file whenever the layout changes (plain or\n"
    "                    subfiled), so the next reader may find it fresh in the page cache\n"
    "  --dir PATH        where files go (default /dev/shm, else /tmp)\n"
    "  --sync            writes flush to storage before the clock stops (colio_sync, MPI_File_sync,\n"
    "                    GIO_sync, fsync: IOR's -e)\n"
    "  --drop-cache      before every read, untimed: the file's pages evicted from the page cache (as\n"
    "                    root all clean pages, /proc/sys/vm/drop_caches; else posix_fadvise), so reads\n"
    "                    meet the device\n"
    "  --hints H         \"key=value;...\" for colio; the standard keys also for MPI-IO\n"
    "  --api view|list   colio through its view (default) or its request-list calls\n"
    "  --json FILE       also write the results as JSON\n"
    "  --buffer-offset N the ranks' data buffers N bytes past a page (0-4095); default: where malloc puts\n"
    "                    them (glibc: 16 bytes past a page for large ones). Copies between memory and\n"
    "                    the file, or between ranks, run slowly at some offsets on some CPUs\n"
    "  --quick           every workload, small, colio and mpiio, write and read, 5 repeats\n"
    "  --block LIST      interleaved, ior: block bytes (default 64); a list runs them once per size\n"
    "  --particles N     hacc: particles per rank\n"
    "  --layout aos|soa  hacc: particle layout (default soa)\n"
    "  --decomp FILE     e3sm: decomposition map (NetCDF, E3SM-IO format)\n"
    "  --header FILE     e3sm: output header (ncdump -h text)\n"
    "  --seed N          random, e3sm synthetic: seed (default 1)\n"
    "  --quiet           no progress lines on stderr\n";

static int split_list(char *s, const char **out, int max)
{
    int n = 0;
    for (char *save, *t = strtok_r(s, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
        out[n++] = t;
    return n;
}

static int parse_size(const char *s, bench_size_t *out)
{
    static const char *const names[] = {"small", "medium", "large"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0)
            return *out = (bench_size_t)i, 0;
    return -1;
}

const char *bench_size_name(bench_size_t s)
{
    return s == BENCH_SMALL ? "small" : (s == BENCH_MEDIUM ? "medium" : "large");
}

static void defaults(bench_options_t *o)
{
    static char all[] = "interleaved,random,cube,collperf,flash,btio,hacc,e3sm,lattice", engines[] = "colio,mpiio";
    memset(o, 0, sizeof *o);
    o->nworkloads = split_list(strdup(all), o->workloads, BENCH_MAX_LIST);
    o->nengines = split_list(strdup(engines), o->engines, BENCH_MAX_LIST);
    o->sizes[0] = BENCH_SMALL;
    o->nsizes = 1;
    o->ops[0] = 1, o->ops[1] = 0, o->nops = 2;
    o->repeat = 5;
    o->warmup = 1;
    o->steps = 1;
    o->buffer_offset = -1;
    struct stat sb;
    o->dir = stat("/dev/shm", &sb) == 0 ? "/dev/shm" : "/tmp";
    o->params.seed = 1;
    (void)all;
}

static int parse_ops(char *s, bench_options_t *o)
{
    const char *ops[4];
    int n = split_list(s, ops, 4);
    o->nops = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(ops[i], "write") && strcmp(ops[i], "read"))
            return -1;
        o->ops[o->nops++] = strcmp(ops[i], "write") == 0;
        if (o->nops == 2)
            break;
    }
    return o->nops ? 0 : -1;
}

/* --block N or a list (64,4096,1048576): the block-sized workloads run once per size. */
static int parse_blocks(char *s, bench_options_t *o)
{
    const char *b[BENCH_MAX_LIST];
    int n = split_list(s, b, BENCH_MAX_LIST);
    for (o->nblocks = 0; o->nblocks < n; o->nblocks++)
        if ((o->blocks[o->nblocks] = atoll(b[o->nblocks])) <= 0)
            return -1;
    o->params.block = n > 0 ? o->blocks[0] : 0;
    return n > 0 ? 0 : -1;
}

/* One option with its value; returns -1 for an unknown option or a bad value. */
static int apply(bench_options_t *o, const char *opt, char *val)
{
    if (!strcmp(opt, "--workload"))
        return strcmp(val, "all") ? (o->nworkloads = split_list(val, o->workloads, BENCH_MAX_LIST)) > 0 ? 0 : -1 : 0;
    if (!strcmp(opt, "--size"))
        return o->nsizes = 1, parse_size(val, &o->sizes[0]);
    if (!strcmp(opt, "--sweep")) {
        const char *s[3];
        int n = split_list(val, s, 3);
        for (o->nsizes = 0; o->nsizes < n; o->nsizes++)
            if (parse_size(s[o->nsizes], &o->sizes[o->nsizes]) != 0)
                return -1;
        return n ? 0 : -1;
    }
    if (!strcmp(opt, "--engine"))
        return (o->nengines = split_list(val, o->engines, BENCH_MAX_LIST)) > 0 ? 0 : -1;
    if (!strcmp(opt, "--steps"))
        return (o->steps = atoi(val)) >= 1 ? 0 : -1;
    if (!strcmp(opt, "--op"))
        return parse_ops(val, o);
    if (!strcmp(opt, "--repeat"))
        return (o->repeat = atoi(val)) >= 1 ? 0 : -1;
    if (!strcmp(opt, "--warmup"))
        return (o->warmup = atoi(val)) >= 0 ? 0 : -1;
    if (!strcmp(opt, "--dir"))
        return o->dir = val, 0;
    if (!strcmp(opt, "--hints"))
        return o->hints = val, 0;
    if (!strcmp(opt, "--api"))
        return strcmp(val, "list") == 0 ? (o->use_lists = 1, 0) : (strcmp(val, "view") == 0 ? 0 : -1);
    if (!strcmp(opt, "--buffer-offset"))
        return (o->buffer_offset = atoi(val)) >= 0 && o->buffer_offset < 4096 ? 0 : -1;
    if (!strcmp(opt, "--json"))
        return o->json = val, 0;
    if (!strcmp(opt, "--block"))
        return parse_blocks(val, o);
    if (!strcmp(opt, "--particles"))
        return (o->params.particles = atoll(val)) > 0 ? 0 : -1;
    if (!strcmp(opt, "--layout"))
        return strcmp(val, "aos") == 0 ? (o->params.aos = 1, 0) : (strcmp(val, "soa") == 0 ? 0 : -1);
    if (!strcmp(opt, "--decomp"))
        return o->params.decomp = val, 0;
    if (!strcmp(opt, "--header"))
        return o->params.header = val, 0;
    if (!strcmp(opt, "--seed"))
        return o->params.seed = strtoull(val, NULL, 10), 0;
    return -1;
}

int bench_parse(int argc, char **argv, bench_options_t *o, int rank)
{
    defaults(o);
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            if (rank == 0)
                fputs(usage, stdout);
            return 1;
        }
        if (!strcmp(opt, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (!strcmp(opt, "--sync") || !strcmp(opt, "--drop-cache")) {
            *(opt[2] == 's' ? &o->sync : &o->drop_cache) = 1;
            continue;
        }
        if (!strcmp(opt, "--interleave")) {
            o->interleave = 1;
            continue;
        }
        if (!strcmp(opt, "--quick")) { /* the README's main job */
            o->repeat = 5;
            o->nsizes = 1, o->sizes[0] = BENCH_SMALL;
            continue;
        }
        if (i + 1 >= argc || apply(o, opt, argv[i + 1]) != 0) {
            if (rank == 0)
                fprintf(stderr, "colio-bench: bad or incomplete option %s\n%s", opt, usage);
            return -1;
        }
        i++;
    }
    for (int i = 0; i < o->nworkloads; i++)
        if (bench_workload_find(o->workloads[i]) == NULL) {
            if (rank == 0)
                fprintf(stderr, "colio-bench: unknown workload %s\n", o->workloads[i]);
            return -1;
        }
    for (int i = 0; i < o->nengines; i++)
        if (bench_engine_find(o->engines[i]) == NULL) {
            if (rank == 0)
                fprintf(stderr, "colio-bench: unknown engine %s\n", o->engines[i]);
            return -1;
        }
    return 0;
}
