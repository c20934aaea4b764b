#!/bin/sh
# Runs a two-member formation whose entry member is a real Claude Code (or,
# with --codex, a real Codex CLI) and whose peer is a scripted capsule: the
# entry asks worker with call-member, gets worker's answer back by a resume of
# its same harness session, and answers with it. The model is the project's
# fake server in harness mode on loopback, driven by a script: no key, no
# account, no network beyond loopback (and npm, once, to install the CLI).
#
# Usage: examples/harness/run.sh [--codex] ["<task>"]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dialect=claude
if [ "${1:-}" = --codex ]; then
	dialect=codex
	shift
fi
task=${1:-"What is the release codename?"}
cache=${MUR_HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mur-harness}

cd "$root"
go build -o bin/mur ./cmd/mur
go build -o bin/fakemodel ./internal/harnesstest/fakemodel
mur=$root/bin/mur

# The CLI at the version this build's dialect was tested against, once.
case $dialect in
claude) pkg=@anthropic-ai/claude-code ver=2.1.328 dir=$cache/claude-code-2.1.328 ;;
codex) pkg=@openai/codex ver=0.169.0 dir=$cache/codex-0.169.0 ;;
esac
cli=$dir/node_modules/.bin/$dialect
if ! "$cli" --version 2>/dev/null | grep -q "$ver"; then
	echo "installing $pkg@$ver into $dir" >&2
	rm -rf "$dir.partial"
	npm install --prefix "$dir.partial" --no-save --no-audit --no-fund "$pkg@$ver" >&2
	rm -rf "$dir" && mv "$dir.partial" "$dir"
fi

tmp=$(mktemp -d)
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# mur's own records stay where they always are; the harness gets a scratch
# HOME (its login lives under it) so that nothing of yours is read or changed.
export MURMUR_HOME="${MURMUR_HOME:-$HOME/.murmur}"
mkdir -p "$tmp/home" "$tmp/bin"
token=sk-ant-oat01-example-not-a-secret

case $dialect in
claude)
	# A subscription login as Claude Code stores it (process.md PTEST-7).
	mkdir -p "$tmp/home/.claude"
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"sk-ant-ort01-example","expiresAt":4102444800000,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}' \
		"$token" >"$tmp/home/.claude/.credentials.json"
	chmod 600 "$tmp/home/.claude/.credentials.json"
	"$root/bin/fakemodel" -provider anthropic -token "$token" -script "$here/replies-claude.json" >"$tmp/fake.out" &
	fake_pid=$!
	ln -s "$cli" "$tmp/bin/claude"
	lead=lead
	;;
codex)
	"$root/bin/fakemodel" -provider openai -script "$here/replies-codex.json" >"$tmp/fake.out" &
	fake_pid=$!
	lead=lead-codex
	;;
esac
n=0
until grep -q '^url ' "$tmp/fake.out" 2>/dev/null; do
	n=$((n + 1))
	[ $n -le 100 ] || { echo "the fake model server did not start" >&2; exit 1; }
	sleep 0.1
done
url=$(sed -n 's/^url //p' "$tmp/fake.out")
if [ $dialect = codex ]; then
	# codex reads no base-URL variable: a model provider named on its command
	# line points it at the fake, on a model it has no bundled metadata for.
	cat >"$tmp/bin/codex" <<WRAP
#!/bin/sh
exec "$cli" -c model_provider=fake -c 'model_providers.fake.name="fake"' -c 'model_providers.fake.base_url="$url"' -c 'model_providers.fake.wire_api="responses"' -c 'model="fake-model"' "\$@"
WRAP
	chmod +x "$tmp/bin/codex"
fi

cd "$here/$dialect"
# The first run installs the members into ./.murmur/artifacts, pinned in
# ./murmur.lock; --reinstall installs again, before the launch, each member
# edited since.
if [ ! -f murmur.lock ]; then
	for member in "../$lead" ../worker; do
		"$mur" install "$member" >/dev/null
	done
fi
HOME=$tmp/home PATH=$tmp/bin:$PATH ANTHROPIC_BASE_URL=$url CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	"$mur" run --roster . --reinstall --task "$task"
