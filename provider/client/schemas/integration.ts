/** Integration counting: the filter a caller sends and the count that comes back. */
import { z } from "zod";
import { HEALTH_STATUSES, INTEGRATION_TYPES, SERVICE_PROVIDER_SCOPES, SORT_DIRECTIONS } from "../types";

/**
 * The filter of POST /v1/integration/count. Unknown keys are rejected so that a typo names its field
 * instead of silently counting everything.
 */
export const integrationFilterSchema = z.strictObject({
  /** Page size (ignored by a count; sent as given). */
  size: z.number().int().positive().optional(),
  /** Page number (ignored by a count; sent as given). */
  page: z.number().int().nonnegative().optional(),
  /** Filter expression. */
  filter: z.string().optional(),
  /** Free-text search. */
  search: z.string().optional(),
  /** Sort key. */
  orderBy: z.string().optional(),
  /** Sort direction; accompanies orderBy. */
  sortDirection: z.enum(SORT_DIRECTIONS).optional(),
  /** Include disabled integrations. */
  includeDisabled: z.boolean().optional(),
  /** Health statuses to match (any of). */
  healthStatus: z.array(z.enum(HEALTH_STATUSES)).optional(),
  /** Restrict to these integration ids. */
  ids: z.array(z.string().min(1)).optional(),
  /** Integration types to match (any of). */
  integrationTypes: z.array(z.enum(INTEGRATION_TYPES)).optional(),
  /** Service-provider callers only: CLIENTS (default) or SERVICE_PROVIDER. */
  serviceProviderScope: z.enum(SERVICE_PROVIDER_SCOPES).optional(),
});

/** The answer of POST /v1/integration/count. */
export const integrationCountSchema = z.looseObject({ totalCount: z.number().int().nonnegative() });
