/*
 * A toy scheduling cycle through the jobsort C ABI: read a job list, compile a PBS
 * job_sort_formula once, bind the job columns the formula reads, evaluate every job, rank,
 * print.
 *
 *   cc -I include examples/c/scheduler.c target/debug/libjobsort.a -lpthread -ldl -lm \
 *      -o scheduler && ./scheduler examples/c/jobs.txt
 *
 * Job list format (examples/c/jobs.txt): whitespace-separated columns, the first
 * non-comment line names them; `id` is the job id, `submit` (optional) breaks ties; every
 * other column is a number. A column the formula reads but the file lacks is 0 for every
 * job (PBS: a job that did not request a resource has 0).
 *
 * Output (stdout): one line per job in rank order, `rank id value [error: message]`, the
 * value printed with 17 significant digits so it round-trips exactly. Diagnostics go to
 * stderr. Exit status: 0 on success, 1 on any error.
 */
#include "jobsort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMULA "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus"
#define MAX_COLUMNS 64
#define MAX_LINE 4096

/* The job list, columnar: names[k] and values[k][job]. */
typedef struct {
    size_t ncolumns;
    char *names[MAX_COLUMNS];
    double *values[MAX_COLUMNS];
    char **ids;
    size_t njobs, capacity;
    int id_column, submit_column;
} JobList;

static void free_jobs(JobList *jobs) {
    for (size_t k = 0; k < jobs->ncolumns; k++) {
        free(jobs->names[k]);
        free(jobs->values[k]);
    }
    for (size_t i = 0; i < jobs->njobs; i++) free(jobs->ids[i]);
    free(jobs->ids);
}

static char *dup_string(const char *s) {
    size_t len = strlen(s) + 1;
    char *d = malloc(len);
    if (d) memcpy(d, s, len);
    return d;
}

