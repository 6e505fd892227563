/** getIntegrationCount: how many integrations match a filter. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import type { IntegrationFilter } from "../client/types";
import type { FunctionDefinition } from "../resources/framework/definition";
import { functionClient, outputCall, sdk, type FunctionOptions, type InputFields } from "./common";

/** The result of {@link getIntegrationCount}. */
export interface IntegrationCountResult {
  totalCount: number;
}

/** getIntegrationCount, declared once (the schema and the native invoke are made of it). */
export const definition: FunctionDefinition = {
  name: "getIntegrationCount",
  token: "secops:index:getIntegrationCount",
  description: "How many integrations match a filter (POST /v1/integration/count).",
  inputs: {
    description: "The filter; every field is optional.",
    properties: {
      size: { type: "integer", description: "Page size (ignored by a count; sent as given)." },
      page: { type: "integer", description: "Page number (ignored by a count; sent as given)." },
      filter: { type: "string", description: "Filter expression." },
      search: { type: "string", description: "Free-text search." },
      orderBy: { type: "string", description: "Sort key." },
      sortDirection: { type: "string", description: "Sort direction: asc or desc; accompanies orderBy." },
      includeDisabled: { type: "boolean", description: "Include disabled integrations." },
      healthStatus: { type: "array", items: "string", description: "Health statuses to match (any of)." },
      ids: { type: "array", items: "string", description: "Restrict to these integration ids." },
      integrationTypes: {
        type: "array",
        items: "string",
        description: "Integration types to match (any of).",
      },
      serviceProviderScope: {
        type: "string",
        description: "Service-provider callers only: CLIENTS (default) or SERVICE_PROVIDER.",
      },
    },
  },
  outputs: {
    description: "The count.",
    properties: {
      totalCount: { type: "integer", required: true, description: "Integrations matching the filter." },
    },
  },
  call: (client, args) => integrationCount(client, args as IntegrationFilter),
};

/** Counts integrations matching `args`; invalid ones fail before any request (SECOPS_INVALID_INPUT). */
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
    .apply(([a, o]) => outputCall(() => getIntegrationCount(a as IntegrationFilter, o as FunctionOptions)));
}
