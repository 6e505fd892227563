#!/usr/bin/env bash
# Writes the Python and Go SDKs (sdk/python/, sdk/go/) from schema.json with Pulumi's own code
# generators: what `pulumi package gen-sdk schema.json --language <python|go> --out sdk` writes where
# Pulumi's language hosts are installed (here they cannot be built: .ci/pulumi-langs/build.sh says
# why, and builds the generator command this script runs). Run it after `npm run build` (which writes
# schema.json); CI runs it and fails when sdk/ then differs from what is committed, and
# tests/native/sdk-generated.test.ts regenerates into a temporary folder and compares every byte.
#
# Usage: scripts/gen-sdks.sh [out]      (out defaults to sdk/ of this checkout; <out>/python and
#                                        <out>/go are removed and written anew)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/sdk}
gen=$("$root/.ci/pulumi-langs/build.sh" gen-sdk)
for lang in python go; do
  "$gen" "$root/schema.json" "$lang" "$out"
done
