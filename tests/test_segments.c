#define _POSIX_C_SOURCE 200809L /* mkdir, rmdir */
/* The segment list of a run over several processes or rounds (ensemble/parts/segments.h): segments
 * cut at the statistics' 1,024-member blocks, one a rank, appended round after round; the list
 * written and read back the same; a list of another run (other members, a run that ends early
 * without being a target run, a segment off a block boundary, a damaged file) refused with a
 * message that names it; the parts' names; a finished part a regular file only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/moments.h"
#include "parts/segments.h"
#include "test_common.h"

/* Every segment non-empty, ascending, on a block boundary except the run's end. */
static int well_cut(const segments *g, int64_t end)
{
    int ok = g->bounds[0] == 0 && g->bounds[g->count] == end;
    for (int s = 0; s < g->count; ++s)
        ok &= g->bounds[s + 1] > g->bounds[s] &&
              (g->bounds[s + 1] == end || g->bounds[s + 1] % MOMENTS_BLOCK == 0);
    return ok;
}

static void extend_case(segments *g)
{
    g->members = 10000, g->count = 0, g->bounds[0] = 0;
    segments_extend(g, 10000, 3); /* 10 blocks over 3 ranks: 3, 3, 4 blocks (the last short) */
    EXPECT(g->count == 3 && well_cut(g, 10000) && g->bounds[1] == 3 * MOMENTS_BLOCK &&
               g->bounds[2] == 6 * MOMENTS_BLOCK,
           "10,000 members over 3 ranks: %d segments, bounds %lld %lld %lld", g->count,
           (long long)g->bounds[1], (long long)g->bounds[2], (long long)g->bounds[3]);
    g->members = 5000, g->count = 0; /* a target run's rounds: 2,048 members, then 5,000 */
    segments_extend(g, 2048, 4);     /* 2 blocks over 4 ranks: empty segments left out */
    EXPECT(g->count == 2 && well_cut(g, 2048), "2,048 members over 4 ranks: %d segments", g->count);
    segments_extend(g, 5000, 2); /* the next round appended */
    EXPECT(g->count == 4 && well_cut(g, 5000) && g->bounds[2] == 2048 && g->bounds[3] == 3072,
           "a round to 5,000 over 2 ranks: %d segments", g->count);
}

/* The list written and read back; then the reads a run must refuse. */
static void list_case(const segments *g)
{
    char path[] = "test_segments.ranks", err[512] = "";
    segments back;
    EXPECT(segments_list_write(path, g), "cannot write %s", path);
    EXPECT(segments_list_read(path, g->members, 0, &back, err, sizeof err) == 0 &&
               back.count == g->count &&
               !memcmp(back.bounds, g->bounds, (size_t)(g->count + 1) * sizeof g->bounds[0]),
           "read back: %s", err);
    EXPECT(segments_list_read(path, g->members + 1, 0, &back, err, sizeof err) == 2 &&
               strstr(err, path) && strstr(err, "--overwrite"),
           "a list of other members accepted (%s)", err);
    segments early = *g;
    early.count -= 1; /* a list that ends before the members: only a target run's rounds do */
    EXPECT(segments_list_write(path, &early), "cannot write %s", path);
    EXPECT(segments_list_read(path, g->members, 0, &back, err, sizeof err) == 2,
           "a short list accepted for a run without a target");
    EXPECT(segments_list_read(path, g->members, 1, &back, err, sizeof err) == 0 &&
               back.count == early.count,
           "a target run's rounds so far refused: %s", err);
    segments off = *g;
    off.bounds[1] += 1; /* a segment off a block boundary */
    EXPECT(segments_list_write(path, &off), "cannot write %s", path);
    EXPECT(segments_list_read(path, g->members, 0, &back, err, sizeof err) == 2,
           "a segment off a block boundary accepted");
    FILE *f = fopen(path, "w");
    if (f) fputs("cohort segments 1\nmembers 5000\nsegm", f), fclose(f);
    EXPECT(segments_list_read(path, g->members, 0, &back, err, sizeof err) == 2,
           "a damaged list accepted");
    remove(path);
    EXPECT(segments_list_read(path, g->members, 0, &back, err, sizeof err) == 2,
           "a missing list accepted");
}

static void parts_case(const segments *g)
{
    char name[256];
    segments_list_name("out/flow.nc", name, sizeof name);
    EXPECT(!strcmp(name, "out/flow.nc.ranks"), "list name %s", name);
    segments_part_name("out/flow.nc", g, 1, name, sizeof name);
    EXPECT(!strcmp(name, "out/flow.nc.part-1024-2048.nc"), "part name %s", name);
    const char **parts = segments_part_names("x.nc", g);
    EXPECT(parts && !strcmp(parts[0], "x.nc.part-0-1024.nc") &&
               !strcmp(parts[g->count - 1], "x.nc.part-3072-5000.nc"),
           "part names %s .. %s", parts ? parts[0] : "(none)",
           parts ? parts[g->count - 1] : "(none)");
    if (parts) free((void *)parts[0]), free(parts);
    const char *part = "test_segments.part.nc";
    EXPECT(!segments_part_done(part), "a missing part is finished");
    mkdir(part, 0700);
    EXPECT(!segments_part_done(part), "a directory is a finished part");
    rmdir(part);
    FILE *f = fopen(part, "w");
    if (f) fclose(f);
    EXPECT(segments_part_done(part), "a part's file is not finished");
    segments_part_remove(part);
    EXPECT(!segments_part_done(part), "the part was not removed");
}

int main(void)
{
    segments *g = calloc(1, sizeof *g); /* half a megabyte: not on the stack */
    extend_case(g);
    list_case(g);
    parts_case(g);
    free(g);
    return test_summary();
}
