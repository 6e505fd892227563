"use strict";
// The pulumi-secops guardrails pack (docs/policy.md). @pulumi/policy reads the pack's version from
// package.json in the working directory: the package's own, at its root.
const { join } = require("node:path");
try {
  require.resolve("@pulumi/policy", { paths: [join(__dirname, "..")] });
} catch {
  process.stderr.write(
    "pulumi-secops policy pack: @pulumi/policy is not installed; run `npm install @pulumi/policy` in the program's folder\n",
  );
  process.exit(1);
}
process.chdir(join(__dirname, ".."));
require("../dist/policy/index.js").servePolicyPack();
