/** What was done or decided about a detection: chat-ops and containment actions, verdict settings, process trees, custom detections. */

/** A chat-operations action of a detection. */
export interface ChatOpsAction {
  id?: string | null;
  teamId?: string | null;
  directoryUserId?: string | null;
  integrationId?: string | null;
  detectionId?: string | null;
  caseId?: string | null;
  message?: string | null;
  ipAddress?: string | null;
  mfaAttempts?: number | null;
  createdAt?: string | null;
  respondedAt?: string | null;
  mfaRespondedAt?: string | null;
  isSuccessful?: boolean | null;
  isTimeout?: boolean | null;
  isRateLimited?: boolean | null;
  isOverride?: boolean | null;
  isMfaSuccess?: boolean | null;
  isMfaFailure?: boolean | null;
  isMfaUnavailable?: boolean | null;
  settingsAtTimeOfAction?: Record<string, unknown> | null;
  verdict?: "MALICIOUS" | (string & {}) | null;
}

/** A containment action of a detection. */
export interface ContainmentAction {
  id?: string | null;
  teamId?: string | null;
  detectionId?: string | null;
  caseId?: string | null;
  endpointId?: string | null;
  directoryUserId?: string | null;
  fileId?: string | null;
  userId?: string | null;
  subAction?: string | null;
  integrationId?: string | null;
  integrationPlatform?: string | null;
  createdAt?: string | null;
  type?: "directory_user" | (string & {}) | null;
  action?: "contain" | (string & {}) | null;
  result?: "success" | (string & {}) | null;
  integrationResponse?: Record<string, unknown> | null;
}

/** The verdict setting of a detection. `defaults` has no type in the spec and is kept as sent. */
export interface VerdictSetting {
  id?: string | null;
  teamId?: string | null;
  description?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  stage?: "TRIAGE" | (string & {}) | null;
  serviceRule?: "CLOUD__INVOCATION" | (string & {}) | null;
  monitorFallbackPreset?: "ESCALATE" | (string & {}) | null;
  category?: string | null;
  severity?: string | null;
  verdict?: string | null;
  chatOpsUnsureVerdict?: string | null;
  chatOpsTimeoutVerdict?: string | null;
  default?: boolean | null;
  managedByService?: boolean | null;
  retired?: boolean | null;
  escalate?: boolean | null;
  chatOps?: boolean | null;
  close?: boolean | null;
  disabled?: boolean | null;
  chatOpsMFA?: boolean | null;
  monitor?: boolean | null;
  vipChatOps?: boolean | null;
  chatOpsTimeoutMonitor?: boolean | null;
  chatOpsTimeoutClose?: boolean | null;
  managedByParent?: boolean | null;
  useSourceSeverity?: boolean | null;
  ignoresRemediation?: boolean | null;
  containUserActions?: string[] | null;
  containEndpointActions?: string[] | null;
  containFileActions?: string[] | null;
  uncontainUserActions?: string[] | null;
  uncontainEndpointActions?: string[] | null;
  uncontainFileActions?: string[] | null;
  defaults?: unknown;
}

/** A process tree: its nodes and which ceilings truncated it. */
export interface ProcessTree {
  nodes?:
    | {
        id?: string | null;
        parentId?: string | null;
        sourceUid?: string | null;
        cpid?: string | null;
        name?: string | null;
        cmdLine?: string | null;
        path?: string | null;
        sha1?: string | null;
        sha256?: string | null;
        pid?: number | null;
        createdTime?: number | null;
      }[]
    | null;
  limitsHit?: {
    nodes?: boolean | null;
    edges?: boolean | null;
    fields?: boolean | null;
  } | null;
}

/** A custom detection. */
export interface CustomDetection {
  id?: string | null;
  name?: string | null;
  category?: string | null;
  query?: string | null;
  createdBy?: string | null;
  updatedBy?: string | null;
  description?: string | null;
  legacyQuery?: string | null;
  sourceTable?: string | null;
  lastRan?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  enabled?: boolean | null;
  alwaysNotify?: boolean | null;
  deduplication?: {
    assetTypes?: string[] | null;
    windowSeconds?: number | null;
  } | null;
}

/** An external custom detection. */
export interface ExternalCustomDetection {
  id?: string | null;
  teamId?: string | null;
  integrationId?: string | null;
  provider?: string | null;
  sourceRuleId?: string | null;
  name?: string | null;
  status?: string | null;
  sourceActionSlug?: string | null;
  description?: string | null;
  severity?: string | null;
  category?: string | null;
  aiSuggestedCategory?: string | null;
  aiReasoning?: string | null;
  query?: string | null;
  queryLanguage?: string | null;
  ruleGroup?: string | null;
  ruleType?: string | null;
  severityOrdinal?: number | null;
  alwaysNotify?: boolean | null;
  providerEnabled?: boolean | null;
  lastSyncedAt?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  classifiedAt?: string | null;
  providerCreatedAt?: string | null;
  providerUpdatedAt?: string | null;
  deletedAt?: string | null;
  providerMetadata?: Record<string, unknown> | null;
  sampleDetection?: Record<string, unknown> | null;
}
