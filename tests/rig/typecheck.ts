/**
 * Type-checking a TypeScript program before it runs, as Pulumi's Node.js runtime does by default
 * (ts-node without `transpileOnly`): a type error fails the step, naming file, line and column as
 * `tsc` prints them (`index.ts(3,7): error TS2322: ...`), in a `TSError` as Pulumi shows it.
 *
 * As Pulumi decides (`@pulumi/pulumi/cmd/run/run.ts`): `PULUMI_NODEJS_TRANSPILE_ONLY=true` opts out
 * (any other value opts in); unset, the tsconfig's `noCheck` decides. The tsconfig is
 * `PULUMI_NODEJS_TSCONFIG_PATH`, else `tsconfig.json`, in the program's directory (never one above
 * it), its compiler options over Pulumi's defaults (target ES2020, module and moduleResolution
 * nodenext). As ts-node checks what it compiles, only the program's own files count: the entry and
 * the files it imports (never the tsconfig's `files` or `include`), not a dependency's declarations,
 * nor an option the compiler only objects to.
 *
 * The TypeScript is the program's (else this package's): its JS API (5.x, 6.x), else its `tsc`
 * (TypeScript 7 has no JS API). With no TypeScript at all the program is not checked (Node strips the
 * types, see load.ts): there is nothing to check it with.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

type TypeScriptApi = typeof import("typescript");

/** A program that does not type-check; the message is ts-node's, as Pulumi prints it. */
export class TypeCheckError extends Error {
  constructor(readonly diagnostics: string[]) {
    super(`⨯ Unable to compile TypeScript:\n${diagnostics.join("\n")}`);
    this.name = "TSError";
  }
}

/** Pulumi's own compiler options for a TypeScript program, under the tsconfig's. */
const PULUMI_DEFAULTS: Record<string, string> = {
  target: "ES2020",
  module: "nodenext",
  moduleResolution: "nodenext",
};
/** Config diagnostics ts-node ignores: no inputs in `files`/`include` (the entry is given instead). */
const IGNORED_CODES = new Set([6059, 18002, 18003]);

/** The TypeScript to check with: its JS API, or the path of its `tsc`. */
type Compiler = { api: TypeScriptApi; root: string } | { tsc: string; root: string };

/** One check's verdict and the files it read, with their modification times (to reuse the verdict). */
interface Verdict {
  stamps: Array<[string, number]>;
  diagnostics: string[];
}
const verdicts = new Map<string, Verdict>();

/** Whether a path names a TypeScript source file. */
export const isTypeScript = (file: string) => /\.(ts|mts|cts|tsx)$/.test(file) && !/\.d\.[mc]?ts$/.test(file);

/**
 * Type-checks the program `file` run from `programDir` (its tsconfig's directory), as Pulumi would;
 * rejects with {@link TypeCheckError} on a type error. A verdict is reused while none of the files it
 * read has changed (each runner step evaluates the program again).
 */
export async function typeCheck(file: string, programDir: string): Promise<void> {
  const compiler = findCompiler([programDir, dirname(file), __dirname]);
  if (!compiler) return;
  const tsconfig = resolve(programDir, process.env.PULUMI_NODEJS_TSCONFIG_PATH || "tsconfig.json");
  const config = existsSync(tsconfig) ? tsconfig : undefined;
  if (transpileOnly(config)) return;
  const key = JSON.stringify([file, programDir, config, compiler.root]);
  const last = verdicts.get(key);
  let verdict = last && unchanged(last) ? last : undefined;
  if (!verdict) {
    verdict =
      "api" in compiler
        ? checkWithApi(compiler.api, file, programDir, config)
        : await checkWithTsc(compiler.tsc, file, programDir, config);
    verdicts.set(key, verdict);
  }
  if (verdict.diagnostics.length) throw new TypeCheckError(verdict.diagnostics);
}

/** Pulumi's rule: the variable when set (only `true` skips the check), else the tsconfig's `noCheck`. */
function transpileOnly(config: string | undefined): boolean {
  const env = process.env.PULUMI_NODEJS_TRANSPILE_ONLY;
  if (env) return env === "true";
  const options = config ? rawCompilerOptions(config) : {};
  return options.noCheck === true;
}

