/**
 * The provider functions (`secops:index:getX`) as invokes: they run in the plugin, with the
 * provider of the `provider` option (or the default provider), and work during preview.
 */
import * as pulumi from "@pulumi/pulumi";
import { withDefaults } from "./utilities";
import type {
  GetCaseThreatIndicatorsArgs,
  GetCaseThreatIndicatorsResult,
} from "../functions/get-case-threat-indicators";
import type { IntegrationCountResult } from "../functions/get-integration-count";
import type { InputFields } from "../functions/common";
import type { Identity, IntegrationFilter } from "../client/types";

/** The identity and role behind the provider's API key. */
export function getIdentity(opts?: pulumi.InvokeOptions): Promise<Identity> {
  return pulumi.runtime.invoke("secops:index:getIdentity", {}, withDefaults(opts));
}

/** {@link getIdentity} as an Output. */
export function getIdentityOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<Identity> {
  return pulumi.runtime.invokeOutput("secops:index:getIdentity", {}, withDefaults(opts));
}

/** How many integrations match a filter. */
export function getIntegrationCount(
  args: IntegrationFilter = {},
  opts?: pulumi.InvokeOptions,
): Promise<IntegrationCountResult> {
  return pulumi.runtime.invoke("secops:index:getIntegrationCount", { ...args }, withDefaults(opts));
}

/** {@link getIntegrationCount} as an Output; arguments may be Outputs. */
export function getIntegrationCountOutput(
  args: InputFields<IntegrationFilter> = {},
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<IntegrationCountResult> {
  return pulumi.runtime.invokeOutput("secops:index:getIntegrationCount", { ...args }, withDefaults(opts));
}

/** Every threat indicator of a case. */
export function getCaseThreatIndicators(
  args: GetCaseThreatIndicatorsArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetCaseThreatIndicatorsResult> {
  return pulumi.runtime.invoke(
    "secops:index:getCaseThreatIndicators",
    { caseId: args.caseId, sortDirection: args.sortDirection },
    withDefaults(opts),
  );
}

/** {@link getCaseThreatIndicators} as an Output; arguments may be Outputs. */
export function getCaseThreatIndicatorsOutput(
  args: InputFields<GetCaseThreatIndicatorsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetCaseThreatIndicatorsResult> {
  return pulumi.runtime.invokeOutput(
    "secops:index:getCaseThreatIndicators",
    { caseId: args.caseId, sortDirection: args.sortDirection },
    withDefaults(opts),
  );
}
