/*
 * The fixed cost of one C ABI call: every call looks its handle up in the library's handle
 * table (a lock, a bounds check, a counted reference), so this measures that cost where it
 * weighs most — jobsort_column_count (nothing else to do) and jobsort_eval of 1 job — and
 * jobsort_eval of N jobs, the call a scheduler (the Slurm site_factor plugin) makes once per
 * update, for scale. Prints the best of 5 runs of each, in nanoseconds per call.
 *
 *   cargo build --release --lib
 *   gcc -O2 -Iinclude examples/c/call_cost.c target/release/libjobsort.a \
 *       -lpthread -ldl -lm -o call_cost && ./call_cost [CALLS] [N]
 *
 * Built by tests/it/capi_c.rs (which runs it with few calls, to keep it compiling and working).
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include "jobsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 10000;
    if (calls <= 0 || n == 0) {
        fprintf(stderr, "usage: call_cost [CALLS > 0] [N > 0]\n");
        return 2;
    }
    JobsortFormula *f = jobsort_compile("ncpus * 10 + walltime / 60", NULL, NULL);
    if (!f) {
        fprintf(stderr, "call_cost: %s\n", jobsort_last_error());
        return 1;
    }
    double *ncpus = malloc(n * sizeof(double)), *walltime = malloc(n * sizeof(double));
    double *out = malloc(n * sizeof(double));
    uint8_t *errors = malloc(n);
    if (!ncpus || !walltime || !out || !errors) return 1;
    for (size_t i = 0; i < n; i++) {
        ncpus[i] = 1 + i % 64;
        walltime[i] = 60 * (1 + i % 1440);
    }
    size_t k = 0;
    jobsort_column_index(f, "ncpus", &k);
    const double *columns[2];
    columns[k] = ncpus;
    columns[1 - k] = walltime;

    double best_count = 1e300, best_one = 1e300, best_n = 1e300;
    long n_calls = calls / 1000 > 0 ? calls / 1000 : 1;
    for (int rep = 0; rep < 5; rep++) {
        size_t count = 0;
        double t = now_ns();
        for (long c = 0; c < calls; c++) {
            if (jobsort_column_count(f, &count) != JOBSORT_STATUS_OK) return 1;
        }
        t = (now_ns() - t) / calls;
        if (t < best_count) best_count = t;

        t = now_ns();
        for (long c = 0; c < calls; c++) {
            if (jobsort_eval(f, columns, 1, out, errors) != JOBSORT_STATUS_OK) return 1;
        }
        t = (now_ns() - t) / calls;
        if (t < best_one) best_one = t;

        t = now_ns();
        for (long c = 0; c < n_calls; c++) {
            if (jobsort_eval(f, columns, n, out, errors) != JOBSORT_STATUS_OK) return 1;
        }
        t = (now_ns() - t) / n_calls;
        if (t < best_n) best_n = t;
    }
    printf("jobsort_column_count: %.1f ns per call\n", best_count);
    printf("jobsort_eval, 1 job: %.1f ns per call\n", best_one);
    printf("jobsort_eval, %zu jobs: %.1f ns per call (%.2f ns per job)\n", n, best_n, best_n / n);
    jobsort_free(f);
    free(ncpus);
    free(walltime);
    free(out);
    free(errors);
    return 0;
}
