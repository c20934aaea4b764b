#!/bin/sh
# Two capsules connected by hand, one handing the other a file by handle
# (tools.md §15): the sharer serves its door; the fetcher serves one too (the
# sharer reads its card to bind the handle to it) and takes one task. This
# script is the operator between them: it asks the sharer to share
# out/report.md with the fetcher, hands the fetcher the handle, then prints
# where the file landed and both files' sha256, then "status:  ok", and stops
# the sharer's door. The file's bytes never pass through either conversation.
#
# Usage: examples/peer-files/run.sh   (MUR=<path> uses that mur instead of building bin/mur)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/peer-files.XXXXXX")

cd "$root"
mur=${MUR:-}
if [ -z "$mur" ]; then
	go build -o bin/mur ./cmd/mur
	mur="$root/bin/mur"
fi
go build -o "$work/send" ./examples/peer-files/send
send="$work/send"

cp -R "$here/sharer" "$here/fetcher" "$work/"
sharer_pid= fetcher_pid=
stop() {
	for pid in $sharer_pid $fetcher_pid; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}
trap stop EXIT

# serve <name>: mur run --json for the capsule copied to $work/<name>; the
# readiness line arrives on a pipe this shell keeps open, so nothing polls.
serve() {
	mkfifo "$work/$1.out"
	"$mur" run --json --capsule "$work/$1" >"$work/$1.out" 2>"$work/$1.err" &
	pid=$!
	exec 3<"$work/$1.out"
	if ! read -r line <&3; then
		echo "run.sh: the $1 did not start:" >&2
		cat "$work/$1.err" >&2
		exit 1
	fi
	exec 3<&-
	url=$(printf '%s\n' "$line" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
}

serve sharer
sharer_pid=$pid sharer_url=$url
sed "s|SHARER_URL|$sharer_url|" "$here/fetcher/script.yaml" >"$work/fetcher/script.yaml"
serve fetcher
fetcher_pid=$pid fetcher_url=$url
echo "sharer:  $sharer_url"
echo "fetcher: $fetcher_url"

# 1. The sharer's task: the fetcher's address. Its answer is the handle.
handle=$("$send" -field handle "$sharer_url" "${fetcher_url#http://}")
# 2. The fetcher's task: the handle. Its answer says where the file is.
path=$("$send" -field path "$fetcher_url" "$handle")
wait "$fetcher_pid" # it took its one task and ended
fetcher_pid=

shared="$work/sharer/out/report.md"
fetched="$work/fetcher/$path"
shared_sha=$(sha256sum "$shared" | cut -d' ' -f1)
fetched_sha=$(sha256sum "$fetched" | cut -d' ' -f1)
echo "shared:  $shared  sha256 $shared_sha"
echo "fetched: $fetched  sha256 $fetched_sha"
stop
sharer_pid=
if [ "$shared_sha" != "$fetched_sha" ]; then
	echo "status:  failed"
	exit 1
fi
echo "status:  ok"
