#!/bin/sh
# Runs the policy formation end to end on a fresh clone: builds bin/mur,
# copies this example into a fresh ./.work (the entry member's workdir is the
# roster's directory), installs the three hooks and the two members into its
# project store and launches the roster. It shows each member's denied call
# and audit file, worker's reopen and lead's answer (worker's), then
# `status:  ok` when all of them happened and the formation's task ended ok.
# Usage: examples/policy/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ -z "${MUR:-}" ]; then
	cd "$root"
	go build -o bin/mur ./cmd/mur
	MUR="$root/bin/mur"
fi

work="${WORK:-$here/.work}" # WORK: another directory (the tests' own)
rm -rf "$work" && mkdir "$work"
cp -R "$here/roster.yaml" "$here/lead" "$here/worker" "$here/hooks" "$work/"
cd "$work"
for artifact in hooks/guard hooks/audit hooks/tests-gate lead worker; do
	"$MUR" install "$artifact" >/dev/null # into ./.murmur/artifacts, pinned in ./murmur.lock
done
# --json: the first line names each peer's session and workdir.
"$MUR" run --roster . --json --task "Write hello world into greeting.txt." >formation.jsonl
peer=$(sed -n 1p formation.jsonl)
worker_session=$(printf '%s' "$peer" | sed -n 's/.*"name":"worker","pid":[0-9]*,"session_id":"\([^"]*\)".*/\1/p')
worker_dir=$(printf '%s' "$peer" | sed -n 's/.*"name":"worker",[^}]*"workdir":"\([^"]*\)".*/\1/p')
lead=$(sed -n 2p formation.jsonl)
lead_session=$(printf '%s' "$lead" | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p')
lead_records=$(printf '%s' "$lead" | sed -n 's/.*"records_dir":"\([^"]*\)".*/\1/p')
answer=$(cat "$lead_records/out/result.txt" 2>/dev/null || true)

lead_show=$("$MUR" trace show "$lead_session")
worker_show=$("$MUR" trace show "$worker_session")
echo "── lead: denied calls"
printf '%s\n' "$lead_show" | grep '^  denied' || true
echo "── worker: denied calls"
printf '%s\n' "$worker_show" | grep '^  denied' || true
echo "── lead: audit ($work/audit/audit.jsonl)"
cut -c1-100 "$work/audit/audit.jsonl"
echo "── worker: audit ($worker_dir/audit/audit.jsonl)"
cut -c1-100 "$worker_dir/audit/audit.jsonl"
echo "── worker: reopens"
printf '%s\n' "$worker_show" | sed -n '/^── Reopens/,/^$/p' | grep '^  reopen' || true
echo "── lead: answer"
printf '%s\n' "$answer"

status=$(printf '%s\n' "$lead_show" | sed -n 's/^status: *//p')
denied=$(printf '%s\n%s\n' "$lead_show" "$worker_show" | grep -c '^  denied' || true)
reopens=$(printf '%s\n' "$worker_show" | grep -c '^  reopen ' || true)
if [ "$status" = ok ] && [ "$denied" = 2 ] && [ "$reopens" = 1 ] &&
	[ "$answer" = "Done: greeting.txt now says hello world." ] &&
	[ -s "$work/audit/audit.jsonl" ] && [ -s "$worker_dir/audit/audit.jsonl" ]; then
	echo "status:  ok"
else
	echo "status:  failed (status $status, $denied denied, $reopens reopens)"
	exit 1
fi
