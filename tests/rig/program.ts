/**
 * Runs a Pulumi program under `pulumi.runtime.setMocks` and collects what it declares: each
 * resource's type, name and inputs, including the serialized `__provider`, as the engine would
 * receive them in RegisterResource.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { recordAliases } from "./aliases";
import { loadProgram } from "./load";
import { isTypeScript, typeCheck } from "./typecheck";
import { urnOfParts } from "./urns";

/** A declared resource. */
export interface DeclaredResource {
  urn: string;
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  /** The URN of the explicit provider (the `provider` option), if any. */
  provider?: string;
  /** The `import` option: the id of an existing object to adopt. */
  importId?: string;
  /** The `aliases` option: the URNs this resource may be known by in the state. */
  aliases?: string[];
}

/** Answers a provider function call made by the program (e.g. the plugin's Invoke). */
export type InvokeHandler = (
  token: string,
  args: Record<string, unknown>,
  provider: string | undefined,
  declared: readonly DeclaredResource[],
) => Promise<Record<string, unknown>>;

/** Where the program comes from: a module path (evaluated fresh each time) or a function. */
export type ProgramSource = string | (() => unknown);

/** Options of {@link declaredResources}. */
export interface ProgramOptions {
  project?: string;
  stack?: string;
  /** Stack config the program sees (full keys, e.g. `secops:baseUrl`). */
  config?: Record<string, string>;
  /** Config keys the program sees as secrets (as Pulumi marks them). */
  secretKeys?: string[];
  /** Answers invokes (default: the arguments echoed back, as plain mocks do). */
  invoke?: InvokeHandler;
  /** What the state holds for a URN: the program then sees the real id and outputs (else preview values). */
  known?: (urn: string) => { id: string; outputs: Record<string, unknown> } | undefined;
  /**
   * The directory the program runs from (its tsconfig's): a TypeScript program is type-checked first,
   * as Pulumi does (see typecheck.ts). Default: the program file's directory.
   */
  programDir?: string;
}

/** What evaluating a program yields: its resources and its stack outputs (the module's exports). */
export interface EvaluatedProgram {
  declared: DeclaredResource[];
  /** Stack outputs resolved: secrets as `[secret]`, values unknown in preview as `[unknown]`. */
  outputs: Record<string, unknown>;
  /** Outputs that failed to resolve (e.g. a data source's error), by name. */
  outputErrors: Record<string, string>;
}

/** The URN the engine would give a top-level resource. */
export const urnOf = urnOfParts;

/** Evaluates the program under mocks and returns the resources it declares, sorted by URN. */
export async function declaredResources(
  program: ProgramSource,
  options: ProgramOptions = {},
): Promise<DeclaredResource[]> {
  return (await evaluateProgram(program, options)).declared;
}

/**
 * Evaluates the program afresh under mocks, as Pulumi runs it: the stack's config (secrets marked
 * secret), a TypeScript program transpiled on the fly, its resources collected and its exports
 * resolved as stack outputs.
 */
export async function evaluateProgram(
  program: ProgramSource,
  options: ProgramOptions = {},
): Promise<EvaluatedProgram> {
  // @pulumi/pulumi's debuggablePromise records `new Error().stack` for every promise it makes, for a
  // leak report it prints only with PULUMI_DEBUG_PROMISE_LEAKS: at 1,000 resources that is most of the
  // evaluation's time. Stacks are off while the program runs unless that variable asks for them
  // (errors keep their messages).
  const limit = Error.stackTraceLimit;
  if (!process.env.PULUMI_DEBUG_PROMISE_LEAKS) Error.stackTraceLimit = 0;
  try {
    return await evaluate(program, options);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

async function evaluate(program: ProgramSource, options: ProgramOptions): Promise<EvaluatedProgram> {
  const project = options.project ?? "project";
  const stack = options.stack ?? "dev";
  const seen: DeclaredResource[] = [];
  const aliases: { of?: (type: string, name: string) => string[] } = {};
  await pulumi.runtime.setMocks(mocks(seen, options, project, stack, aliases), project, stack, true);
  aliases.of = recordAliases(project, stack);
  pulumi.runtime.setAllConfig(options.config ?? {}, options.secretKeys);
  let exported: unknown;
  let loaded: { file: string; module: unknown } | undefined;
  if (typeof program === "string") {
    const file = require.resolve(resolve(program));
    if (isTypeScript(file)) await typeCheck(file, options.programDir ?? dirname(file));
    const mod = (await loadProgram(file)) as { default?: unknown } | undefined;
    // A module system that ignores require.cache (jest) hands back the same exports without running
    // the program again: reuse what that run declared.
    const last = lastRun.get(file);
    if (last && last.module === mod) return last.result;
    loaded = { file, module: mod };
    exported = typeof mod?.default === "function" ? await mod.default() : mod;
  } else {
    exported = await program();
  }
  const { outputs, outputErrors } = await resolveOutputs(exported);
  // Registration is asynchronous (the provider is serialized first); wait until it settles.
  let count = -1;
  for (let quiet = 0; quiet < 5;) {
    await new Promise((r) => setTimeout(r, 20));
    quiet = seen.length === count ? quiet + 1 : 0;
    count = seen.length;
  }
  // Registration order follows serialization, not declaration: sort for stable plans and reports.
  const result = { declared: seen.sort((a, b) => a.urn.localeCompare(b.urn)), outputs, outputErrors };
  if (loaded) lastRun.set(loaded.file, { module: loaded.module, result });
  return result;
}

const visibleOutputs = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== "__provider"));

