# --jobs - reads the job file from standard input (JSON lines here).
eval --jobs - --jobs-format jsonl 'ncpus * 2'
--- stdin
{"id": "1", "Resource_List": {"ncpus": 4}}
{"id": "2", "Resource_List": {"ncpus": 1}}
