#!/usr/bin/env bash
# What the Python and Go SDKs and programs need beside the Pulumi CLI (.ci/pulumi-cli/build.sh), built
# once into the same cache. Prints one path.
#
# Usage:
#   .ci/pulumi-langs/build.sh gen-sdk   the path of secops-gen-sdk (main.go here: Pulumi's own code
#                                       generators at the pkg/v3 release go.mod pins), built when
#                                       missing or older than main.go/go.mod
#   .ci/pulumi-langs/build.sh python    the path of a Python virtualenv holding `pulumi` from PyPI (the
#                                       version below) and the SDK installed from sdk/python/, made or
#                                       brought up to date when sdk/python/ changed
# Needs Go 1.26+ and the Go module proxy (gen-sdk), python3 with venv and PyPI (python).
#
# Why a code-generator command and not `pulumi package gen-sdk`: in 3.274 gen-sdk asks the language
# host (pulumi-language-python, pulumi-language-go) to generate, and the Go module proxy refuses the
# hosts' modules at every version asked: github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3
# and github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3 answer 403 "This module version is not
# available" for @v/list, @latest, v3.274.1 and the pseudo-version of a release commit, like the
# Node.js host (.ci/pulumi-cli/build.sh). Without the Python host a `runtime: python` project cannot
# run under the CLI either: the tests run Python programs as the Automation API's inline programs,
# whose language server is the `pulumi` package's own (tests/helpers/pulumi-langs.ts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# The Python SDK from PyPI: its newest 3.x release (PyPI has no 3.274). The generated SDK asks for >= 3.269.
PULUMI_PYTHON=3.272.0
version=$(grep -o "github.com/pulumi/pulumi/pkg/v3 v[0-9.]*" "$here/go.mod" | cut -d" " -f2)
cache=${SECOPS_PULUMI_CACHE:-$root/.ci-cache}
out=$cache/pulumi-$version/bin
mkdir -p "$out"

# Two test workers may ask at once: one builds, the other waits for it (flock, util-linux). A lock of
# its own: the CLI's build holds $out/.build.lock.
exec 9>"$out/.langs.lock"
flock 9

gen_sdk() {
  local bin=$out/secops-gen-sdk
  if [ ! -x "$bin" ] || [ "$here/main.go" -nt "$bin" ] || [ "$here/go.mod" -nt "$bin" ]; then
    command -v go >/dev/null || { echo "Go 1.26+ is needed to build secops-gen-sdk" >&2; exit 1; }
    case $(go env GOVERSION) in
      go1.2[6-9]* | go1.[3-9]*) ;;
      *) echo "Go 1.26+ is needed to build secops-gen-sdk; $(command -v go) is $(go env GOVERSION)" >&2; exit 1 ;;
    esac
    (cd "$here" && GOFLAGS=-mod=mod go build -trimpath -o "$bin.partial" .) >&2
    mv "$bin.partial" "$bin"
  fi
  echo "$bin"
}

python_venv() {
  local venv=$cache/python-pulumi-$PULUMI_PYTHON stamp sdk_hash
  command -v python3 >/dev/null || { echo "python3 (3.9+) is needed for the Python programs" >&2; exit 1; }
  # The SDK is installed as a user installs it (pip install of the folder), again when it changed.
  sdk_hash=$(cd "$root/sdk/python" && find . -type f ! -path "*/__pycache__/*" ! -path "./build/*" \
    ! -path "*.egg-info/*" -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  stamp=$venv/.secops-sdk
  if [ ! -x "$venv/bin/python" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "pulumi==$PULUMI_PYTHON" >&2
  fi
  if [ "$(cat "$stamp" 2>/dev/null)" != "$sdk_hash" ]; then
    # A copy: pip builds in the folder it is given, and sdk/ stays as generated.
    local copy
    copy=$(mktemp -d)
    cp -r "$root/sdk/python/." "$copy"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "$copy" >&2
    rm -rf "$copy"
    echo "$sdk_hash" >"$stamp"
  fi
  echo "$venv"
}

case ${1:-} in
  gen-sdk) gen_sdk ;;
  python) python_venv ;;
  *) echo "usage: $0 gen-sdk|python" >&2; exit 2 ;;
esac
