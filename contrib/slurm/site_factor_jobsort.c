/*
 * site_factor/jobsort: a Slurm site_factor plugin that sets each pending job's site factor
 * to the value of a PBS-style job_sort_formula, compiled once by jobsort (libjobsort, the C
 * ABI in include/jobsort.h) and evaluated over all pending jobs in one batch.
 *
 * slurm.conf:
 *   PriorityType=priority/multifactor
 *   PrioritySiteFactorPlugin=site_factor/jobsort
 *   PrioritySiteFactorParameters=file=/etc/slurm/job_sort_formula,scale=1
 *
 * Parameters (comma-separated key=value; see contrib/slurm/README.md):
 *   file=PATH      the formula is the text of PATH ('#' lines are comments)
 *   formula=TEXT   the formula itself; must come last (it may contain commas)
 *   scale=X        site factor = trunc(value * X), clamped to +/-2147483645 (default 1)
 *   compat=pbs     evaluate as PBS does (inputs rounded as PBS passes them, f32 results)
 *
 * Inputs (PBS names and units, from the job record; see README.md for the exact fields):
 *   ncpus, nodect, mem (KB), walltime (s), eligible_time (s since accrue_time),
 *   queue_priority (the partition's PriorityJobFactor), nice, accrue_type (2, eligible),
 *   fairshare_factor (Slurm's own fairshare factor of the job's association), and the
 *   custom resources qos_priority and ngpus.
 *
 * A formula that does not compile, or reads an input Slurm has no value for, is reported in
 * slurmctld's log with jobsort's diagnostics; every job's site factor is then 0 until a
 * reconfigure brings a good formula. A job whose evaluation raises (division by zero, a math
 * domain error) gets 0, as PBS gives it, and the count is logged. Nothing here aborts the
 * controller: every allocation failure and every jobsort error is logged and leaves 0.
 *
 * Under DebugFlags=Priority (at SlurmctldDebug=verbose or above) each update logs its
 * pending jobs and where its time went: inputs (the one pass over the job list), evaluate,
 * write.
 *
 * Locking: slurmctld calls site_factor_p_set and site_factor_p_update with the job write
 * lock held; the plugin's own state is guarded by `state_lock` as well, since reconfigure
 * may come from another thread. QOS and association fields are read under the assoc_mgr
 * read locks.
 */

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* Slurm 23.02 moved the plugin interfaces from src/common to src/interfaces. */
#include "src/interfaces/priority.h"
#else
#include "src/common/slurm_priority.h"
#endif
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "jobsort.h"

const char plugin_name[] = "jobsort job_sort_formula site_factor plugin";
const char plugin_type[] = "site_factor/jobsort";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The largest |site factor| scontrol accepts (src/scontrol/update_job.c). */
#define SITE_FACTOR_MAX ((double)(NICE_OFFSET - 3))

/* Where an update's time goes, logged under DebugFlags=Priority (milliseconds). */
typedef struct {
	double inputs, evaluate, write;
} timing_t;

static double _now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The job fields a formula input is bound to. */
typedef enum {
	IN_NCPUS,
	IN_NODECT,
	IN_MEM,
	IN_WALLTIME,
	IN_ELIGIBLE_TIME,
	IN_QUEUE_PRIORITY,
	IN_NICE,
	IN_ACCRUE_TYPE,
	IN_FAIRSHARE_FACTOR,
	IN_QOS_PRIORITY,
	IN_NGPUS,
} input_t;

static const struct {
	const char *name;
	input_t input;
} input_names[] = {
	{ "ncpus", IN_NCPUS },
	{ "nodect", IN_NODECT },
	{ "mem", IN_MEM },
	{ "walltime", IN_WALLTIME },
	{ "eligible_time", IN_ELIGIBLE_TIME },
	{ "queue_priority", IN_QUEUE_PRIORITY },
	{ "nice", IN_NICE },
	{ "accrue_type", IN_ACCRUE_TYPE },
	{ "fairshare_factor", IN_FAIRSHARE_FACTOR },
	{ "qos_priority", IN_QOS_PRIORITY },
	{ "ngpus", IN_NGPUS },
};

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static JobsortFormula *formula; /* NULL: no usable formula, every site factor is 0 */
/*
 * An update's buffers, kept from one update to the next (guarded by state_lock) and grown
 * when the queue grows: allocating and zeroing them anew each time (half a megabyte of
 * columns for 10,000 jobs, fresh pages from the kernel each time) cost more than the
 * formula.
 */
