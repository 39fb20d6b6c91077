#!/usr/bin/env bash
# Checks the GitHub workflows (.github/workflows/*.yml) with actionlint, built from its Go module
# (github.com/rhysd/actionlint, the version pinned below) into a cache outside the clone, as
# test/backends/build.sh caches the backends, so a fresh clone on the same machine (CI) reuses it:
#   ${XDG_CACHE_HOME:-~/.cache}/ccotel/tools/actionlint-<version>/actionlint
# actionlint also runs shellcheck on the `run:` scripts when shellcheck is on PATH.
# Without Go (and nothing cached) this prints why and exits 0; a failed build or any finding exits 1.
# Arguments: the workflow files to check instead (the tests hand it a broken copy).
set -uo pipefail
version=v1.7.12
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/ccotel/tools/actionlint-$version"
bin="$dir/actionlint"

# Go's usual home when it is not on PATH; CCOTEL_GO_BIN_DIR names another (as build.sh).
go_bin_dir="${CCOTEL_GO_BIN_DIR:-/usr/local/go/bin}"
if ! command -v go >/dev/null 2>&1 && [ -x "$go_bin_dir/go" ]; then
  PATH="$PATH:$go_bin_dir"
fi

if [ ! -x "$bin" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "actionlint: skipped: no \`go\` on PATH (nor $go_bin_dir/go) to build it"
    exit 0
  fi
  mkdir -p "$dir" || exit 1
  echo "actionlint: building $version with $(go env GOVERSION) into $dir ..."
  if ! GOBIN="$dir" go install -trimpath -ldflags="-s -w" "github.com/rhysd/actionlint/cmd/actionlint@$version"; then
    echo "actionlint: building $version failed"
    exit 1
  fi
fi

if [ "$#" -eq 0 ]; then
  cd "$root" || exit 1
  set -- .github/workflows/*.yml
fi
if "$bin" -no-color "$@"; then
  echo "actionlint: $version finds nothing in $*"
else
  echo "actionlint: $version reports problems in $* (above)"
  exit 1
fi