/** The mocks that collect what the program declares (with the state's ids) and answer its invokes. */
function mocks(
  seen: DeclaredResource[],
  options: ProgramOptions,
  project: string,
  stack: string,
  aliases: { of?: (type: string, name: string) => string[] },
): pulumi.runtime.Mocks {
  return {
    newResource: (args) => {
      const aliasUrns = aliases.of?.(args.type, args.name) ?? [];
      seen.push({
        urn: urnOf(project, stack, args.type, args.name),
        type: args.type,
        name: args.name,
        inputs: args.inputs,
        // A provider reference is `<provider urn>::<provider id>`.
        ...(args.provider ? { provider: args.provider.replace(/::[^:]*$/, "") } : {}),
        ...(args.id ? { importId: args.id } : {}),
        ...(aliasUrns.length ? { aliases: aliasUrns } : {}),
      });
      const urns = [urnOf(project, stack, args.type, args.name), ...aliasUrns];
      const known = urns.map((u) => options.known?.(u)).find(Boolean);
      if (known) return { id: known.id, state: { ...args.inputs, ...visibleOutputs(known.outputs) } };
      return { id: `${args.name}-preview-id`, state: args.inputs };
    },
    call: async (args) => {
      if (!options.invoke) return args.inputs;
      // The default provider's invokes name none: the SDK sends an empty reference.
      const provider = args.provider ? args.provider.replace(/::[^:]*$/, "") : undefined;
      try {
        return await options.invoke(args.token, args.inputs, provider, seen);
      } catch (err) {
        throw invokeError(err);
      }
    },
  };
}

/**
 * An invoke's error as the program sees it: the SDK turns a failed Invoke into `new Error(details)`,
 * the engine's text, so an error without `details` would reach the program with no message at all.
 */
function invokeError(err: unknown): Error {
  const message = (err as Error)?.message ?? String(err);
  return Object.assign(new Error(message), { details: message });
}

/** The last evaluation of each module program, for module systems that cannot re-run a module. */
const lastRun = new Map<string, { module: unknown; result: EvaluatedProgram }>();

/**
 * Evaluates a runner's program afresh (an edited program is re-read by every step) with the stack's
 * config, secrets marked secret, as Pulumi gives it to a program; the project name comes from the
 * program's Pulumi.yaml unless given. Outputs that fail to resolve (a data source's error) fail the step.
 */
export async function evaluateStack(options: {
  program: ProgramSource;
  programDir: string;
  project?: string;
  stack?: string;
  config?: Record<string, string>;
  secretKeys?: string[];
  invoke?: InvokeHandler;
  known?: ProgramOptions["known"];
}): Promise<EvaluatedProgram> {
  const { program } = options;
  const dirs = [typeof program === "string" ? dirname(resolve(program)) : undefined, options.programDir];
  const project =
    options.project ?? dirs.map((d) => (d ? projectName(d) : undefined)).find(Boolean) ?? "project";
  const evaluated = await evaluateProgram(program, {
    project,
    stack: options.stack,
    config: options.config ?? {},
    secretKeys: options.secretKeys ?? ["secops:apiKey"],
    invoke: options.invoke,
    known: options.known,
    programDir: options.programDir,
  });
  const failed = Object.entries(evaluated.outputErrors);
  if (failed.length)
    throw new Error(
      `the program failed: ${failed.map(([name, message]) => `output ${name}: ${message}`).join("; ")}`,
    );
  return evaluated;
}

/** The project name in `<dir>/Pulumi.yaml` (its top-level `name:`), if there is one. */
export function projectName(dir: string): string | undefined {
  const file = join(dir, "Pulumi.yaml");
  if (!existsSync(file)) return undefined;
  const m = /^name:\s*["']?([^"'#\s]+)["']?\s*(#.*)?$/m.exec(readFileSync(file, "utf8"));
  return m?.[1];
}

async function resolveOutputs(
  exported: unknown,
): Promise<Pick<EvaluatedProgram, "outputs" | "outputErrors">> {
  const outputs: Record<string, unknown> = {};
  const outputErrors: Record<string, string> = {};
  if (exported === null || typeof exported !== "object") return { outputs, outputErrors };
  await Promise.all(
    Object.entries(exported).map(async ([name, value]) => {
      if (typeof value === "function") return;
      try {
        outputs[name] = await resolveValue(value);
      } catch (err) {
        outputErrors[name] = (err as Error)?.message ?? String(err);
      }
    }),
  );
  return { outputs, outputErrors };
}

/** Resolves Outputs and promises deeply; secrets become `[secret]`, unknowns `[unknown]`. */
async function resolveValue(value: unknown): Promise<unknown> {
  if (pulumi.Output.isInstance(value)) {
    const o = value as unknown as {
      isKnown: Promise<boolean>;
      isSecret: Promise<boolean>;
      promise(): Promise<unknown>;
    };
    const [known, secret] = await Promise.all([o.isKnown, o.isSecret]);
    if (secret) return "[secret]";
    if (!known) return "[unknown]";
    return resolveValue(await o.promise());
  }
  if (value instanceof Promise) return resolveValue(await value);
  if (Array.isArray(value)) return Promise.all(value.map(resolveValue));
  if (value !== null && typeof value === "object" && !pulumi.Resource.isInstance(value))
    return Object.fromEntries(
      await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await resolveValue(v)] as const)),
    );
  return pulumi.Resource.isInstance(value) ? "[resource]" : value;
}
