#!/bin/sh
# Runs the policy example end to end on a fresh clone: builds bin/mur,
# installs the three hooks into this example's project store and runs the
# capsule in a fresh ./.work. It shows the denied calls, the audit file and
# the reopen, then `status:  ok` when all three happened and the task ended ok.
# Usage: examples/policy/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ -z "${MUR:-}" ]; then
	cd "$root"
	go build -o bin/mur ./cmd/mur
	MUR="$root/bin/mur"
fi

cd "$here"
for hook in guard audit tests-gate; do
	"$MUR" install --force "hooks/$hook" >/dev/null # into ./.murmur/artifacts, pinned in ./murmur.lock
done
work="${WORK:-$here/.work}" # WORK: another workdir (the tests' own)
rm -rf "$work" && mkdir "$work"
"$MUR" run --workdir "$work" --task "Write hello world into greeting.txt." >/dev/null

show=$("$MUR" trace show --workdir "$work")
echo "── denied calls"
printf '%s\n' "$show" | grep '^  denied' || true
echo "── audit ($work/audit/audit.jsonl)"
cut -c1-100 "$work/audit/audit.jsonl"
echo "── reopens"
printf '%s\n' "$show" | sed -n '/^── Reopens/,/^$/p' | grep '^  reopen' || true
status=$(printf '%s\n' "$show" | sed -n 's/^status: *//p')
denied=$(printf '%s\n' "$show" | grep -c '^  denied' || true)
reopens=$(printf '%s\n' "$show" | grep -c '^  reopen ' || true)
if [ "$status" = ok ] && [ "$denied" = 2 ] && [ "$reopens" = 1 ] && [ -s "$work/audit/audit.jsonl" ]; then
	echo "status:  ok"
else
	echo "status:  failed (status $status, $denied denied, $reopens reopens)"
	exit 1
fi
