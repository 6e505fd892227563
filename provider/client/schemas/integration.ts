/** Integration counting: the filter a caller sends and the count that comes back. */
import { z } from "zod";
import { HEALTH_STATUSES, INTEGRATION_TYPES, SERVICE_PROVIDER_SCOPES, SORT_DIRECTIONS } from "../types";

/** Unknown keys are rejected so that a typo names its field instead of silently counting everything. */
export const integrationFilterSchema = z
  .strictObject({
    size: z.number().int().positive().optional().describe("Page size (ignored by a count; sent as given)."),
    page: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("Page number (ignored by a count; sent as given)."),
    filter: z.string().optional().describe("Filter expression."),
    search: z.string().optional().describe("Free-text search."),
    orderBy: z.string().optional().describe("Sort key."),
    sortDirection: z.enum(SORT_DIRECTIONS).optional().describe("Sort direction; accompanies orderBy."),
    includeDisabled: z.boolean().optional().describe("Include disabled integrations."),
    healthStatus: z.array(z.enum(HEALTH_STATUSES)).optional().describe("Health statuses to match (any of)."),
    ids: z.array(z.string().min(1)).optional().describe("Restrict to these integration ids."),
    integrationTypes: z
      .array(z.enum(INTEGRATION_TYPES))
      .optional()
      .describe("Integration types to match (any of)."),
    serviceProviderScope: z
      .enum(SERVICE_PROVIDER_SCOPES)
      .optional()
      .describe("Service-provider callers only: CLIENTS (default) or SERVICE_PROVIDER."),
  })
  .describe("The filter of POST /v1/integration/count. Every field is optional; unknown keys are rejected.");

export const integrationCountSchema = z
  .looseObject({ totalCount: z.number().int().nonnegative() })
  .describe("The answer of POST /v1/integration/count.");