static job_record_t **buf_jobs;
static double *buf_values, *buf_out;
static const double **buf_columns;
static uint8_t *buf_errors;
static size_t buf_jobs_cap, buf_rows_cap, buf_columns_cap, buf_out_cap, buf_errors_cap;
static input_t *bindings;       /* bindings[k]: what column k of the formula reads */
static size_t ncolumns;
static double scale = 1.0;

static void _log_diagnostics(const JobsortDiagnostics *diags, const char *text)
{
	size_t count = 0;

	if (!diags || jobsort_diagnostics_count(diags, &count) != JOBSORT_STATUS_OK)
		return;
	for (size_t i = 0; i < count; i++) {
		JobsortSeverity severity = JOBSORT_SEVERITY_NOTE;
		const char *code = "", *message = "";
		size_t start = 0, end = 0;

		jobsort_diagnostic_severity(diags, i, &severity);
		jobsort_diagnostic_code(diags, i, &code);
		jobsort_diagnostic_message(diags, i, &message);
		jobsort_diagnostic_span(diags, i, &start, &end);
		if (severity == JOBSORT_SEVERITY_ERROR)
			error("%s: formula error[%s] at bytes %zu..%zu: %s (formula: %s)",
			      plugin_type, code, start, end, message, text);
		else
			info("%s: formula %s[%s] at bytes %zu..%zu: %s",
			     plugin_type,
			     severity == JOBSORT_SEVERITY_WARNING ? "warning" : "note",
			     code, start, end, message);
	}
}

/* Read a formula file: the whole text, with '#' comment lines blanked. xfree the result. */
static char *_read_formula_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f) {
		error("%s: cannot open formula file %s: %m", plugin_type, path);
		return NULL;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#')
			xstrcat(text, "\n");
		else
			xstrcat(text, line);
	}
	if (ferror(f)) {
		error("%s: cannot read formula file %s: %m", plugin_type, path);
		xfree(text);
	}
	free(line);
	fclose(f);
	if (!text)
		text = xstrdup("");
	return text;
}

/*
 * Parse PrioritySiteFactorParameters into the formula text (xfree it) and the options.
 * Returns NULL with an error logged when they are malformed.
 */
static char *_parse_parameters(const char *params, double *scale_out,
			       uint32_t *flags_out)
{
	char *copy, *key, *next, *text = NULL;

	*scale_out = 1.0;
	*flags_out = 0;
	if (!params || !params[0]) {
		error("%s: PrioritySiteFactorParameters is empty: give file=PATH or formula=TEXT",
		      plugin_type);
		return NULL;
	}
	copy = xstrdup(params);
	for (key = copy; key && *key; key = next) {
		char *eq = strchr(key, '=');

		if (!xstrncmp(key, "formula=", 8)) {
			xfree(text);
			text = xstrdup(key + 8); /* the rest, commas included */
			break;
		}
		next = strchr(key, ',');
		if (next)
			*next++ = '\0';
		if (!eq || (next && eq > next)) {
			error("%s: PrioritySiteFactorParameters: \"%s\" is not key=value",
			      plugin_type, key);
			goto fail;
		}
		*eq = '\0';
		if (!xstrcmp(key, "file")) {
			xfree(text);
			if (!(text = _read_formula_file(eq + 1)))
				goto fail;
		} else if (!xstrcmp(key, "scale")) {
			char *end = NULL;
			double v = strtod(eq + 1, &end);

			if (!end || *end || end == eq + 1 || !isfinite(v)) {
				error("%s: PrioritySiteFactorParameters: scale=%s is not a finite number",
				      plugin_type, eq + 1);
				goto fail;
			}
			*scale_out = v;
		} else if (!xstrcmp(key, "compat")) {
			if (xstrcmp(eq + 1, "pbs")) {
				error("%s: PrioritySiteFactorParameters: compat=%s (only compat=pbs)",
				      plugin_type, eq + 1);
				goto fail;
			}
			*flags_out |= JOBSORT_COMPILE_COMPAT_PBS;
		} else {
			error("%s: PrioritySiteFactorParameters: unknown key \"%s\" (file, formula, scale, compat)",
			      plugin_type, key);
			goto fail;
		}
	}
	if (!text)
		error("%s: PrioritySiteFactorParameters has no file= or formula=",
		      plugin_type);
	xfree(copy);
	return text;
fail:
	xfree(copy);
	xfree(text);
	return NULL;
}

/* The catalog: PBS's names plus the custom resources Slurm jobs have. */
static JobsortCatalog *_catalog(void)
{
	JobsortCatalog *cat = jobsort_catalog_new();

	if (!cat)
		return NULL;
	if (jobsort_catalog_add_resource(cat, "qos_priority", "long") ||
	    jobsort_catalog_add_resource(cat, "ngpus", "long")) {
		jobsort_catalog_free(cat);
		return NULL;
	}
	return cat;
}

