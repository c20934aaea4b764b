#!/usr/bin/env bash
# The whole test suite, set up first: installs what the tests need when it
# is missing (Debian's chromium for the view's browser test, the pinned
# harness CLIs into the cache — .ci/install.sh), then runs
# `go test -race -shuffle=on ./...`. A second run installs nothing. Arguments
# replace ./... (packages, -run filters): ./test.sh ./launcher/view/e2e
set -euo pipefail
cd "$(dirname "$0")"
. .ci/install.sh

install_chromium
install_harness_clis
if [[ $# == 0 ]]; then
	set -- ./...
fi
step "go test -race -shuffle=on $*"
go test -race -shuffle=on "$@"
