#!/bin/sh
# audit: no binding, so every event; async, so the loop never waits for it.
while IFS= read -r line; do
	printf '%s\n' "$line" >>audit.jsonl
	id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
	printf '{"id":%s,"answer":"none"}\n' "$id"
done