/* Read `path` into `jobs`; on error print `path:line: reason` and return -1. */
static int read_jobs(const char *path, JobList *jobs) {
    memset(jobs, 0, sizeof *jobs);
    jobs->id_column = jobs->submit_column = -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[MAX_LINE];
    size_t lineno = 0;
    int have_header = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line + strspn(line, " \t\r\n");
        if (*p == '\0' || *p == '#') continue;
        if (!have_header) {
            for (char *tok = strtok(p, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
                if (jobs->ncolumns == MAX_COLUMNS) {
                    fprintf(stderr, "%s:%zu: more than %d columns\n", path, lineno, MAX_COLUMNS);
                    goto fail;
                }
                if (strcmp(tok, "id") == 0) jobs->id_column = (int)jobs->ncolumns;
                if (strcmp(tok, "submit") == 0) jobs->submit_column = (int)jobs->ncolumns;
                jobs->names[jobs->ncolumns++] = dup_string(tok);
            }
            if (jobs->id_column < 0) {
                fprintf(stderr, "%s:%zu: the header has no `id` column\n", path, lineno);
                goto fail;
            }
            have_header = 1;
            continue;
        }
        if (jobs->njobs == jobs->capacity) {
            size_t cap = jobs->capacity ? 2 * jobs->capacity : 16;
            char **ids = realloc(jobs->ids, cap * sizeof *ids);
            if (!ids) goto oom;
            jobs->ids = ids;
            for (size_t k = 0; k < jobs->ncolumns; k++) {
                double *v = realloc(jobs->values[k], cap * sizeof *v);
                if (!v) goto oom;
                jobs->values[k] = v;
            }
            jobs->capacity = cap;
        }
        size_t i = jobs->njobs, k = 0;
        char *id = NULL;
        for (char *tok = strtok(p, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n"), k++) {
            if (k == jobs->ncolumns) {
                fprintf(stderr, "%s:%zu: more fields than the %zu columns of the header\n", path,
                        lineno, jobs->ncolumns);
                free(id);
                goto fail;
            }
            if ((int)k == jobs->id_column) {
                id = dup_string(tok);
                jobs->values[k][i] = 0.0;
                continue;
            }
            char *end;
            errno = 0;
            double v = strtod(tok, &end);
            if (*end != '\0' || errno == ERANGE) {
                fprintf(stderr, "%s:%zu: column `%s`: `%s` is not a number\n", path, lineno,
                        jobs->names[k], tok);
                free(id);
                goto fail;
            }
            jobs->values[k][i] = v;
        }
        if (k != jobs->ncolumns) {
            fprintf(stderr, "%s:%zu: %zu fields, the header has %zu columns\n", path, lineno, k,
                    jobs->ncolumns);
            free(id);
            goto fail;
        }
        jobs->ids[i] = id;
        jobs->njobs++;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error\n", path);
        goto fail;
    }
    fclose(f);
    return 0;
oom:
    fprintf(stderr, "%s: out of memory\n", path);
fail:
    fclose(f);
    free_jobs(jobs);
    return -1;
}

static const char *severity_name(JobsortSeverity s) {
    switch (s) {
    case JOBSORT_SEVERITY_ERROR: return "error";
    case JOBSORT_SEVERITY_WARNING: return "warning";
    default: return "note";
    }
}

/* Print every diagnostic as `severity[code] at start..end: message` to stderr. */
static void print_diagnostics(const JobsortDiagnostics *diags) {
    size_t count = 0;
    if (!diags || jobsort_diagnostics_count(diags, &count) != JOBSORT_STATUS_OK) return;
    for (size_t i = 0; i < count; i++) {
        JobsortSeverity severity;
        const char *code, *message;
        size_t start, end;
        if (jobsort_diagnostic_severity(diags, i, &severity) != JOBSORT_STATUS_OK ||
            jobsort_diagnostic_code(diags, i, &code) != JOBSORT_STATUS_OK ||
            jobsort_diagnostic_message(diags, i, &message) != JOBSORT_STATUS_OK ||
            jobsort_diagnostic_span(diags, i, &start, &end) != JOBSORT_STATUS_OK) {
            fprintf(stderr, "jobsort: %s\n", jobsort_last_error());
            return;
        }
        fprintf(stderr, "%s[%s] at %zu..%zu: %s\n", severity_name(severity), code, start, end,
                message);
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "examples/c/jobs.txt";
    const char *formula_text = argc > 2 ? argv[2] : FORMULA;
    int status = 1;
    JobList jobs;
    if (read_jobs(path, &jobs) != 0) return 1;
    if (jobs.njobs == 0) {
        fprintf(stderr, "%s: no jobs\n", path);
        free_jobs(&jobs);
        return 1;
    }

    JobsortCatalog *catalog = jobsort_catalog_new();
    JobsortDiagnostics *diags = NULL;
    JobsortFormula *formula = NULL;
    const double **columns = NULL;
    double *zeros = NULL, *values = NULL;
    uint8_t *errors = NULL;
    size_t *order = NULL;

    /* Compile once (a real scheduler keeps `formula` across cycles). */
    formula = jobsort_compile(formula_text, catalog, &diags);
    if (!formula) fprintf(stderr, "jobsort: %s\n", jobsort_last_error());
    print_diagnostics(diags); /* (each jobsort call clears the last error) */
    if (!formula) goto done;

    /* Bind the columns the formula reads, by name, once. */
    size_t ncolumns = 0;
    if (jobsort_column_count(formula, &ncolumns) != JOBSORT_STATUS_OK) {
        fprintf(stderr, "jobsort: %s\n", jobsort_last_error());
        goto done;
    }
    columns = calloc(ncolumns ? ncolumns : 1, sizeof *columns);
    zeros = calloc(jobs.njobs, sizeof *zeros);
    values = malloc(jobs.njobs * sizeof *values);
    errors = malloc(jobs.njobs);
    order = malloc(jobs.njobs * sizeof *order);
    if (!columns || !zeros || !values || !errors || !order) {
        fprintf(stderr, "out of memory\n");
        goto done;
    }
    for (size_t k = 0; k < jobs.ncolumns; k++) {
        size_t index;
        if (jobsort_column_index(formula, jobs.names[k], &index) == JOBSORT_STATUS_OK)
            columns[index] = jobs.values[k];
        /* JOBSORT_STATUS_UNKNOWN_COLUMN: the formula does not read this column. */
    }
    for (size_t k = 0; k < ncolumns; k++) {
        if (!columns[k]) {
            const char *name = "?";
            jobsort_column_name(formula, k, &name);
            fprintf(stderr, "note: %s has no column `%s`: 0 for every job\n", path, name);
            columns[k] = zeros;
        }
    }

    /* One scheduling cycle: evaluate, rank, print. */
    if (jobsort_eval(formula, columns, jobs.njobs, values, errors) != JOBSORT_STATUS_OK ||
        jobsort_rank(values, jobs.njobs,
                     jobs.submit_column >= 0 ? jobs.values[jobs.submit_column] : NULL,
                     order) != JOBSORT_STATUS_OK) {
        fprintf(stderr, "jobsort: %s\n", jobsort_last_error());
        goto done;
    }
    printf("# jobsort %s: %s\n", jobsort_version(), formula_text);
    printf("# rank id value\n");
    for (size_t r = 0; r < jobs.njobs; r++) {
        size_t i = order[r];
        printf("%zu %s %.17g", r + 1, jobs.ids[i], values[i]);
        if (errors[i]) printf(" error: %s", jobsort_eval_error_message(errors[i]));
        printf("\n");
    }
    status = 0;

done:
    free(order);
    free(errors);
    free(values);
    free(zeros);
    free(columns);
    jobsort_free(formula);
    jobsort_diagnostics_free(diags);
    jobsort_catalog_free(catalog);
    free_jobs(&jobs);
    return status;
}
