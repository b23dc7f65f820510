# why for the top waiting job: what holds it and when it starts.
why --snapshot tests/data/why/pbs 301.srv
