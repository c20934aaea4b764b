#!/bin/sh
# Runs the delegate example end to end on a fresh clone: builds bin/mur,
# installs the two sub-capsules into this example's project store, and runs
# the lead capsule, which delegates one sub-task to each and answers with
# both outcomes. Each run works in a fresh ./.work (kept afterwards:
# `mur trace show --workdir examples/delegate/.work` reads the lead's trace).
# Usage: examples/delegate/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

cd "$root"
go build -o bin/mur ./cmd/mur
mur="$root/bin/mur"

cd "$here"
for capsule in counter reverser; do
	# --force: a sub-capsule edited since the last run replaces its pin in murmur.lock
	"$mur" install --force "$capsule" >/dev/null   # into ./.murmur/artifacts, pinned in ./murmur.lock
done
work="$here/.work"
rm -rf "$work" && mkdir "$work"   # a fresh workdir: its .murmur/children/ holds this run's sub-capsules only
exec "$mur" run --workdir "$work" --task "Count the words of one sentence and reverse a word."
