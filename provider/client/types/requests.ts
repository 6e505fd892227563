/** Request bodies and filters the client accepts (validated before any request). */
import type { HealthStatus, IntegrationType, ServiceProviderScope, SortDirection } from "./enums";

/** The three flags PATCH /v1/directory/{id} accepts. */
export interface DirectoryUserUpdate {
  /** Needs the chat operations welcome message. */
  needsChatOpsWelcome?: boolean;
  /** In the chat operations onboarding group. */
  chatOpsOnboardingUser?: boolean;
  /** Whether credentials have been exposed. */
  credentialsExposed?: boolean;
}

/** The body of an HVA rule creation (PUT /endpoint/hva/automation). */
export interface HvaRuleCreate {
  /** The searched field; `name` is the value the spec shows. */
  field: string;
  /** The search text. */
  search: string;
}

/** The filter of POST /v1/integration/count. Every field is optional; unknown keys are rejected. */
export interface IntegrationFilter {
  /** Page size (ignored by a count; sent as given). */
  size?: number;
  /** Page number (ignored by a count; sent as given). */
  page?: number;
  /** Filter expression. */
  filter?: string;
  /** Free-text search. */
  search?: string;
  /** Sort key. */
  orderBy?: string;
  /** Sort direction; accompanies orderBy. */
  sortDirection?: SortDirection;
  /** Include disabled integrations. */
  includeDisabled?: boolean;
  /** Health statuses to match (any of). */
  healthStatus?: HealthStatus[];
  /** Restrict to these integration ids. */
  ids?: string[];
  /** Integration types to match (any of). */
  integrationTypes?: IntegrationType[];
  /** Service-provider callers only: CLIENTS (default) or SERVICE_PROVIDER. */
  serviceProviderScope?: ServiceProviderScope;
}

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
