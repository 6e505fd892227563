/** getCaseThreatIndicators: every threat indicator (detection) of a case. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import type { Detection, SortDirection } from "../client/types";
import type { FunctionDefinition } from "../resources/framework/definition";
import { functionClient, outputCall, sdk, type FunctionOptions, type InputFields } from "./common";

/** Arguments of {@link getCaseThreatIndicators}. */
export interface GetCaseThreatIndicatorsArgs {
  /** The case id. */
  caseId: string;
  /** Order by creation time. Default "desc" (newest first). */
  sortDirection?: SortDirection;
}

/** The result of {@link getCaseThreatIndicators}. */
export interface GetCaseThreatIndicatorsResult {
  caseId: string;
  sortDirection: SortDirection;
  totalCount: number;
  indicators: Detection[];
}

/** getCaseThreatIndicators, declared once (the schema and the native invoke are made of it). */
export const definition: FunctionDefinition = {
  name: "getCaseThreatIndicators",
  token: "secops:index:getCaseThreatIndicators",
  description:
    "Every threat indicator (detection) of a case, all pages; fails rather than return a silent subset.",
  inputs: {
    description: "The case.",
    properties: {
      caseId: { type: "string", required: true, description: "The case id." },
      sortDirection: { type: "string", description: "Order by creation time: asc or desc (default desc)." },
    },
  },
  outputs: {
    description: "The indicators.",
    properties: {
      caseId: { type: "string", required: true, description: "The case id." },
      sortDirection: { type: "string", required: true, description: "The order used." },
      totalCount: {
        type: "integer",
        required: true,
        description: "The number of indicators the API reports.",
      },
      indicators: {
        type: "array",
        items: "any",
        required: true,
        description: "The indicators (detections) as the API returns them.",
      },
    },
  },
  call: (client, args) => caseThreatIndicators(client, args as unknown as GetCaseThreatIndicatorsArgs),
};

/** All indicators of a case, every page; SECOPS_INCOMPLETE rather than a silent subset. */
export async function getCaseThreatIndicators(
  args: GetCaseThreatIndicatorsArgs,
  opts?: FunctionOptions,
): Promise<GetCaseThreatIndicatorsResult> {
  return caseThreatIndicators(functionClient(opts), args);
}

/** The body shared by the data source and the native invoke `secops:index:getCaseThreatIndicators`. */
export async function caseThreatIndicators(
  client: SecOpsClient,
  args: GetCaseThreatIndicatorsArgs,
): Promise<GetCaseThreatIndicatorsResult> {
  const sortDirection = args?.sortDirection ?? "desc";
  const { data, totalCount } = await client.listCaseThreatIndicators(args?.caseId, { sortDirection });
  return { caseId: args.caseId, sortDirection, totalCount, indicators: data };
}

/** {@link getCaseThreatIndicators} as an Output; arguments may be Outputs. */
export function getCaseThreatIndicatorsOutput(
  args: pulumi.Input<InputFields<GetCaseThreatIndicatorsArgs>>,
  opts?: pulumi.Input<InputFields<FunctionOptions>>,
): pulumi.Output<GetCaseThreatIndicatorsResult> {
  return sdk()
    .all([args, opts ?? {}])
    .apply(([a, o]) =>
      outputCall(() => getCaseThreatIndicators(a as GetCaseThreatIndicatorsArgs, o as FunctionOptions)),
    );
}
