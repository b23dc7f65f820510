/*
 * Calls every jobsort C entry point with bad arguments (NULL handles, NULL columns, an
 * invalid formula, unknown columns and resource types, n = 0, out-of-range indices, the
 * wrong kind of handle, invalid UTF-8, non-finite values, outputs overlapping inputs) and checks that each returns the
 * documented status and a message naming the function and the argument: never a crash.
 * Then checks that the library still works. Run by tests/it/capi_c.rs; also clean under
 * valgrind.
 *
 * Output: one line per failed check, then `bad_args: N passed, M failed`. Exit status 0
 * when every check passed.
 */
#include "jobsort.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

/* Check a status and that the last error contains `needle` ("" for none). */
static void expect(int line, JobsortStatus got, JobsortStatus want, const char *needle) {
    const char *last = jobsort_last_error();
    int ok = got == want && last != NULL &&
             (needle[0] == '\0' ? (want != JOBSORT_STATUS_OK || last[0] == '\0')
                                : strstr(last, needle) != NULL) &&
             jobsort_last_status() == want;
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %d: status %d (want %d), last error \"%s\" (want it to contain \"%s\")\n",
               line, (int)got, (int)want, last ? last : "(null)", needle);
    }
}
#define EXPECT(call, want, needle) expect(__LINE__, (call), (want), (needle))

static void check(int line, int cond, const char *what) {
    if (cond) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %d: %s\n", line, what);
    }
}
#define CHECK(cond) check(__LINE__, (cond), #cond)

