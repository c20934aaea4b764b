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
for member in planner coder reviewer; do
	# --force: a member edited since the last run replaces its pin in murmur.lock
	"$mur" install --force "$member" >/dev/null   # into ./.murmur/artifacts, pinned in ./murmur.lock
done
exec "$mur" run --roster . --task "$task"
