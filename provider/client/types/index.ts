/**
 * The public types of the API's objects: plain TypeScript, so programs compile without zod's
 * declarations (any tsconfig, no `skipLibCheck`). The zod schemas in `schemas/` validate responses
 * at run time; a compile-time test (tests/unit/public-types.test.ts) proves each schema's output
 * has exactly these fields with these types, so the two cannot drift apart.
 *
 * Responses keep keys the API adds beyond these (the schemas never strip them); they are not in
 * these types, so a misspelt known name does not compile. Reach them with {@link WithUnknownKeys}.
 */
export {
  type OpenEnum,
  type WithUnknownKeys,
  ROLES,
  type Role,
  HVA_SEARCH_FIELDS,
  type HvaSearchField,
  HEALTH_STATUSES,
  INTEGRATION_TYPES,
  SORT_DIRECTIONS,
  SERVICE_PROVIDER_SCOPES,
  type HealthStatus,
  type IntegrationType,
  type SortDirection,
  type ServiceProviderScope,
  EMAIL_DIRECTIONS,
  DETECTION_ENUMS,
} from "./enums";
export type {
  CsvExportOptions,
  CsvExportToFileOptions,
  DirectoryUserUpdate,
  HvaRuleCreate,
  IntegrationFilter,
} from "./requests";
export type { Identity, HvaRule, Attachment, TimelineComment, ErrorBody, IntegrationCount } from "./objects";
export type {
  DirectoryUser,
  GroupAssignment,
  UserGroupAssignment,
  EndpointGroupAssignment,
  License,
  ClusterMember,
} from "./directory";
export type { Detection, ThreatIndicatorPage } from "./detection";
export type { Endpoint, File, Process, Location, Ip, Domain, Artifact, UserAgent } from "./detection-assets";
export type {
  ChatOpsAction,
  ContainmentAction,
  VerdictSetting,
  ProcessTree,
  CustomDetection,
  ExternalCustomDetection,
} from "./detection-actions";
