/** Integration counting: the filter a caller sends and the count that comes back. */
import { z } from "zod";

/** The complete list of health statuses the spec gives. Requests with other values are rejected. */
export const HEALTH_STATUSES = ["healthy", "unhealthy", "unstable", "unknown"] as const;
/** The complete list of integration types the spec gives. Requests with other values are rejected. */
export const INTEGRATION_TYPES = [
  "collaboration",
  "endpoint",
  "identity",
  "network_vpn",
  "cloud",
  "siem",
  "saas",
  "attack_simulation",
  "deception",
  "enrichment",
  "email",
  "firewall",
  "dns",
  "custom",
  "ai",
] as const;
/** Sort directions. */
export const SORT_DIRECTIONS = ["asc", "desc"] as const;
/** Service-provider scopes: CLIENTS (default for service providers) or SERVICE_PROVIDER (own team). */
export const SERVICE_PROVIDER_SCOPES = ["CLIENTS", "SERVICE_PROVIDER"] as const;

/** One health status. */
export type HealthStatus = (typeof HEALTH_STATUSES)[number];
/** One integration type. */
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];
/** A sort direction. */
export type SortDirection = (typeof SORT_DIRECTIONS)[number];
/** A service-provider scope. */
export type ServiceProviderScope = (typeof SERVICE_PROVIDER_SCOPES)[number];

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

/** The filter of an integration count. Every field is optional. */
export type IntegrationFilter = z.input<typeof integrationFilterSchema>;

/** The answer of POST /v1/integration/count. */
export const integrationCountSchema = z.looseObject({ totalCount: z.number().int().nonnegative() });