/* Compile the formula of the current PrioritySiteFactorParameters; replace the old one. */
static void _load(void)
{
	double new_scale = 1.0;
	uint32_t flags = 0;
	char *text = _parse_parameters(slurm_conf.site_factor_params, &new_scale,
				       &flags);
	JobsortCatalog *cat = NULL;
	JobsortDiagnostics *diags = NULL;
	JobsortFormula *f = NULL;
	input_t *b = NULL;
	char *why = NULL;
	size_t n = 0;

	slurm_mutex_lock(&state_lock);
	jobsort_free(formula);
	formula = NULL;
	xfree(bindings);
	ncolumns = 0;
	scale = 1.0;
	if (!text)
		goto done;
	if (!(cat = _catalog())) {
		error("%s: cannot make the catalog: %s", plugin_type,
		      jobsort_last_error());
		goto done;
	}
	f = jobsort_compile_with(text, cat, flags, &diags);
	/*
	 * Every jobsort call clears the thread's last error, the diagnostic accessors
	 * _log_diagnostics calls included: keep the compiler's message before them.
	 */
	why = f ? NULL : xstrdup(jobsort_last_error());
	_log_diagnostics(diags, text);
	if (!f) {
		error("%s: the formula does not compile (%s); every site factor is 0",
		      plugin_type, why);
		goto done;
	}
	if (jobsort_column_count(f, &n) != JOBSORT_STATUS_OK)
		goto bad;
	b = xcalloc(n ? n : 1, sizeof(*b));
	for (size_t k = 0; k < n; k++) {
		const char *name = NULL;
		size_t i;

		jobsort_column_name(f, k, &name);
		for (i = 0; i < ARRAY_SIZE(input_names); i++)
			if (!xstrcmp(input_names[i].name, name))
				break;
		if (i == ARRAY_SIZE(input_names)) {
			error("%s: the formula reads `%s`, which Slurm job records do not have (inputs: ncpus, nodect, mem, walltime, eligible_time, queue_priority, nice, accrue_type, fairshare_factor, qos_priority, ngpus); every site factor is 0",
			      plugin_type, name);
			goto bad;
		}
		b[k] = input_names[i].input;
	}
	formula = f;
	bindings = b;
	ncolumns = n;
	scale = new_scale;
	for (char *c = text; *c; c++) /* one log line */
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	info("%s: formula loaded (%zu inputs, scale %g): %s", plugin_type, n,
	     new_scale, text);
	goto done;
bad:
	jobsort_free(f);
	xfree(b);
done:
	slurm_mutex_unlock(&state_lock);
	jobsort_diagnostics_free(diags);
	jobsort_catalog_free(cat);
	xfree(why);
	xfree(text);
}

/* GPUs a job asks for: gres:gpu counts in tres_per_job, per node × nodes, per task × tasks. */
static double _gpus_in(const char *tres, double times)
{
	const char *p;
	double total = 0;

	for (p = tres; p && (p = strstr(p, "gpu")); p += 3) {
		/* "gres:gpu:2", "gres:gpu:a100:2", "gres/gpu=2", "gres:gpu" (= 1) */
		const char *end = p + 3;
		double count = 1;

		if ((p != tres && p[-1] != ':' && p[-1] != '/') ||
		    (*end && !strchr(":=,", *end)))
			continue; /* part of another name (gres:mygpu, gres:gpumem) */
		while (*end == ':' || *end == '=') {
			char *num_end = NULL;
			double v = strtod(end + 1, &num_end);

			if (num_end != end + 1) {
				count = v;
				break;
			}
			end = strpbrk(end + 1, ":=,");
			if (!end)
				break;
		}
		total += count * times;
	}
	return total;
}

