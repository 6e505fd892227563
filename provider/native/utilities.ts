/**
 * What a generated SDK's `utilities.ts` gives its resources and invokes: the package version (and the
 * plugin's download URL when the package declares one) as default options, so the engine loads the
 * plugin of the SDK's own version; and the required-input check of generated constructors.
 */
import * as pulumi from "@pulumi/pulumi";
import { VERSION } from "../version";

/** package.json's `pulumi` field (the language host reads it to report the plugin a program needs). */
interface PulumiField {
  resource?: boolean;
  name?: string;
  version?: string;
  server?: string;
}

/** The SDK's version: the plugin version its resources and invokes ask the engine for. */
export function getVersion(): string {
  return VERSION;
}

/** Default options of every resource and invoke: `version`, and `pluginDownloadURL` when declared. */
export function resourceOptsDefaults(field?: PulumiField): { version: string; pluginDownloadURL?: string } {
  const server = (field ?? (require("../../package.json") as { pulumi?: PulumiField }).pulumi)?.server;
  return server ? { version: getVersion(), pluginDownloadURL: server } : { version: getVersion() };
}

/** `opts` over the defaults, as generated SDKs merge them (`pulumi.mergeOptions`). */
export function withDefaults<T extends pulumi.ResourceOptions | pulumi.InvokeOptions>(
  opts: T | undefined,
): T {
  return pulumi.mergeOptions(resourceOptsDefaults(), (opts ?? {}) as pulumi.ResourceOptions) as T;
}

/** A generated constructor's check: each required input is given (unless the resource is read by id or URN). */
export function requireInputs(
  args: object | undefined,
  names: readonly string[],
  opts: pulumi.CustomResourceOptions,
): void {
  if (opts.id || opts.urn) return;
  for (const name of names)
    if (!args || (args as Record<string, unknown>)[name] === undefined)
      throw new Error(`Missing required property '${name}'`);
}
