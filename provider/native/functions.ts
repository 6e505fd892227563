/**
 * The provider functions (`secops:index:getX`) as invokes, run in the plugin by the `provider` option's
 * provider (or the default one), also in preview. Unknown argument names are refused at the call.
 */
import * as pulumi from "@pulumi/pulumi";
import { checkArgs, withDefaults } from "./utilities";
import {
  definition as caseThreatIndicatorsDefinition,
  type GetCaseThreatIndicatorsArgs,
  type GetCaseThreatIndicatorsResult,
} from "../functions/get-case-threat-indicators";
import {
  definition as integrationCountDefinition,
  type IntegrationCountResult,
} from "../functions/get-integration-count";
import type { FunctionDefinition } from "../resources/framework/definition";
import type { InputFields } from "../functions/common";
import type { Identity, IntegrationFilter } from "../client/types";

/**
 * The invoke options of `fn` with the defaults, once its args are checked against `def`. `apiKey` and
 * `baseUrl` (taken here by the package-root functions) would be dropped: refused, saying where they go.
 */
function invokeOptions<T extends pulumi.InvokeOptions>(
  fn: string,
  opts: T | undefined,
  args?: unknown,
  def?: FunctionDefinition,
): T {
  if (def) checkArgs(args, Object.keys(def.inputs?.properties ?? {}), `secops.${fn}`);
  for (const key of ["apiKey", "baseUrl"])
    if (opts && typeof opts === "object" && key in opts)
      throw new pulumi.RunError(
        `${key} is not an option of secops.${fn}: a native function uses the ${key} of its provider (pass { provider })`,
      );
  return withDefaults(opts);
}

/** The identity and role behind the provider's API key. */
export function getIdentity(opts?: pulumi.InvokeOptions): Promise<Identity> {
  return pulumi.runtime.invoke("secops:index:getIdentity", {}, invokeOptions("getIdentity", opts));
}

/** {@link getIdentity} as an Output. */
export function getIdentityOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<Identity> {
  return pulumi.runtime.invokeOutput("secops:index:getIdentity", {}, invokeOptions("getIdentity", opts));
}

/** How many integrations match a filter. */
export function getIntegrationCount(
  args: IntegrationFilter = {},
  opts?: pulumi.InvokeOptions,
): Promise<IntegrationCountResult> {
  const options = invokeOptions("getIntegrationCount", opts, args, integrationCountDefinition);
  return pulumi.runtime.invoke("secops:index:getIntegrationCount", { ...args }, options);
}

/** {@link getIntegrationCount} as an Output; arguments may be Outputs. */
export function getIntegrationCountOutput(
  args: InputFields<IntegrationFilter> = {},
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<IntegrationCountResult> {
  const options = invokeOptions("getIntegrationCountOutput", opts, args, integrationCountDefinition);
  return pulumi.runtime.invokeOutput("secops:index:getIntegrationCount", { ...args }, options);
}

/** Every threat indicator of a case. */
export function getCaseThreatIndicators(
  args: GetCaseThreatIndicatorsArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetCaseThreatIndicatorsResult> {
  const options = invokeOptions("getCaseThreatIndicators", opts, args, caseThreatIndicatorsDefinition);
  return pulumi.runtime.invoke("secops:index:getCaseThreatIndicators", { ...args }, options);
}

/** {@link getCaseThreatIndicators} as an Output; arguments may be Outputs. */
export function getCaseThreatIndicatorsOutput(
  args: InputFields<GetCaseThreatIndicatorsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetCaseThreatIndicatorsResult> {
  const options = invokeOptions("getCaseThreatIndicatorsOutput", opts, args, caseThreatIndicatorsDefinition);
  return pulumi.runtime.invokeOutput("secops:index:getCaseThreatIndicators", { ...args }, options);
}