static double _input(const job_record_t *job, input_t input, time_t now)
{
	/* `struct job_details` in 22.05, an untagged `job_details_t` in 24.11 (job_record.h). */
	const __typeof__(*job->details) *d = job->details;

	switch (input) {
	case IN_NCPUS:
		return d ? d->min_cpus : 0;
	case IN_NODECT:
		return d ? d->min_nodes : 0;
	case IN_MEM: {
		uint64_t mem;

		if (!d || d->pn_min_memory == NO_VAL64)
			return 0;
		mem = d->pn_min_memory;
		if (mem & MEM_PER_CPU)
			return (double)(mem & ~MEM_PER_CPU) * d->min_cpus * 1024.0;
		return (double)mem * (d->min_nodes ? d->min_nodes : 1) * 1024.0;
	}
	case IN_WALLTIME: {
		uint32_t limit = job->time_limit;

		if ((limit == NO_VAL || limit == INFINITE) && job->part_ptr)
			limit = job->part_ptr->max_time;
		if (limit == NO_VAL || limit == INFINITE)
			return 0;
		return limit * 60.0;
	}
	case IN_ELIGIBLE_TIME:
		if (!d || !d->accrue_time || d->accrue_time > now)
			return 0;
		return difftime(now, d->accrue_time);
	case IN_QUEUE_PRIORITY:
		return job->part_ptr ? job->part_ptr->priority_job_factor : 0;
	case IN_NICE:
		return d ? (double)d->nice - (double)NICE_OFFSET : 0;
	case IN_ACCRUE_TYPE:
		return 2; /* eligible time, as PBS's accrue_type for a queued job */
	case IN_FAIRSHARE_FACTOR: {
		const slurmdb_assoc_rec_t *a = job->assoc_ptr, *fs;

		if (!a || !a->usage)
			return 0;
		if (slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE)
			return a->usage->fs_factor;
		fs = (a->shares_raw == SLURMDB_FS_USE_PARENT) ?
			a->usage->fs_assoc_ptr : a;
		if (!fs || !fs->usage)
			return 0;
		return priority_g_calc_fs_factor(fs->usage->usage_efctv,
						 (long double)fs->usage->shares_norm);
	}
	case IN_QOS_PRIORITY:
		return job->qos_ptr ? job->qos_ptr->priority : 0;
	case IN_NGPUS: {
		double nodes = d && d->min_nodes ? d->min_nodes : 1;
		double tasks = d && d->num_tasks && d->num_tasks != NO_VAL ?
			d->num_tasks : 1;

		return _gpus_in(job->tres_per_job, 1) +
			_gpus_in(job->tres_per_node, nodes) +
			_gpus_in(job->tres_per_task, tasks);
	}
	}
	return 0;
}

/* The site factor of a value (NICE_OFFSET added, as slurmctld stores it). */
static uint32_t _site_factor(double value)
{
	double v = trunc(value * scale);

	if (!(v >= -SITE_FACTOR_MAX)) /* NaN too */
		v = isnan(v) ? 0 : -SITE_FACTOR_MAX;
	if (v > SITE_FACTOR_MAX)
		v = SITE_FACTOR_MAX;
	return (uint32_t)((int64_t)NICE_OFFSET + (int64_t)v);
}

/*
 * Make *buf hold at least `want` elements of `size` bytes, keeping it when it does (its
 * capacity in *cap); false when memory runs out (the old buffer is freed then).
 */
static bool _reserve(void **buf, size_t *cap, size_t want, size_t size)
{
	if (*buf && *cap >= want)
		return true;
	want += want / 4; /* room for the queue to grow a little */
	xfree(*buf);
	*buf = try_xcalloc(want, size);
	*cap = *buf ? want : 0;
	return *buf != NULL;
}

/* Buffers for `rows` jobs (values in `rows`-long columns); false when memory runs out. */
static bool _reserve_rows(size_t rows)
{
	if (_reserve((void **)&buf_values, &buf_rows_cap, ncolumns * rows + 1,
		     sizeof(double)) &&
	    _reserve((void **)&buf_columns, &buf_columns_cap, ncolumns + 1,
		     sizeof(double *)) &&
	    _reserve((void **)&buf_out, &buf_out_cap, rows, sizeof(double)) &&
	    _reserve((void **)&buf_errors, &buf_errors_cap, rows, sizeof(uint8_t)))
		return true;
	error("%s: out of memory for %zu jobs; site factors unchanged", plugin_type,
	      rows);
	return false;
}

/* Row i of the columns (`stride` rows each): every input of one job. */
static void _gather(const job_record_t *job, size_t i, size_t stride, time_t now)
{
	for (size_t k = 0; k < ncolumns; k++)
		buf_values[k * stride + i] = _input(job, bindings[k], now);
}

/*
 * Evaluate the formula for the `n` jobs whose inputs are gathered in rows 0..n of the
 * columns (`stride` rows each) and set their site factors. Called with state_lock and the
 * job write lock held.
 */
