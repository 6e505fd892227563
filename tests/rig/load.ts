/**
 * Loading a program file afresh for each evaluation, as each Pulumi command runs the program anew:
 * JavaScript and TypeScript through `require` (the cache entry dropped first); TypeScript transpiled
 * by the program's own `typescript` when it has the JS API (5.x, 6.x), else (TypeScript 7, the native
 * compiler, has none) stripped of types by Node itself and imported as a module under a fresh URL.
 * Node then reads the file as a module only if the program's package.json says `"type": "module"`;
 * without it Node warns (MODULE_TYPELESS_PACKAGE_JSON) that it parsed the file twice.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

type TypeScriptApi = typeof import("typescript");

/** How `.ts` files load: through require (a transpiler is registered), or Node's own type stripping. */
type Loader = "require" | "strip";

/** An `import()` that the CommonJS build leaves alone (tsc would turn it into a require). */
const importModule = new Function("specifier", "return import(specifier)") as (s: string) => Promise<unknown>;
let evaluation = 0;
const MARK = "?secops-evaluation=";

/** The program's module: its exports (a module namespace when Node stripped the types). */
export async function loadProgram(file: string): Promise<unknown> {
  if (file.endsWith(".ts") && typeScriptLoader(dirname(file)) === "strip") {
    if (packageType(dirname(file)) === "commonjs")
      throw new Error(
        `${file}: with no TypeScript 5 or 6 to compile it, a TypeScript program runs as Node strips ` +
          `its types, as an ES module, which its package.json's "type": "commonjs" forbids (import ` +
          `statements fail): install TypeScript beside the program (npm install -D typescript@5 ` +
          `@types/node), or set "type": "module" in its package.json`,
      );
    return importModule(`${pathToFileURL(file).href}${MARK}${++evaluation}`);
  }
  delete require.cache[file];
  return require(file);
}

/**
 * Picks how `.ts` loads: whatever already handles it (ts-node, jest); the program's `typescript`
 * (else this package's) with its transpiler, registered for `require` (transpile only, as Pulumi's
 * TypeScript support does: type errors are the program's tsc's business); else Node's type stripping.
 */
function typeScriptLoader(programDir: string): Loader {
  const extensions = require.extensions as Record<string, unknown> | undefined;
  if (!extensions || extensions[".ts"]) return "require";
  const ts = typeScriptApi(programDir);
  if (ts) {
    const compile = (module: { _compile(code: string, file: string): void }, filename: string) => {
      const out = ts.transpileModule(readFileSync(filename, "utf8"), {
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
        },
        fileName: filename,
      });
      module._compile(out.outputText, filename);
    };
    extensions[".ts"] = compile;
    return "require";
  }
  if (nodeStripsTypes()) return "strip";
  throw new Error(
    `${programDir} is a TypeScript program: it needs Node's type stripping (Node 22.18 or later) or ` +
      `a typescript with a JS API (npm install -D typescript@5) to run`,
  );
}

/** The `type` of the nearest package.json above `dir` (undefined when it has none). */
function packageType(dir: string): string | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    const file = join(d, "package.json");
    if (existsSync(file)) {
      const type = (JSON.parse(readFileSync(file, "utf8")) as { type?: unknown }).type;
      return typeof type === "string" ? type : undefined;
    }
    if (dirname(d) === d) return undefined;
  }
}

/** Whether this Node strips TypeScript types itself (on by default from 22.18, 23.6). */
function nodeStripsTypes(): boolean {
  const flag = (process.features as { typescript?: string | false }).typescript;
  return typeof flag === "string" && flag !== "";
}

/** The program's `typescript` (else this package's) if it has the JS API; TypeScript 7 has none. */
function typeScriptApi(programDir: string): TypeScriptApi | undefined {
  let ts: Partial<TypeScriptApi>;
  try {
    ts = require(require.resolve("typescript", { paths: [programDir, __dirname] }));
  } catch {
    return undefined;
  }
  return typeof ts.transpileModule === "function" && ts.ModuleKind ? (ts as TypeScriptApi) : undefined;
}

/**
 * Makes `pulumi-secops` resolvable from a program directory, as an install would: the host resolves
 * the serialized provider's `require`s from its working directory. Links `packageRoot` (a built
 * checkout or an installed copy) as `<dir>/node_modules/pulumi-secops` unless something is there.
 */
export function linkPackage(programDir: string, packageRoot: string): void {
  const target = join(programDir, "node_modules", "pulumi-secops");
  if (existsSync(target) || isLink(target)) return;
  mkdirSync(join(programDir, "node_modules"), { recursive: true });
  symlinkSync(resolve(packageRoot), target, "dir");
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