/** The nearest `node_modules/typescript` from each directory in turn (as `require` looks). */
function findCompiler(dirs: string[]): Compiler | undefined {
  for (const start of dirs) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const root = join(dir, "node_modules", "typescript");
      const compiler = existsSync(join(root, "package.json")) ? compilerAt(root) : undefined;
      if (compiler) return compiler;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function compilerAt(root: string): Compiler | undefined {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  try {
    const api = require(require.resolve("typescript", { paths: [dirname(dirname(root))] })) as TypeScriptApi;
    if (typeof api.createProgram === "function" && typeof api.formatDiagnostics === "function")
      return { api, root };
  } catch {
    // No JS API to load (TypeScript 7): its tsc below.
  }
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.tsc;
  return bin ? { tsc: join(root, bin), root } : undefined;
}

function unchanged(verdict: Verdict): boolean {
  return verdict.stamps.every(([path, mtime]) => {
    try {
      return statSync(path).mtimeMs === mtime;
    } catch {
      return false;
    }
  });
}

const stamp = (paths: string[]): Array<[string, number]> =>
  paths.filter((p) => existsSync(p)).map((p) => [p, statSync(p).mtimeMs]);

/** A file of the program itself: not a declaration file, not a dependency, not a config file. */
const ownFile = (path: string) =>
  !/[\\/]node_modules[\\/]/.test(path) && !/\.d\.[mc]?ts$/.test(path) && !path.endsWith(".json");

/** Checks with the JS API: the entry as the only root, its imports followed. */
function checkWithApi(ts: TypeScriptApi, file: string, programDir: string, config?: string): Verdict {
  const host: import("typescript").FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => programDir,
    getNewLine: () => "\n",
  };
  const format = (diagnostics: readonly import("typescript").Diagnostic[]) =>
    diagnostics
      .filter((d) => d.category === ts.DiagnosticCategory.Error && !IGNORED_CODES.has(d.code))
      .map((d) => ts.formatDiagnostics([d], host).trimEnd());
  const { options, errors } = apiOptions(ts, programDir, config);
  if (errors.length) return { stamps: stamp(config ? [config] : []), diagnostics: format(errors) };
  const compilerHost = ts.createCompilerHost(options);
  compilerHost.getCurrentDirectory = () => programDir;
  const program = ts.createProgram({ rootNames: [file], options, host: compilerHost });
  const own = program.getSourceFiles().filter((f) => ownFile(f.fileName));
  const diagnostics = format([
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ]);
  return { stamps: stamp([...own.map((f) => f.fileName), ...(config ? [config] : [])]), diagnostics };
}

/** The tsconfig's options (its `extends` followed) over Pulumi's defaults, as ts-node merges them. */
function apiOptions(ts: TypeScriptApi, programDir: string, config?: string) {
  const defaults = ts.convertCompilerOptionsFromJson(PULUMI_DEFAULTS, programDir).options;
  if (!config) return { options: { ...defaults, noEmit: true }, errors: [] };
  const read = ts.readConfigFile(config, (p) => ts.sys.readFile(p));
  if (read.error) return { options: {}, errors: [read.error] };
  const json = read.config as { compilerOptions?: Record<string, unknown> };
  const parsed = ts.parseJsonConfigFileContent(json, ts.sys, dirname(config), undefined, config);
  const own = ts.convertCompilerOptionsFromJson(json.compilerOptions ?? {}, dirname(config)).options;
  return { options: { ...parsed.options, ...defaults, ...own, noEmit: true }, errors: parsed.errors };
}

/**
 * Checks with `tsc` (no JS API): through a temporary tsconfig next to the program's that extends it and
 * names the entry alone (as ts-node would), with Pulumi's defaults for what the program's leaves unset.
 */
