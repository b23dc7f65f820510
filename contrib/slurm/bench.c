/*
 * The cost of one site_factor_p_update over N pending jobs, measured outside slurmctld: the
 * plugin's own code (it is #included below) over job records laid out by the installed
 * Slurm's headers, linked against Slurm's libslurmfull for its list, lock and log functions.
 * What it leaves out is slurmctld's job write lock, held by the caller around the update.
 *
 *   contrib/slurm/bench.sh SLURM_SOURCE_DIR [N ...]     (default N: 10000 100000)
 */
#include "site_factor_jobsort.c"

#include <time.h>

/* slurmctld's job list (a global of the controller, which this program stands in for). */
List job_list;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One size: N fake pending jobs, the best of 7 updates. */
static void bench(size_t n, time_t t0, part_record_t *part)
{
	job_record_t **jobs = xcalloc(n, sizeof(*jobs));
	double best = 1e30;

	job_list = list_create(NULL);
	for (size_t i = 0; i < n; i++) {
		job_record_t *job = xcalloc(1, sizeof(*job));

		job->details = xcalloc(1, sizeof(*job->details));
		job->job_id = i + 1;
		job->job_state = JOB_PENDING;
		job->details->min_cpus = 1 + i % 64;
		job->details->min_nodes = 1 + i % 4;
		job->details->pn_min_memory = 1000 + i % 7;
		job->details->accrue_time = t0 - (time_t)(i % 86400);
		job->details->nice = NICE_OFFSET;
		job->time_limit = 10 + i % 1440;
		job->tres_per_node = (i % 5 == 0) ? "gres:gpu:2" : NULL;
		job->part_ptr = part;
		jobs[i] = job;
		list_append(job_list, job);
	}
	for (int rep = 0; rep < 7; rep++) {
		double t = now_s();

		site_factor_p_update();
		t = now_s() - t;
		if (t < best)
			best = t;
	}
	printf("%zu pending jobs: %.3f ms per update (%.1f ns per job), best of 7\n", n,
	       best * 1e3, best * 1e9 / n);
	list_destroy(job_list);
	for (size_t i = 0; i < n; i++) {
		xfree(jobs[i]->details);
		xfree(jobs[i]);
	}
	xfree(jobs);
}

int main(int argc, char **argv)
{
	const char *text = "ncpus * 10 + walltime / 60 + nodect * 1000 + queue_priority * 7"
		" + mem / 1048576 + ngpus * 100 + eligible_time / 3600";
	part_record_t part = { .priority_job_factor = 10, .max_time = INFINITE };
	char params[512];

	snprintf(params, sizeof(params), "formula=%s", text);
	slurm_conf.site_factor_params = params;
	slurm_conf.priority_flags = PRIORITY_FLAGS_FAIR_TREE;
	init();
	if (!formula) {
		fprintf(stderr, "bench: the formula did not load\n");
		return 1;
	}
	printf("formula: %s\n", text);
	if (argc == 1) {
		bench(10000, time(NULL), &part);
		bench(100000, time(NULL), &part);
	}
	for (int a = 1; a < argc; a++) {
		char *end = NULL;
		unsigned long n = strtoul(argv[a], &end, 10);

		if (!n || !end || *end) {
			fprintf(stderr, "bench: `%s` is not a job count\n", argv[a]);
			return 2;
		}
		bench(n, time(NULL), &part);
	}
	fini();
	return 0;
}
