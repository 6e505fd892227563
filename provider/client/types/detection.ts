/** Detections (the threat indicators of a case) and their pages. */
import type {
  ChatOpsAction,
  ContainmentAction,
  CustomDetection,
  ExternalCustomDetection,
  ProcessTree,
  VerdictSetting,
} from "./detection-actions";
import type { Artifact, Domain, Endpoint, File, Ip, Location, Process, UserAgent } from "./detection-assets";
import type { DirectoryUser } from "./directory";

/** A detection: one threat indicator of a case. Every field but `id` may be absent or null. */
export interface Detection {
  id: string;
  teamId?: string | null;
  sid?: string | null;
  title?: string | null;
  whatHappened?: string | null;
  nextSteps?: string | null;
  notes?: string | null;
  teamName?: string | null;
  sourceName?: string | null;
  sourceDescription?: string | null;
  sourceUrl?: string | null;
  actionSlug?: string | null;
  caseId?: string | null;
  caseSid?: string | null;
  integrationId?: string | null;
  duplicateDetectionId?: string | null;
  exclusionId?: string | null;
  exclusionSid?: string | null;
  customDetectionId?: string | null;
  externalCustomDetectionId?: string | null;
  chatOpsTestEmail?: string | null;
  chatOpsTestPhoneNumber?: string | null;
  groups?: string | null;
  integrationPlatform?: string | null;
  status?: "NEW" | (string & {}) | null;
  verdict?: "MALICIOUS" | (string & {}) | null;
  category?: "OTHER__DIAGNOSTIC" | (string & {}) | null;
  severity?: "INFORMATIONAL" | (string & {}) | null;
  severityOrdinal?: number | null;
  fileRisk?: "BENIGN" | (string & {}) | null;
  helpfulnessRating?: "happy" | (string & {}) | null;
  containments?: string[] | null;
  createdAt?: string | null;
  sourceIngestedAt?: string | null;
  sourceDetectedAt?: string | null;
  verdictedAt?: string | null;
  updatedAt?: string | null;
  closedAt?: string | null;
  lastRefreshAt?: string | null;
  escalatedAt?: string | null;
  autoRemediateStartedAt?: string | null;
  remediatedAt?: string | null;
  testMode?: boolean | null;
  contained?: boolean | null;
  reingested?: boolean | null;
  prevented?: boolean | null;
  managedByThirdParty?: boolean | null;
  excludeFromMeans?: boolean | null;
  firstRun?: boolean | null;
  containOnChatOpsFailure?: boolean | null;
  wasEscalated?: boolean | null;
  alwaysNotifyApplied?: boolean | null;
  chatOpsTest?: boolean | null;
  containsVIP?: boolean | null;
  containsHVA?: boolean | null;
  excluded?: boolean | null;
  autoClosed?: boolean | null;
  autoContained?: boolean | null;
  raw?: Record<string, unknown> | null;
  refreshRaw?: Record<string, unknown> | null;
  ocsfDetectionFinding?: Record<string, unknown> | null;
  logs?:
    | {
        log?: string | null;
        timestamp?: string | null;
        debug?: boolean | null;
      }[]
    | null;
  groupNames?: string[] | null;
  endpoints?: Endpoint[] | null;
  files?: File[] | null;
  processes?: Process[] | null;
  locations?: Location[] | null;
  directory?: DirectoryUser[] | null;
  ips?: Ip[] | null;
  domains?: Domain[] | null;
  artifacts?: Artifact[] | null;
  chatOpsActions?: ChatOpsAction[] | null;
  containmentActions?: ContainmentAction[] | null;
  userAgents?: UserAgent[] | null;
  verdictSetting?: VerdictSetting | null;
  processTree?: ProcessTree | null;
  customDetection?: CustomDetection | null;
  externalCustomDetection?: ExternalCustomDetection | null;
}

/** One page of GET /v1/cases/{id}/threat-indicators. */
export interface ThreatIndicatorPage {
  data: Detection[];
  totalCount: number;
}
