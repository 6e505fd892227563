/**
 * The public types: the API's objects (generated into api-types.ts from the schemas), the known values
 * of the enumerations (plain constants: importing them loads no zod), and helper and option types.
 */
/** An open enumeration: the values the spec lists, or any other string (kept, never rejected). */
export type OpenEnum<T extends string> = T | (string & {});

/**
 * A response object together with keys the API sent beyond the documented ones, for example
 * `(me as WithUnknownKeys<Identity>).newField`. Documented fields keep their exact types.
 */
export type WithUnknownKeys<T> = T & { readonly [key: string]: unknown };

/** Roles the spec lists. The set is open: other values are kept. */
export const ROLES = ["ADMIN", "ANALYST", "VIEWER"] as const;
/** A role (open: values beyond {@link ROLES} are kept). */
export type Role = OpenEnum<(typeof ROLES)[number]>;

/** Search fields of an HVA rule the spec lists (`name`); others exist but are not shown. */
export const HVA_SEARCH_FIELDS = ["name"] as const;
/** An HVA rule's search field (open). */
export type HvaSearchField = OpenEnum<(typeof HVA_SEARCH_FIELDS)[number]>;

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

/** Known values of a directory user's `emailDirection`. */
export const EMAIL_DIRECTIONS = ["sender", "receiver"] as const;

/** Known values of the detections' open enumerations (documentation only; unknown values are kept). */
export const DETECTION_ENUMS = {
  status: ["NEW"],
  verdict: ["MALICIOUS"],
  category: ["OTHER__DIAGNOSTIC"],
  severity: ["INFORMATIONAL"],
  fileRisk: ["BENIGN"],
  helpfulnessRating: ["happy"],
  containments: ["USER"],
  operatingSystemCategory: ["Windows"],
  artifactType: ["MAILBOX_RULE"],
  artifactOperation: ["CREATE"],
  containmentType: ["directory_user"],
  containmentAction: ["contain"],
  containmentResult: ["success"],
  verdictStage: ["TRIAGE"],
  serviceRule: ["CLOUD__INVOCATION"],
  monitorFallbackPreset: ["ESCALATE"],
  assetTypes: ["USER"],
} as const;

export type {
  Artifact,
  Attachment,
  ChatOpsAction,
  ClusterMember,
  ContainmentAction,
  CustomDetection,
  Detection,
  DirectoryUser,
  DirectoryUserUpdate,
  Domain,
  Endpoint,
  EndpointGroupAssignment,
  ErrorBody,
  ExternalCustomDetection,
  File,
  GroupAssignment,
  HvaRule,
  HvaRuleCreate,
  Identity,
  IntegrationCount,
  IntegrationFilter,
  Ip,
  License,
  Location,
  Process,
  ProcessTree,
  ThreatIndicatorPage,
  TimelineComment,
  UserAgent,
  UserGroupAssignment,
  VerdictSetting,
} from "./api-types";

/** Options of {@link SecOpsClient.exportCasesCsv}. */
export interface CsvExportOptions {
  /** Overall deadline of the download in milliseconds (default: none; the idle timeout still applies). */
  deadlineMs?: number;
}

/** Options of {@link SecOpsClient.exportCasesCsvToFile}. */
export interface CsvExportToFileOptions extends CsvExportOptions {
  /** Called with the bytes written so far after each chunk. */
  onProgress?: (bytes: number) => void;
}
