/**
 * Seeded detections that fill every nested structure of the spec's Detection (endpoints, files with
 * metadata, processes, locations, directory users, IPs with metadata, domains, artifacts, chat-ops and
 * containment actions, user agents, verdict setting, process tree, custom and external custom
 * detections). Generated on demand from (seed, case, index) so a big case costs no memory until read.
 */
import { rng, at } from "./seed";
import * as actions from "./detection-actions";
import * as assets from "./detection-assets";

/** What the parts of a detection are built from. */
export interface Parts {
  id: string;
  teamId: string;
  index: number;
  t: number;
  sevIdx: number;
  caseId: string;
  caseSid: string;
  directoryUser: unknown;
}

const STATUSES = ["NEW", "IN_PROGRESS", "CLOSED"];
/** Severities by ordinal. */
const SEVERITIES = ["INFORMATIONAL", "LOW", "MEDIUM", "HIGH", "CRITICAL"];

/** The detection number `index` of case `caseId`. */
export function detection(
  seed: number,
  caseId: string,
  caseSid: string,
  teamId: string,
  index: number,
  directoryUser: unknown,
) {
  const r = rng(seed * 1_000_003 + hash(caseId) + index * 7919);
  const id = `det-${caseId}-${String(index + 1).padStart(5, "0")}`;
  const t = index * 7 + Math.floor(r() * 5);
  const sevIdx = Math.floor(r() * SEVERITIES.length);
  const c: Parts = { id, teamId, index, t, sevIdx, caseId, caseSid, directoryUser };
  return {
    ...idFields(c),
    ...integrationPlatformFields(c),
    ...ocsfDetectionFindingFields(c),
    endpoints: [assets.endpoint(c)],
    files: [assets.file(c)],
    processes: [assets.spawnedProcess(c)],
    locations: [assets.location(c)],
    directory: [directoryUser],
    ips: [assets.ip(c)],
    domains: [assets.domain(c)],
    artifacts: [actions.artifact(c)],
    chatOpsActions: [actions.chatOpsAction(c)],
    containmentActions: [actions.containmentAction(c)],
    userAgents: [actions.userAgent(c)],
    verdictSetting: actions.verdictSetting(c),
    processTree: actions.processTree(c),
    customDetection: actions.customDetection(c),
    externalCustomDetection: actions.externalCustomDetection(c),
  };
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h >>> 0;
}

function idFields({ id, teamId, index, sevIdx, caseId, caseSid }: Parts) {
  return {
    id,
    teamId,
    sid: `D-${index + 1}`,
    title: `Suspicious activity ${index + 1}`,
    whatHappened: "A process spawned an encoded PowerShell command.",
    nextSteps: "Review the process tree and contain the endpoint if needed.",
    notes: null,
    teamName: "Acme Security",
    sourceName: "EDR",
    sourceDescription: "Endpoint detection",
    sourceUrl: `https://edr.example/alerts/${index}`,
    actionSlug: "edr-alert",
    caseId,
    caseSid,
    integrationId: `int-${teamId}-002`,
    duplicateDetectionId: null,
    exclusionId: null,
    exclusionSid: null,
    customDetectionId: "cd-1",
    externalCustomDetectionId: "ecd-1",
    chatOpsTestEmail: null,
    chatOpsTestPhoneNumber: null,
    groups: "all-staff",
    status: STATUSES[index % STATUSES.length],
    verdict: index % 4 === 0 ? "MALICIOUS" : "SUSPICIOUS",
    category: index % 5 === 0 ? "OTHER__DIAGNOSTIC" : "MALWARE",
    severity: SEVERITIES[sevIdx],
    severityOrdinal: sevIdx,
    fileRisk: index % 2 ? "BENIGN" : "MALICIOUS",
    helpfulnessRating: index % 3 === 0 ? "happy" : null,
  };
}

function integrationPlatformFields({ index, t }: Parts) {
  return {
    integrationPlatform: "crowdstrike-falcon",
    containments: index % 2 ? ["USER"] : ["USER", "ENDPOINT"],
    createdAt: at(t),
    sourceIngestedAt: at(t),
    sourceDetectedAt: at(t - 1),
    verdictedAt: at(t + 1),
    updatedAt: at(t + 2),
    closedAt: null,
    lastRefreshAt: at(t + 3),
    escalatedAt: null,
    autoRemediateStartedAt: null,
    remediatedAt: null,
    testMode: false,
    contained: index % 6 === 0,
    reingested: false,
    prevented: index % 8 === 0,
    managedByThirdParty: false,
    excludeFromMeans: false,
    firstRun: true,
    containOnChatOpsFailure: false,
    wasEscalated: false,
    alwaysNotifyApplied: false,
    chatOpsTest: false,
    containsVIP: index % 10 === 0,
    containsHVA: index % 9 === 0,
    excluded: false,
    autoClosed: false,
    autoContained: false,
    raw: { vendor: "edr", alertId: index, nested: { tags: ["t1", "t2"] } },
    refreshRaw: null,
  };
}

function ocsfDetectionFindingFields({ t, sevIdx }: Parts) {
  return {
    ocsfDetectionFinding: { class_uid: 2004, severity_id: sevIdx },
    logs: [{ log: "detection created", timestamp: at(t), debug: false }],
    groupNames: ["All staff"],
  };
}