int main(void) {
    /* Static strings. */
    CHECK(jobsort_version() != NULL && jobsort_version()[0] != '\0');
    for (int code = -2; code < 20; code++) CHECK(jobsort_error_message(code) != NULL);
    CHECK(strcmp(jobsort_error_message(0), "success") == 0);
    CHECK(strcmp(jobsort_error_message(999), "unknown status code") == 0);
    CHECK(strcmp(jobsort_eval_error_message(0), "") == 0);
    CHECK(strcmp(jobsort_eval_error_message(1), "float division by zero") == 0);
    CHECK(strcmp(jobsort_eval_error_message(255), "unknown evaluation error code") == 0);

    /* Catalog. */
    JobsortCatalog *catalog = jobsort_catalog_new();
    CHECK(catalog != NULL);
    EXPECT(jobsort_catalog_add_resource(NULL, "foo", "long"), JOBSORT_STATUS_NULL_ARGUMENT,
           "jobsort_catalog_add_resource: `catalog` is NULL");
    EXPECT(jobsort_catalog_add_resource(catalog, NULL, "long"), JOBSORT_STATUS_NULL_ARGUMENT,
           "`name` is NULL");
    EXPECT(jobsort_catalog_add_resource(catalog, "foo", NULL), JOBSORT_STATUS_NULL_ARGUMENT,
           "`type_name` is NULL");
    EXPECT(jobsort_catalog_add_resource(catalog, "foo", "complex"),
           JOBSORT_STATUS_UNKNOWN_RESOURCE_TYPE, "unknown resource type `complex`");
    EXPECT(jobsort_catalog_add_resource(catalog, "9foo", "long"), JOBSORT_STATUS_INVALID_ARGUMENT,
           "is not an identifier");
    EXPECT(jobsort_catalog_add_resource(catalog, "", "long"), JOBSORT_STATUS_INVALID_ARGUMENT,
           "is not an identifier");
    EXPECT(jobsort_catalog_add_resource(catalog, "f\xff", "long"), JOBSORT_STATUS_INVALID_UTF8,
           "`name` is not valid UTF-8 (invalid byte at offset 1)");
    /* Names no formula could read, and a built-in resource's type, are refused. */
    EXPECT(jobsort_catalog_add_resource(catalog, "if", "long"), JOBSORT_STATUS_INVALID_ARGUMENT,
           "cannot declare a resource if: `if` is a keyword of the formula language");
    EXPECT(jobsort_catalog_add_resource(catalog, "sqrt", "float"), JOBSORT_STATUS_INVALID_ARGUMENT,
           "`sqrt` is a function of the formula language");
    EXPECT(jobsort_catalog_add_resource(catalog, "ncpus", "string"), JOBSORT_STATUS_INVALID_ARGUMENT,
           "`ncpus` is a built-in resource of type long, which cannot change");
    EXPECT(jobsort_catalog_add_resource(catalog, "ncpus", "long"), JOBSORT_STATUS_OK, "");
    EXPECT(jobsort_catalog_add_resource(catalog, "foo", "float"), JOBSORT_STATUS_OK, "");

    /* Compile. */
    JobsortDiagnostics *diags = (JobsortDiagnostics *)catalog; /* must be overwritten */
    CHECK(jobsort_compile(NULL, catalog, &diags) == NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_NULL_ARGUMENT, "jobsort_compile: `formula` is NULL");
    CHECK(diags == NULL);
    CHECK(jobsort_compile("ncpus\xff", catalog, &diags) == NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_INVALID_UTF8, "`formula` is not valid UTF-8");
    uint64_t not_a_handle[4] = {0, 0, 0, 0};
    CHECK(jobsort_compile("ncpus", (const JobsortCatalog *)not_a_handle, NULL) == NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_WRONG_HANDLE,
           "`catalog` is not a live jobsort catalog handle");
    CHECK(jobsort_compile_with("ncpus", catalog, 0x100, NULL) == NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_INVALID_ARGUMENT, "unknown flag bits 0x100");

    /* An invalid formula: errors as data, with code, message and span. */
    const char *bad = "ncpus * bogus_name";
    CHECK(jobsort_compile(bad, catalog, &diags) == NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_INVALID_FORMULA, "jobsort_compile: the formula has errors");
    CHECK(diags != NULL);
    size_t count = 0;
    EXPECT(jobsort_diagnostics_count(diags, &count), JOBSORT_STATUS_OK, "");
    CHECK(count >= 1);
    JobsortSeverity severity = JOBSORT_SEVERITY_NOTE;
    const char *code = NULL, *message = NULL;
    size_t start = 99, end = 99;
    EXPECT(jobsort_diagnostic_severity(diags, 0, &severity), JOBSORT_STATUS_OK, "");
    CHECK(severity == JOBSORT_SEVERITY_ERROR);
    EXPECT(jobsort_diagnostic_code(diags, 0, &code), JOBSORT_STATUS_OK, "");
    CHECK(code != NULL && code[0] == 'E');
    EXPECT(jobsort_diagnostic_message(diags, 0, &message), JOBSORT_STATUS_OK, "");
    CHECK(message != NULL && strstr(message, "bogus_name") != NULL);
    EXPECT(jobsort_diagnostic_span(diags, 0, &start, &end), JOBSORT_STATUS_OK, "");
    CHECK(start == 8 && end == strlen(bad));

    /* Diagnostics accessors with bad arguments. */
    EXPECT(jobsort_diagnostics_count(NULL, &count), JOBSORT_STATUS_NULL_ARGUMENT,
           "jobsort_diagnostics_count: `diagnostics` is NULL");
    EXPECT(jobsort_diagnostics_count(diags, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`count` is NULL");
    EXPECT(jobsort_diagnostics_count((const JobsortDiagnostics *)catalog, &count),
           JOBSORT_STATUS_WRONG_HANDLE, "not a live jobsort diagnostics handle");
    EXPECT(jobsort_diagnostic_severity(diags, count, &severity), JOBSORT_STATUS_INDEX_OUT_OF_RANGE,
           "is out of range");
    EXPECT(jobsort_diagnostic_severity(NULL, 0, &severity), JOBSORT_STATUS_NULL_ARGUMENT, "`diagnostics` is NULL");
    EXPECT(jobsort_diagnostic_severity(diags, 0, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`severity` is NULL");
    EXPECT(jobsort_diagnostic_code(diags, 1000, &code), JOBSORT_STATUS_INDEX_OUT_OF_RANGE, "index 1000");
    EXPECT(jobsort_diagnostic_code(diags, 0, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`code` is NULL");
    EXPECT(jobsort_diagnostic_code(NULL, 0, &code), JOBSORT_STATUS_NULL_ARGUMENT, "`diagnostics` is NULL");
    EXPECT(jobsort_diagnostic_message(diags, (size_t)-1, &message), JOBSORT_STATUS_INDEX_OUT_OF_RANGE, "out of range");
    EXPECT(jobsort_diagnostic_message(diags, 0, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`message` is NULL");
    EXPECT(jobsort_diagnostic_message(NULL, 0, &message), JOBSORT_STATUS_NULL_ARGUMENT, "`diagnostics` is NULL");
    EXPECT(jobsort_diagnostic_span(diags, 0, NULL, &end), JOBSORT_STATUS_NULL_ARGUMENT, "`start` is NULL");
    EXPECT(jobsort_diagnostic_span(diags, 0, &start, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`end` is NULL");
    EXPECT(jobsort_diagnostic_span(diags, count, &start, &end), JOBSORT_STATUS_INDEX_OUT_OF_RANGE, "out of range");
    EXPECT(jobsort_diagnostic_span(NULL, 0, &start, &end), JOBSORT_STATUS_NULL_ARGUMENT, "`diagnostics` is NULL");
    jobsort_diagnostics_free(diags);
    diags = NULL;

    /* A syntax error. */
    CHECK(jobsort_compile("ncpus +", catalog, &diags) == NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_INVALID_FORMULA, "the formula has errors");
    count = 0;
    EXPECT(jobsort_diagnostics_count(diags, &count), JOBSORT_STATUS_OK, "");
    CHECK(count >= 1);
    jobsort_diagnostics_free(diags);
    diags = NULL;

    /* A good formula (two columns), then its accessors with bad arguments. */
    JobsortFormula *formula = jobsort_compile("ncpus * 2 + foo", catalog, &diags);
    CHECK(formula != NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_OK, "");
    CHECK(diags != NULL);
    EXPECT(jobsort_column_count(formula, &count), JOBSORT_STATUS_OK, "");
    CHECK(count == 2);
    EXPECT(jobsort_column_count(NULL, &count), JOBSORT_STATUS_NULL_ARGUMENT, "jobsort_column_count: `formula` is NULL");
    EXPECT(jobsort_column_count(formula, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`count` is NULL");
    EXPECT(jobsort_column_count((const JobsortFormula *)catalog, &count), JOBSORT_STATUS_WRONG_HANDLE,
           "not a live jobsort formula handle");
    const char *name = NULL;
    EXPECT(jobsort_column_name(formula, 2, &name), JOBSORT_STATUS_INDEX_OUT_OF_RANGE,
           "column index 2 is out of range (the formula reads 2 columns)");
    EXPECT(jobsort_column_name(formula, 0, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`name` is NULL");
    EXPECT(jobsort_column_name(NULL, 0, &name), JOBSORT_STATUS_NULL_ARGUMENT, "`formula` is NULL");
    size_t index = 99;
    EXPECT(jobsort_column_index(formula, "walltime", &index), JOBSORT_STATUS_UNKNOWN_COLUMN,
           "the formula reads no column `walltime`");
    CHECK(index == 99);
    EXPECT(jobsort_column_index(formula, NULL, &index), JOBSORT_STATUS_NULL_ARGUMENT, "`name` is NULL");
    EXPECT(jobsort_column_index(formula, "ncpus", NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`index` is NULL");
    EXPECT(jobsort_column_index(NULL, "ncpus", &index), JOBSORT_STATUS_NULL_ARGUMENT, "`formula` is NULL");
    EXPECT(jobsort_column_index(formula, "\xc3", &index), JOBSORT_STATUS_INVALID_UTF8, "`name` is not valid UTF-8");

    size_t k_ncpus = 9, k_foo = 9;
    EXPECT(jobsort_column_index(formula, "ncpus", &k_ncpus), JOBSORT_STATUS_OK, "");
    EXPECT(jobsort_column_index(formula, "foo", &k_foo), JOBSORT_STATUS_OK, "");
    CHECK(k_ncpus < 2 && k_foo < 2 && k_ncpus != k_foo);
    EXPECT(jobsort_column_name(formula, k_foo, &name), JOBSORT_STATUS_OK, "");
    CHECK(name != NULL && strcmp(name, "foo") == 0);

    /* Evaluate with bad arguments. */
    double ncpus[3] = {1, 2, 3}, foo[3] = {0.5, -1, 10};
    const double *columns[2];
    columns[k_ncpus] = ncpus;
    columns[k_foo] = foo;
    double out[3] = {-1, -1, -1};
    uint8_t errors[3] = {7, 7, 7};
    EXPECT(jobsort_eval(NULL, columns, 3, out, errors), JOBSORT_STATUS_NULL_ARGUMENT,
           "jobsort_eval: `formula` is NULL");
    EXPECT(jobsort_eval(formula, NULL, 3, out, errors), JOBSORT_STATUS_NULL_ARGUMENT, "`columns` is NULL");
    EXPECT(jobsort_eval(formula, columns, 0, out, errors), JOBSORT_STATUS_NO_JOBS, "n is 0");
    EXPECT(jobsort_eval(formula, columns, 3, NULL, errors), JOBSORT_STATUS_NULL_ARGUMENT, "`out` is NULL");
    EXPECT(jobsort_eval(formula, columns, 3, out, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`errors` is NULL");
    EXPECT(jobsort_eval((const JobsortFormula *)catalog, columns, 3, out, errors), JOBSORT_STATUS_WRONG_HANDLE,
           "not a live jobsort formula handle");
    const double *holey[2] = {NULL, NULL};
    holey[k_ncpus] = ncpus;
    EXPECT(jobsort_eval(formula, holey, 3, out, errors), JOBSORT_STATUS_NULL_ARGUMENT,
           "(column `foo`) is NULL");
    EXPECT(jobsort_eval(formula, columns, (size_t)-1, out, errors), JOBSORT_STATUS_INVALID_ARGUMENT,
           "is too large");
    /* The results are written where the inputs are read: no output may overlap them. */
    EXPECT(jobsort_eval(formula, columns, 3, foo, errors), JOBSORT_STATUS_INVALID_ARGUMENT,
           "`out` overlaps columns[");
    EXPECT(jobsort_eval(formula, columns, 3, out, (uint8_t *)out), JOBSORT_STATUS_INVALID_ARGUMENT,
           "`out` and `errors` overlap");
    CHECK(out[0] == -1 && errors[0] == 7 && foo[0] == 0.5); /* nothing written on failure */
    EXPECT(jobsort_eval(formula, columns, 3, out, errors), JOBSORT_STATUS_OK, "");
    CHECK(out[0] == 2.5 && out[1] == 3 && out[2] == 16);
    CHECK(errors[0] == 0 && errors[1] == 0 && errors[2] == 0);

    /* Per-job errors are not call failures. */
    JobsortFormula *divide = jobsort_compile("ncpus / foo", catalog, NULL);
    CHECK(divide != NULL);
    size_t k0 = 9;
    EXPECT(jobsort_column_index(divide, "ncpus", &k0), JOBSORT_STATUS_OK, "");
    const double *cols2[2];
    cols2[k0] = ncpus;
    cols2[1 - k0] = (const double[]){0.0, 4.0, -0.0};
    EXPECT(jobsort_eval(divide, cols2, 3, out, errors), JOBSORT_STATUS_OK, "");
    CHECK(out[0] == 0 && errors[0] == 1 && out[1] == 0.5 && errors[1] == 0 && out[2] == 0 && errors[2] == 1);
    CHECK(strcmp(jobsort_eval_error_message(errors[0]), "float division by zero") == 0);
    jobsort_free(divide);

    /* Rank with bad arguments. */
    size_t order[3] = {9, 9, 9};
    double nan_values[3] = {1, NAN, 2};
    double submit[3] = {3, 2, 1};
    EXPECT(jobsort_rank(NULL, 3, NULL, order), JOBSORT_STATUS_NULL_ARGUMENT, "jobsort_rank: `values` is NULL");
    EXPECT(jobsort_rank(out, 3, NULL, NULL), JOBSORT_STATUS_NULL_ARGUMENT, "`order` is NULL");
    EXPECT(jobsort_rank(out, 0, NULL, order), JOBSORT_STATUS_NO_JOBS, "n is 0");
    EXPECT(jobsort_rank(nan_values, 3, NULL, order), JOBSORT_STATUS_NOT_FINITE, "values[1] is not finite");
    nan_values[1] = INFINITY;
    EXPECT(jobsort_rank(submit, 3, nan_values, order), JOBSORT_STATUS_NOT_FINITE, "submit[1] is not finite");
    CHECK(order[0] == 9);
    double tied[3] = {5, 5, 7};
    EXPECT(jobsort_rank(tied, 3, submit, order), JOBSORT_STATUS_OK, "");
    CHECK(order[0] == 2 && order[1] == 1 && order[2] == 0);
    EXPECT(jobsort_rank(tied, 3, NULL, order), JOBSORT_STATUS_OK, "");
    CHECK(order[0] == 2 && order[1] == 0 && order[2] == 1);

    /* The order is written while the values and submission keys are read: no overlap. */
    double both[6] = {3, 1, 2, 0, 0, 0};
    EXPECT(jobsort_rank(both, 3, NULL, (size_t *)both), JOBSORT_STATUS_INVALID_ARGUMENT,
           "jobsort_rank: `order` overlaps `values`");
    EXPECT(jobsort_rank(both, 3, both + 3, (size_t *)(both + 3)), JOBSORT_STATUS_INVALID_ARGUMENT,
           "`order` overlaps `submit`");
    CHECK(both[0] == 3 && both[1] == 1 && both[2] == 2 && both[3] == 0);

    /* A freed handle is refused by every call, even once a new formula took its place; no
     * call reads freed memory (valgrind finds no invalid read here). */
    JobsortFormula *gone = jobsort_compile("ncpus * 2", catalog, NULL);
    CHECK(gone != NULL);
    jobsort_free(gone);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_OK, "");
    JobsortFormula *taken = jobsort_compile("ncpus * 3", catalog, NULL);
    CHECK(taken != NULL);
    const double *one[1] = {ncpus};
    out[0] = -1;
    EXPECT(jobsort_eval(gone, one, 3, out, errors), JOBSORT_STATUS_WRONG_HANDLE,
           "jobsort_eval: `formula` is not a live jobsort formula handle: it was freed");
    CHECK(out[0] == -1);
    EXPECT(jobsort_column_count(gone, &count), JOBSORT_STATUS_WRONG_HANDLE, "it was freed");
    jobsort_free(gone); /* twice */
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_WRONG_HANDLE,
           "jobsort_free: `formula` is not a live jobsort formula handle: it was freed");
    EXPECT(jobsort_eval(taken, one, 3, out, errors), JOBSORT_STATUS_OK, "");
    CHECK(out[0] == 3 && out[1] == 6 && out[2] == 9);
    jobsort_free(taken);

    /* Freeing: NULL is a no-op, the wrong kind of handle is refused (and not freed). */
    jobsort_free(NULL);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_OK, "");
    jobsort_catalog_free(NULL);
    jobsort_diagnostics_free(NULL);
    jobsort_free((JobsortFormula *)catalog);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_WRONG_HANDLE, "jobsort_free: `formula` is not a live jobsort formula handle");
    jobsort_catalog_free((JobsortCatalog *)formula);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_WRONG_HANDLE, "jobsort_catalog_free: `catalog` is not a live jobsort catalog handle");
    jobsort_diagnostics_free((JobsortDiagnostics *)formula);
    EXPECT(jobsort_last_status(), JOBSORT_STATUS_WRONG_HANDLE, "not a live jobsort diagnostics handle");

    /* Everything still works after all that. */
    EXPECT(jobsort_eval(formula, columns, 3, out, errors), JOBSORT_STATUS_OK, "");
    CHECK(out[0] == 2.5 && out[2] == 16);
    EXPECT(jobsort_catalog_add_resource(catalog, "bar", "size"), JOBSORT_STATUS_OK, "");

    jobsort_free(formula);
    jobsort_diagnostics_free(diags);
    jobsort_catalog_free(catalog);

    printf("bad_args: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
