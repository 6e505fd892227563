#!/usr/bin/env bash
# Builds Pulumi's CLI (github.com/pulumi/pulumi/pkg/v3, package cmd/pulumi) from the Go module proxy at
# the release this folder's go.mod pins, once, into .ci-cache/pulumi-<version>/bin, and puts beside it
# the script that runs dynamic providers (pulumi-resource-pulumi-nodejs, from sdk/nodejs/dist of the
# sdk module): the CLI finds bundled plugins next to its own executable. Prints that bin folder.
#
# Usage: .ci/pulumi-cli/build.sh            (prints the bin folder; builds only when it is missing)
# Needs Go (1.26+) and the Go module proxy. Where `pulumi` is already on PATH the tests use that one
# instead (tests/helpers/pulumi-cli.ts) and this script is not run.
#
# Why 3.274.1: the newest @pulumi/pulumi that CI tests is 3.270.0, but the module proxy refuses
# pkg/v3@v3.270.0 (403 "This module version is not available"); 3.274.1 is the newest pkg/v3 it serves.
# Pulumi's Node.js language host (sdk/nodejs/cmd/pulumi-language-nodejs/v3) is refused at every version
# asked (its @v/list, @latest, and the pseudo-versions of the v3.248.0, v3.259.0 and v3.260.0 release
# commits all answer 403), so Node.js programs run through the Automation API's inline programs, whose
# language server is @pulumi/pulumi's own (see docs/engine.md). Pulumi YAML's language host
# (github.com/pulumi/pulumi-yaml v1.25.0, served) is built beside the CLI: YAML projects run with the
# CLI alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$(grep -o "github.com/pulumi/pulumi/pkg/v3 v[0-9.]*" "$here/go.mod" | cut -d" " -f2)
out=${SECOPS_PULUMI_CACHE:-$root/.ci-cache}/pulumi-$version/bin
# Two test workers may ask at once: one builds, the other waits for it (flock, util-linux).
mkdir -p "$out"
exec 9>"$out/.build.lock"
flock 9
yaml_version=$(grep -o "github.com/pulumi/pulumi-yaml v[0-9.]*" "$root/.ci/pulumi-yaml/go.mod" | cut -d" " -f2)
if [ ! -x "$out/pulumi" ] || [ ! -x "$out/pulumi-resource-pulumi-nodejs" ] ||
  [ ! -x "$out/pulumi-language-yaml" ] || [ "$(cat "$out/.yaml-version" 2>/dev/null)" != "$yaml_version" ]; then
  command -v go >/dev/null || { echo "Go 1.26+ is needed to build the Pulumi CLI (or put pulumi on PATH)" >&2; exit 1; }
  # Debian's golang-go (installed for other uses) may come first on PATH: the pinned release needs 1.26.
  case $(go env GOVERSION) in
    go1.2[6-9]* | go1.[3-9]*) ;;
    *) echo "Go 1.26+ is needed to build the Pulumi CLI; $(command -v go) is $(go env GOVERSION)" >&2; exit 1 ;;
  esac
  mkdir -p "$out"
  (cd "$here" && GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version" \
    -o "$out/pulumi.partial" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi) >&2
  mv "$out/pulumi.partial" "$out/pulumi"
  # Pulumi YAML's language host, from its own module (.ci/pulumi-yaml), so `pulumi up` and
  # `pulumi import` run YAML projects with nothing else (the Node.js host cannot be built: above).
  (cd "$root/.ci/pulumi-yaml" && GOFLAGS=-mod=mod go build -trimpath -o "$out/pulumi-language-yaml.partial" \
    github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml) >&2
  mv "$out/pulumi-language-yaml.partial" "$out/pulumi-language-yaml"
  echo "$yaml_version" >"$out/.yaml-version"
  sdk=$(cd "$here" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)
  install -m 0755 "$sdk/nodejs/dist/pulumi-resource-pulumi-nodejs" "$out/pulumi-resource-pulumi-nodejs"
fi
echo "$out"
