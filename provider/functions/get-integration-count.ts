/** getIntegrationCount: how many integrations match a filter. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import type { IntegrationFilter } from "../client/types";
import { functionClient, sdk, type FunctionOptions, type InputFields } from "./common";

/** The result of {@link getIntegrationCount}. */
export interface IntegrationCountResult {
  totalCount: number;
}

/**
 * Counts integrations matching `args` (POST /v1/integration/count). Invalid arguments fail before
 * any request with SECOPS_INVALID_INPUT naming the argument, e.g. `filter.healthStatus[0]`.
 */
export async function getIntegrationCount(
  args: IntegrationFilter = {},
  opts?: FunctionOptions,
): Promise<IntegrationCountResult> {
  return integrationCount(functionClient(opts), args);
}

/** The body shared by the data source and the native invoke `secops:index:getIntegrationCount`. */
export async function integrationCount(
  client: SecOpsClient,
  args: IntegrationFilter = {},
): Promise<IntegrationCountResult> {
  return { totalCount: await client.countIntegrations(args) };
}

/** {@link getIntegrationCount} as an Output; arguments may be Outputs (unknown during preview). */
export function getIntegrationCountOutput(
  args?: pulumi.Input<InputFields<IntegrationFilter>>,
  opts?: pulumi.Input<InputFields<FunctionOptions>>,
): pulumi.Output<IntegrationCountResult> {
  return sdk()
    .all([args ?? {}, opts ?? {}])
    .apply(([a, o]) => getIntegrationCount(a as IntegrationFilter, o as FunctionOptions));
}