static void _evaluate(job_record_t **jobs, size_t n, size_t stride, timing_t *timing)
{
	size_t failed = 0;
	JobsortStatus status;
	double t;

	if (!n)
		return;
	for (size_t k = 0; k < ncolumns; k++)
		buf_columns[k] = buf_values + k * stride;
	memset(buf_errors, 0, n);
	t = _now_ms();
	status = jobsort_eval(formula, ncolumns ? buf_columns : NULL, n, buf_out,
			      buf_errors);
	timing->evaluate = _now_ms() - t;
	if (status != JOBSORT_STATUS_OK) {
		error("%s: evaluation failed: %s; site factors unchanged",
		      plugin_type, jobsort_last_error());
		return;
	}
	t = _now_ms();
	for (size_t i = 0; i < n; i++) {
		if (buf_errors[i]) {
			if (!failed)
				verbose("%s: JobId=%u: %s (site factor 0)", plugin_type,
					jobs[i]->job_id,
					jobsort_eval_error_message(buf_errors[i]));
			failed++;
		}
		jobs[i]->site_factor = _site_factor(buf_errors[i] ? 0 : buf_out[i]);
	}
	timing->write = _now_ms() - t;
	if (failed)
		info("%s: %zu of %zu jobs raised an error; their site factor is 0",
		     plugin_type, failed, n);
}

extern int init(void)
{
	_load();
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	slurm_mutex_lock(&state_lock);
	jobsort_free(formula);
	formula = NULL;
	xfree(bindings);
	ncolumns = 0;
	xfree(buf_jobs);
	xfree(buf_values);
	xfree(buf_columns);
	xfree(buf_out);
	xfree(buf_errors);
	buf_jobs_cap = buf_rows_cap = buf_columns_cap = buf_out_cap = buf_errors_cap = 0;
	slurm_mutex_unlock(&state_lock);
	return SLURM_SUCCESS;
}

/*
 * Slurm 22.05 calls this on `scontrol reconfigure` (src/common/site_factor.c's syms). In
 * 24.11 reconfigure execs a new slurmctld (controller.c: _attempt_reconfig), whose init()
 * loads the parameters and the formula afresh; src/interfaces/site_factor.c no longer looks
 * this up.
 */
extern void site_factor_p_reconfig(void)
{
	_load();
}

extern void site_factor_p_set(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	timing_t timing = { 0 };

	slurm_mutex_lock(&state_lock);
	if (!formula) {
		job_ptr->site_factor = NICE_OFFSET;
	} else if (_reserve_rows(1)) {
		assoc_mgr_lock(&locks);
		_gather(job_ptr, 0, 1, time(NULL));
		assoc_mgr_unlock(&locks);
		_evaluate(&job_ptr, 1, 1, &timing);
	}
	slurm_mutex_unlock(&state_lock);
}

/* One pass over slurmctld's job list: each pending job's record and inputs. */
typedef struct {
	size_t n, stride;
	time_t now;
} gather_t;

static int _gather_pending(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	gather_t *g = arg;

	if (!IS_JOB_PENDING(job_ptr))
		return SLURM_SUCCESS;
	if (!formula) {
		job_ptr->site_factor = NICE_OFFSET;
		return SLURM_SUCCESS;
	}
	buf_jobs[g->n] = job_ptr;
	_gather(job_ptr, g->n, g->stride, g->now);
	g->n++;
	return SLURM_SUCCESS;
}

/*
 * Every pending job's site factor. The job list is walked once, each pending job's inputs
 * gathered while its record is in the cache (slurmctld's records are large and scattered:
 * a pass per input, or one to find the pending jobs and another for their inputs, missed
 * the cache each time), into columns as long as the list, kept from one update to the next.
 */
extern void site_factor_p_update(void)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	timing_t timing = { 0 };
	double start = _now_ms();
	int count = list_count(job_list);
	gather_t g = { .n = 0, .stride = count > 0 ? count : 0, .now = time(NULL) };

	if (count <= 0)
		return;
	slurm_mutex_lock(&state_lock);
	if (formula &&
	    (!_reserve((void **)&buf_jobs, &buf_jobs_cap, count, sizeof(*buf_jobs)) ||
	     !_reserve_rows(count))) {
		slurm_mutex_unlock(&state_lock);
		return;
	}
	assoc_mgr_lock(&locks);
	list_for_each(job_list, _gather_pending, &g);
	assoc_mgr_unlock(&locks);
	timing.inputs = _now_ms() - start;
	if (formula)
		_evaluate(buf_jobs, g.n, g.stride, &timing);
	slurm_mutex_unlock(&state_lock);
	log_flag(PRIO, "%s: update of %zu pending jobs (%d records): %.3f ms (inputs %.3f, evaluate %.3f, write %.3f)",
		 plugin_type, g.n, count, _now_ms() - start, timing.inputs,
		 timing.evaluate, timing.write);
}
