#!/bin/sh
# Runs the studio formation end to end on a fresh clone: builds bin/mur,
# installs the three members into this example's project store, and launches
# the roster with a task. Usage: examples/studio/run.sh ["<task>"]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
task=${1:-"Write a Go function that reverses a string"}

cd "$root"
go build -o bin/mur ./cmd/mur
mur="$root/bin/mur"

cd "$here"
# The first run installs the members into ./.murmur/artifacts, pinned in
# ./murmur.lock; --reinstall installs again, before the launch, each member
# edited since.
if [ ! -f murmur.lock ]; then
	for member in planner coder reviewer; do
		"$mur" install "$member" >/dev/null
	done
fi
exec "$mur" run --roster . --reinstall --task "$task"