async function checkWithTsc(
  tsc: string,
  file: string,
  programDir: string,
  config?: string,
): Promise<Verdict> {
  const flags = ["--noEmit", "--pretty", "false", "--listFiles"];
  if (!config) {
    const defaults = Object.entries(PULUMI_DEFAULTS).flatMap(([k, v]) => [`--${k}`, v]);
    return runTsc(tsc, [...flags, ...defaults, file], programDir);
  }
  const raw = rawCompilerOptions(config);
  const defaults = Object.fromEntries(Object.entries(PULUMI_DEFAULTS).filter(([k]) => !(k in raw)));
  const temporary = join(dirname(config), `.secops-typecheck-${process.pid}-${verdicts.size}.json`);
  writeFileSync(
    temporary,
    JSON.stringify({ extends: config, compilerOptions: defaults, files: [file], include: [] }),
  );
  try {
    return await runTsc(tsc, [...flags, "-p", temporary], programDir, { path: config, temporary });
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Runs tsc; keeps the errors located in the program's own files (`--listFiles` names what it read).
 * When tsc found none but failed (a configuration it rejects, after which it checks nothing), its
 * configuration errors are the verdict, named after the program's tsconfig (`config`) rather than
 * the temporary one: a program that was not checked never passes as checked.
 */
async function runTsc(
  tsc: string,
  args: string[],
  cwd: string,
  config?: { path: string; temporary: string },
): Promise<Verdict> {
  const { code, stdout, stderr } = await spawnTsc(tsc, args, cwd);
  const read: string[] = [];
  const diagnostics: Array<{ file?: string; lines: string[] }> = [];
  for (const line of stdout.split(/\r?\n/)) {
    const located = /^(.+?)\(\d+,\d+\): error TS\d+: /.exec(line);
    if (located) diagnostics.push({ file: resolve(cwd, located[1]), lines: [line] });
    else if (/^error TS\d+: /.test(line)) diagnostics.push({ lines: [line] });
    else if (/^\s+\S/.test(line) && diagnostics.length) diagnostics[diagnostics.length - 1].lines.push(line);
    else if (isAbsolute(line)) read.push(line);
  }
  if (code !== 0 && diagnostics.length === 0)
    throw new Error(`tsc (${tsc}) could not check the program (exit ${code}): ${(stderr || stdout).trim()}`);
  const stamps = stamp([...read.filter(ownFile), ...(config ? [config.path] : [])]);
  const own = diagnostics.filter((d) => d.file && ownFile(d.file));
  if (own.length || code === 0) return { stamps, diagnostics: own.map((d) => d.lines.join("\n")) };
  const name = config ? relative(cwd, config.path) || config.path : undefined;
  const configErrors = diagnostics.map((d) => {
    const text = d.lines.join("\n");
    if (!name || d.file !== config?.temporary) return text;
    return text.replace(/^.+?\(\d+,\d+\): /, `${name}: `);
  });
  return { stamps, diagnostics: configErrors };
}

function spawnTsc(tsc: string, args: string[], cwd: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, [tsc, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let [out, err] = ["", ""];
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.once("error", fail);
    child.once("close", (status) => done({ code: status, stdout: out, stderr: err }));
  });
}

/** A tsconfig's own `compilerOptions` (JSON with comments and trailing commas, as tsc reads it). */
function rawCompilerOptions(config: string): Record<string, unknown> {
  try {
    const json = JSON.parse(withoutComments(readFileSync(config, "utf8"))) as {
      compilerOptions?: Record<string, unknown>;
    };
    return json.compilerOptions ?? {};
  } catch {
    return {}; // as Pulumi: an unreadable tsconfig sets nothing here (the check itself reports it)
  }
}

/** JSON with comments → JSON: comments and trailing commas outside strings dropped (strings kept whole). */
export function withoutComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = /"(?:[^"\\]|\\.)*"/y;
      end.lastIndex = i;
      const m = end.exec(text);
      out += m ? m[0] : text.slice(i);
      i = m ? i + m[0].length - 1 : text.length;
    } else if (c === "/" && text[i + 1] === "/") {
      const newline = text.indexOf("\n", i);
      i = newline === -1 ? text.length : newline - 1; // the newline itself is kept
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 1;
    } else if (c !== "," || !closesNext(text, i + 1)) out += c;
  }
  return out;
}

/** Whether only whitespace or comments stand between `from` and a closing `}` or `]` (a trailing comma). */
function closesNext(text: string, from: number): boolean {
  const rest = /(?:\s|\/\/[^\n]*|\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\/)*[}\]]/y;
  rest.lastIndex = from;
  return rest.test(text);
}
