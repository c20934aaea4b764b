# shellcheck shell=bash
# The installers .ci/run and ./test.sh share: every tool the lint steps or
# the tests need beyond Go, pinned, installed into $CACHE (kept between runs
# on the same machine; MUR_CI_CACHE overrides it) only when it is missing, so
# a second run installs nothing. Sourced, never run; the caller sets -euo
# pipefail. To add a tool: write an install_<tool> function here and call it
# from the script that needs it.

CACHE=${MUR_CI_CACHE:-${XDG_CACHE_HOME:-${HOME:?HOME is not set}/.cache}/mur-ci}

step() { printf '== %s\n' "$*"; }

# install_go_tool DIR PACKAGE@VERSION installs a Go command into
# $CACHE/DIR/bin unless it is there already (DIR names the version, so a
# version bump installs afresh).
install_go_tool() {
	local dir=$CACHE/$1/bin
	if [[ ! -x $dir/$(basename "${2%@*}") ]]; then
		step "install $2"
		mkdir -p "$dir"
		GOBIN=$dir go install "$2"
	fi
}

STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2, which knows Go 1.26

install_staticcheck() {
	install_go_tool "staticcheck-$STATICCHECK_VERSION" "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
	STATICCHECK=$CACHE/staticcheck-$STATICCHECK_VERSION/bin/staticcheck
}

# install_chromium installs Debian's chromium when no chromium is on PATH:
# the view's browser test (launcher/view/e2e) drives it headless through
# chromedp, and fails, naming this command, when it is missing. apt-get runs
# as root, or through sudo when sudo needs no password; otherwise it says
# what to run and leaves the failure to that test.
install_chromium() {
	if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
		return
	fi
	local sudo=()
	if [[ $(id -u) != 0 ]]; then
		if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			step "chromium is missing: run \`sudo apt-get install -y chromium\` (the view's browser test needs it)"
			return
		fi
	fi
	if ! command -v apt-get >/dev/null; then
		step "chromium is missing and there is no apt-get: install chromium (the view's browser test needs it)"
		return
	fi
	step "apt-get install -y chromium"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}

# install_harness_clis installs the harness CLIs the process-transport tests
# drive (process.md PTEST-5), at the versions this build's dialects were
# tested against (internal/harnesstest/clis), into
# $CACHE/mur-harness/<name>-<version> — the directory the tests' own
# installer looks in — and sets MURMUR_HARNESS_E2E=1, under which those
# tests fail rather than skip when a CLI is missing. Without npm it says so
# and leaves the tests to skip.
CLAUDE_CODE_VERSION=2.1.328
CODEX_VERSION=0.169.0
install_npm_cli() { # DIR PACKAGE@VERSION BIN
	local dir=$MUR_HARNESS_CACHE/$1
	if [[ ! -x $dir/node_modules/.bin/$3 ]]; then
		step "npm install $2"
		rm -rf "$dir.partial"
		npm install --prefix "$dir.partial" --no-save --no-audit --no-fund "$2" >/dev/null
		rm -rf "$dir" && mv "$dir.partial" "$dir"
	fi
}

install_harness_clis() {
	export MUR_HARNESS_CACHE=$CACHE/mur-harness
	if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
		step "npm or node is missing: the real harness CLIs' tests skip"
		return
	fi
	mkdir -p "$MUR_HARNESS_CACHE"
	install_npm_cli "claude-code-$CLAUDE_CODE_VERSION" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" claude
	install_npm_cli "codex-$CODEX_VERSION" "@openai/codex@$CODEX_VERSION" codex
	export MURMUR_HARNESS_E2E=1
}
