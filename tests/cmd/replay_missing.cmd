# replay of a recording that is not there, exit 1.
replay --verify tests/data/no-such-recording.jsonl
