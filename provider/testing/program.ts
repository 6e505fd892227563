/**
 * Runs a Pulumi program under `pulumi.runtime.setMocks` and collects what it declares: each
 * resource's type, name and inputs, including the serialized `__provider`, as the engine would
 * receive them in RegisterResource.
 */
import { existsSync, lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import * as pulumi from "@pulumi/pulumi";

/** A declared resource. */
export interface DeclaredResource {
  urn: string;
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/** Where the program comes from: a module path (evaluated fresh each time) or a function. */
export type ProgramSource = string | (() => unknown);

/** Options of {@link declaredResources}. */
export interface ProgramOptions {
  project?: string;
  stack?: string;
  /** Stack config the program sees (full keys, e.g. `secops:baseUrl`). */
  config?: Record<string, string>;
}

/** The URN the engine would give a top-level resource. */
export function urnOf(project: string, stack: string, type: string, name: string): string {
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

/** Evaluates the program under mocks and returns the resources it declares, sorted by URN. */
export async function declaredResources(
  program: ProgramSource,
  options: ProgramOptions = {},
): Promise<DeclaredResource[]> {
  const project = options.project ?? "project";
  const stack = options.stack ?? "dev";
  const seen: DeclaredResource[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        seen.push({
          urn: urnOf(project, stack, args.type, args.name),
          type: args.type,
          name: args.name,
          inputs: args.inputs,
        });
        return { id: `${args.name}-preview-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    project,
    stack,
    true,
  );
  for (const [k, v] of Object.entries(options.config ?? {})) pulumi.runtime.setConfig(k, v);
  if (typeof program === "string") {
    const file = require.resolve(resolve(program));
    delete require.cache[file];
    const mod = require(file);
    if (typeof mod?.default === "function") await mod.default();
  } else {
    await program();
  }
  // Registration is asynchronous (the provider is serialized first); wait until it settles.
  let count = -1;
  for (let quiet = 0; quiet < 5;) {
    await new Promise((r) => setTimeout(r, 20));
    quiet = seen.length === count ? quiet + 1 : 0;
    count = seen.length;
  }
  // Registration order follows serialization, not declaration: sort for stable plans and reports.
  return seen.sort((a, b) => a.urn.localeCompare(b.urn));
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
