#!/bin/sh
# Runs the studio formation on a local model: builds bin/mur, installs the
# three members into this example's project store, and launches the roster.
# Needs Ollama serving http://localhost:11434 with the model pulled:
#   ollama pull llama3.1:8b
# Usage: examples/studio-ollama/run.sh ["<task>"]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
task=${1:-"Write a Go function that reverses a string"}

if ! curl -fsS http://localhost:11434/v1/models >/dev/null 2>&1; then
	echo "run.sh: no OpenAI-compatible server answers at http://localhost:11434/v1; start Ollama (ollama serve) first" >&2
	exit 1
fi

cd "$root"
go build -o bin/mur ./cmd/mur
mur="$root/bin/mur"

cd "$here"
# The first run installs the members; --reinstall installs again, before
# the launch, each member edited since.
if [ ! -f murmur.lock ]; then
	for member in planner coder reviewer; do
		"$mur" install "$member" >/dev/null
	done
fi
exec "$mur" run --roster . --reinstall --task "$task"
