#!/usr/bin/env bash
# Builds the real backends the e2e tests run as plain processes (test/e2e/real-backends.test.ts):
#   jaeger          Jaeger v2, github.com/jaegertracing/jaeger/cmd/jaeger at the version jaeger/go.mod pins
#   otelcol-ccotel  an OpenTelemetry Collector holding exactly the components docker/otel-collector.yaml uses
#   otelcol-gateway an OpenTelemetry Collector holding exactly the components the team gateway configs
#                   (config/examples/team/gateway*.yaml) use, contrib's among them; only validated
# into a cache outside the clone, so a fresh clone on the same machine (CI) reuses them:
#   ${XDG_CACHE_HOME:-~/.cache}/ccotel/backends/<name>-<version>-<hash of the module's files>/<binary>
# A binary already there is not rebuilt. Without Go this prints why and exits 0: the tests that need
# the binaries then skip and say so. Beside jaeger it keeps Jaeger's own all-in-one.yaml. `build.sh --print-dirs` prints the three directories and exits.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ccotel/backends"

# The pinned version of a module path in a module's go.mod.
pinned() { # <module folder> <module path>
  awk -v m="$2" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$here/$1/go.mod"
}

# The directory for one module: name, pinned version and a hash of go.mod, go.sum, *.go and this
# script (it holds the build flags), so that any change to what is built builds anew. The tests
# ask this script for the directories (--print-dirs), so the hash is computed here only.
module_dir() { # <module folder> <module path whose version names the build>
  local dir="$here/$1" version hash
  version="$(pinned "$1" "$2")"
  hash="$(cd "$dir" && cat go.mod go.sum $(ls -1 -- *.go 2>/dev/null | LC_ALL=C sort) "$here/build.sh" | sha256sum | cut -c1-12)"
  echo "$cache/$1-${version:-unknown}-$hash"
}

jaeger_dir="$(module_dir jaeger github.com/jaegertracing/jaeger)"
otelcol_dir="$(module_dir otelcol go.opentelemetry.io/collector/otelcol)"
gateway_dir="$(module_dir otelcol-gateway go.opentelemetry.io/collector/otelcol)"
if [ "${1:-}" = "--print-dirs" ]; then
  printf '%s\n%s\n%s\n' "$jaeger_dir" "$otelcol_dir" "$gateway_dir"
  exit 0
fi

# Go's usual home when it is not on PATH; CCOTEL_GO_BIN_DIR names another (the tests use it to
# check the no-Go path on a machine that has Go).
go_bin_dir="${CCOTEL_GO_BIN_DIR:-/usr/local/go/bin}"
if ! command -v go >/dev/null 2>&1 && [ -x "$go_bin_dir/go" ]; then
  PATH="$PATH:$go_bin_dir"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "backends: not built: no \`go\` on PATH (nor $go_bin_dir/go); the real-backend e2e tests will skip"
  exit 0
fi

build() { # <module folder> <package> <output dir> <binary name> [-X flags for -ldflags]
  local out="$3/$4" started=$SECONDS
  if [ -x "$out" ]; then
    echo "backends: $4 already built at $out"
    return 0
  fi
  mkdir -p "$3" || return 1
  echo "backends: building $4 ($2) with $(go env GOVERSION) into $3 ..."
  # -trimpath and no VCS stamp: the binary does not depend on where the clone is.
  if (cd "$here/$1" && go build -trimpath -buildvcs=false -ldflags="-s -w ${5:-}" -o "$out.tmp.$$" "$2"); then
    mv -f "$out.tmp.$$" "$out"
    echo "backends: built $4 in $((SECONDS - started)) s"
  else
    rm -f "$out.tmp.$$"
    echo "backends: building $4 failed after $((SECONDS - started)) s"
    return 1
  fi
}

started=$SECONDS
status=0
# Stamped as Jaeger's own release builds are, so `jaeger version` and its logs name the pin.
build jaeger github.com/jaegertracing/jaeger/cmd/jaeger "$jaeger_dir" jaeger \
  "-X github.com/jaegertracing/jaeger/internal/version.latestVersion=$(pinned jaeger github.com/jaegertracing/jaeger)" || status=1
# Jaeger's built-in all-in-one config (what the compose stack runs, memory storage), from the pinned
# module itself: the tests start the binary with it, only its ports moved.
if [ "$status" -eq 0 ] && [ ! -f "$jaeger_dir/all-in-one.yaml" ]; then
  src="$(cd "$here/jaeger" && go list -m -f '{{.Dir}}' github.com/jaegertracing/jaeger)/cmd/jaeger/internal/all-in-one.yaml"
  cp "$src" "$jaeger_dir/all-in-one.yaml" && chmod 644 "$jaeger_dir/all-in-one.yaml" || status=1
fi
build otelcol . "$otelcol_dir" otelcol-ccotel || status=1
build otelcol-gateway . "$gateway_dir" otelcol-gateway || status=1
echo "backends: done in $((SECONDS - started)) s"
exit "$status"
