/**
 * A generated SDK's `utilities.ts`, plus the refusal of unknown argument names (generated SDKs drop
 * them, and a dropped `apiKey` or `enabled` would fall back to a default).
 */
import * as pulumi from "@pulumi/pulumi";
import { didYouMean } from "../client/options";
import { VERSION } from "../version";

/**
 * Default options of resources and invokes: the SDK's `version`, and `pluginDownloadURL` when package.json's
 * `pulumi` field (the language host reads it to report the plugin a program needs) declares its `server`.
 */
export function resourceOptsDefaults(field?: { server?: string }): {
  version: string;
  pluginDownloadURL?: string;
} {
  const server = (field ?? (require("../../package.json") as { pulumi?: { server?: string } }).pulumi)
    ?.server;
  return server ? { version: VERSION, pluginDownloadURL: server } : { version: VERSION };
}

/** `opts` over the defaults, as generated SDKs merge them (`pulumi.mergeOptions`). */
export function withDefaults<T extends pulumi.ResourceOptions | pulumi.InvokeOptions>(
  opts: T | undefined,
): T {
  return pulumi.mergeOptions(resourceOptsDefaults(), (opts ?? {}) as pulumi.ResourceOptions) as T;
}

/** Every argument name of `T`, checked at compile time so the list cannot drift from the Args type. */
export function argNames<T>(names: { [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(names);
}

/**
 * Refuses an unknown argument name, naming the closest known one. `type` is the name a program uses;
 * `name`, a resource's or provider's name, starts the message, so that a program of 40 rules says
 * which one (`secops.Provider "client1": apikey is not an argument of secops.Provider; did you mean
 * apiKey?`). Invokes have no name.
 */
export function checkArgs(args: unknown, known: readonly string[], type: string, name?: string): void {
  if (args === undefined || args === null) return;
  const who = name === undefined ? "" : `${type} ${JSON.stringify(name)}: `;
  if (typeof args !== "object" || Array.isArray(args))
    throw new pulumi.RunError(`${who}the arguments of ${type} must be an object`);
  for (const key of Object.keys(args)) {
    if (known.includes(key)) continue;
    throw new pulumi.RunError(`${who}${key} is not an argument of ${type}${didYouMean(key, known)}`);
  }
}

/** What a resource class tells the constructor checks about itself. */
export interface ResourceArgsSpec {
  /** The name a program uses, e.g. `secops.Provider`. */
  type: string;
  /** Every argument name. */
  known: readonly string[];
  /** The arguments that must be given. */
  required: readonly string[];
}

/**
 * A generated constructor's checks: argument names first (a misspelt required input is named as the
 * typo it is), then the required inputs, unless the resource is read by id or URN.
 */
export function requireInputs(
  spec: ResourceArgsSpec,
  name: string,
  args: object | undefined,
  opts: pulumi.CustomResourceOptions,
): void {
  checkArgs(args, spec.known, spec.type, name);
  if (opts.id || opts.urn) return;
  for (const input of spec.required)
    if (!args || (args as Record<string, unknown>)[input] === undefined)
      throw new pulumi.RunError(
        `Missing required property '${input}' of ${spec.type} ${JSON.stringify(name)}`,
      );
}
