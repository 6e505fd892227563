#!/usr/bin/env node
/**
 * The first part of `npm run build`, before anything is compiled: writes what the resource
 * definitions (provider/resources/framework/registry.ts and provider/functions/registry.ts, read from their
 * TypeScript sources through esbuild, so a tree without the generated files builds) say, with
 * scripts/codegen.ts:
 *   schema.json                      scripts/schema-base.json (package, config, provider) with
 *                                    every data source's and every resource's entry
 *   provider/native/<resource>.ts    the native SDK's classes, and provider/native/index.ts
 *   provider/dynamic/<resource>.ts   the dynamic classes, and provider/dynamic/index.ts
 *   provider/resources/<resource>/args.ts  the Args interface both front-ends export
 *   docs/resource-reference.md       the resources' input tables
 *   provider/client/api-types.ts     the API objects' public types, from provider/client/schemas
 *                                    (by scripts/typegen.ts: plain interfaces, no zod in the .d.ts)
 * The build compiles everything afterwards. `--check` writes nothing and fails, naming
 * the files, when a file differs from what the definitions say (tests/unit/generated.test.ts runs it;
 * CI fails when the build leaves a generated file changed or new in `git status`).
 */
"use strict";
const { existsSync, readFileSync, writeFileSync } = require("node:fs");
const { dirname, join } = require("node:path");
const esbuild = require("esbuild");

const ROOT = join(__dirname, "..");
const prettier = require("prettier");

/** The generated files, by path from the root, for the resources of `registry`. */
async function files({ RESOURCES }, { FUNCTIONS }, codegen, typegen) {
  const defs = RESOURCES.map((r) => r.definition);
  const out = new Map();
  const base = JSON.parse(readFileSync(join(__dirname, "schema-base.json"), "utf8"));
  const schema = {
    attribution: `This file is ${codegen.GENERATED}.`,
    ...base,
    version: require(join(ROOT, "package.json")).version,
    functions: Object.fromEntries(FUNCTIONS.map((f) => [f.token, codegen.functionSchema(f)])),
    resources: Object.fromEntries(defs.map((d) => [d.token, codegen.resourceSchema(d)])),
  };
  out.set("schema.json", JSON.stringify(schema, null, 2) + "\n");
  for (const d of defs) {
    out.set(`provider/native/${codegen.fileNameOf(d.name)}.ts`, codegen.nativeClass(d));
    out.set(`provider/dynamic/${codegen.fileNameOf(d.name)}.ts`, codegen.dynamicClass(d));
    out.set(`provider/resources/${codegen.fileNameOf(d.name)}/args.ts`, codegen.argsModule(d));
  }
  out.set("provider/native/index.ts", nativeIndex(defs, FUNCTIONS, codegen));
  out.set("provider/dynamic/index.ts", dynamicIndex(defs, codegen));
  out.set("docs/resource-reference.md", resourcesDoc(defs, codegen));
  const fromSchemas = codegen.GENERATED.replace("from provider/resources", "from provider/client/schemas");
  out.set("provider/client/api-types.ts", typegen.apiTypesSource(fromSchemas));
  for (const [path, text] of out) {
    // Prose in the docs is wrapped at 100 characters (docs/ is checked for it).
    const prose = path.endsWith(".md") ? { proseWrap: "always", printWidth: 100 } : {};
    out.set(
      path,
      await prettier.format(text, { filepath: join(ROOT, path), ...prettierOptions(), ...prose }),
    );
  }
  return out;
}

function prettierOptions() {
  return JSON.parse(readFileSync(join(ROOT, ".prettierrc.json"), "utf8"));
}

const exportsOf = (defs, codegen) =>
  defs.map((d) => `export { ${d.name}, type ${d.name}Args } from "./${codegen.fileNameOf(d.name)}";`);

function nativeIndex(defs, functions, codegen) {
  const fns = functions.flatMap((f) => [f.name, `${f.name}Output`]).sort();
  return `// ${codegen.GENERATED}
/**
 * \`pulumi-secops/native\`: the SDK of the native provider plugin \`pulumi-resource-secops\`, what
 * \`pulumi package gen-sdk\` would generate. Needs the plugin installed (docs/native-provider.md); the
 * dynamic resources at the package root need nothing.
 */
export { Provider, type ProviderArgs } from "./provider";
${exportsOf(defs, codegen).join("\n")}
export { ${fns.join(", ")} } from "./functions";
`;
}

function dynamicIndex(defs, codegen) {
  return `// ${codegen.GENERATED}
/** The dynamic resources (the package root re-exports them): no plugin to install. */
${exportsOf(defs, codegen).join("\n")}
`;
}

function resourcesDoc(defs, codegen) {
  return [
    `<!-- ${codegen.GENERATED} -->`,
    "",
    "# Resource reference",
    "",
    "Each resource exists twice with the same arguments: a dynamic resource at the package root",
    "(`pulumi-secops`) and a native one (`pulumi-secops/native`, served by the plugin). How each behaves:",
    "[resources](resources.md).",
    "",
    ...defs.map((d) => codegen.docsSection(d)),
  ].join("\n");
}

/**
 * A module of provider/ evaluated from its TypeScript source (bundled by esbuild with its imports
 * from provider/, packages left to require): the definitions, before anything is compiled.
 */
function fromSource(path) {
  const file = join(ROOT, path);
  const { outputFiles } = esbuild.buildSync({
    entryPoints: [file],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    packages: "external",
    write: false,
    logLevel: "silent",
  });
  const module = { exports: {} };
  const requireHere = (id) => require(require.resolve(id, { paths: [dirname(file)] }));
  new Function("module", "exports", "require", "__filename", "__dirname", outputFiles[0].text)(
    module,
    module.exports,
    requireHere,
    file,
    dirname(file),
  );
  return module.exports;
}

async function main() {
  const check = process.argv.includes("--check");
  const generated = await files(
    fromSource("provider/resources/framework/registry.ts"),
    fromSource("provider/functions/registry.ts"),
    fromSource("scripts/codegen.ts"),
    fromSource("scripts/typegen.ts"),
  );
  // `--check --against <dir>` compares with the copies in <dir> (a test's), else with the checkout.
  const at = process.argv.includes("--against") ? process.argv[process.argv.indexOf("--against") + 1] : ROOT;
  const stale = [...generated].filter(
    ([path, text]) => !existsSync(join(at, path)) || readFileSync(join(at, path), "utf8") !== text,
  );
  if (check) {
    if (stale.length === 0) return;
    console.error(
      `generate: out of date with the resource definitions (run npm run build and commit): ${stale.map(([p]) => p).join(", ")}`,
    );
    process.exit(1);
  }
  for (const [path, text] of stale) writeFileSync(join(ROOT, path), text);
  if (stale.length) console.error(`generate: wrote ${stale.map(([p]) => p).join(", ")}`);
}

main().catch((err) => {
  console.error(`generate: ${err.message}`);
  process.exit(1);
});
