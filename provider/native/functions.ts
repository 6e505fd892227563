/**
 * The provider functions (`secops:index:getX`) as invokes: they run in the plugin, with the
 * provider of the `provider` option (or the default provider), and work during preview. An argument
 * name a function does not know is refused at the call, naming the closest known one.
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

/** The argument names of a data source, from its definition: any other is refused at the call. */
const argsOf = (def: FunctionDefinition) => Object.keys(def.inputs?.properties ?? {});
const INTEGRATION_COUNT_ARGS = argsOf(integrationCountDefinition);
const CASE_THREAT_INDICATORS_ARGS = argsOf(caseThreatIndicatorsDefinition);

/**
 * The invoke options, with the defaults. The package-root functions take `{ apiKey, baseUrl }` where
 * these take options: such a key would be dropped here, so it is refused, saying where the key goes.
 */
function invokeOptions<T extends pulumi.InvokeOptions>(fn: string, opts: T | undefined): T {
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
  checkArgs(args, INTEGRATION_COUNT_ARGS, "secops.getIntegrationCount");
  return pulumi.runtime.invoke(
    "secops:index:getIntegrationCount",
    { ...args },
    invokeOptions("getIntegrationCount", opts),
  );
}

/** {@link getIntegrationCount} as an Output; arguments may be Outputs. */
export function getIntegrationCountOutput(
  args: InputFields<IntegrationFilter> = {},
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<IntegrationCountResult> {
  checkArgs(args, INTEGRATION_COUNT_ARGS, "secops.getIntegrationCountOutput");
  return pulumi.runtime.invokeOutput(
    "secops:index:getIntegrationCount",
    { ...args },
    invokeOptions("getIntegrationCountOutput", opts),
  );
}

/** Every threat indicator of a case. */
export function getCaseThreatIndicators(
  args: GetCaseThreatIndicatorsArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetCaseThreatIndicatorsResult> {
  checkArgs(args, CASE_THREAT_INDICATORS_ARGS, "secops.getCaseThreatIndicators");
  return pulumi.runtime.invoke(
    "secops:index:getCaseThreatIndicators",
    { caseId: args.caseId, sortDirection: args.sortDirection },
    invokeOptions("getCaseThreatIndicators", opts),
  );
}

/** {@link getCaseThreatIndicators} as an Output; arguments may be Outputs. */
export function getCaseThreatIndicatorsOutput(
  args: InputFields<GetCaseThreatIndicatorsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetCaseThreatIndicatorsResult> {
  checkArgs(args, CASE_THREAT_INDICATORS_ARGS, "secops.getCaseThreatIndicatorsOutput");
  return pulumi.runtime.invokeOutput(
    "secops:index:getCaseThreatIndicators",
    { caseId: args.caseId, sortDirection: args.sortDirection },
    invokeOptions("getCaseThreatIndicatorsOutput", opts),
  );
}
