/**
 * What a seeded detection did and why (artifact, chat-ops and containment actions, user agent, verdict
 * setting, process tree, custom detections): each builder returns one of the Detection's properties.
 */
import { at } from "./seed";
import type { Parts } from "./detections";

export function artifact({ index }: Parts) {
  return {
    type: "MAILBOX_RULE",
    data: {
      externalId: `rule-${index}`,
      name: "Forward everything",
      tenantExternalId: "tenant-1",
      mailbox: { address: "ada@acme.example", externalId: "mbx-1" },
      operation: "CREATE",
      actions: [{ type: "forward", value: "attacker@evil.example" }],
      conditions: [{ field: "subject", value: "invoice", operator: "contains" }],
      properties: [{ name: "enabled", value: "true" }],
    },
  };
}

export function chatOpsAction({ id, teamId, index, t, caseId, directoryUser }: Parts) {
  return {
    id: `coa-${index}`,
    teamId,
    directoryUserId: (directoryUser as { id: string }).id,
    integrationId: `int-${teamId}-005`,
    detectionId: id,
    caseId,
    message: "Was this you?",
    ipAddress: "203.0.113.10",
    mfaAttempts: 1,
    createdAt: at(t),
    respondedAt: at(t + 1),
    mfaRespondedAt: null,
    isSuccessful: true,
    isTimeout: false,
    isRateLimited: false,
    isOverride: false,
    isMfaSuccess: true,
    isMfaFailure: false,
    isMfaUnavailable: false,
    settingsAtTimeOfAction: { chatOps: true },
    verdict: "BENIGN",
  };
}

export function containmentAction({ id, teamId, index, t, caseId }: Parts) {
  return {
    id: `ca-${index}`,
    teamId,
    detectionId: id,
    caseId,
    endpointId: `ep-${index}`,
    directoryUserId: null,
    fileId: null,
    userId: "svc-admin",
    subAction: null,
    integrationId: `int-${teamId}-002`,
    integrationPlatform: "crowdstrike-falcon",
    createdAt: at(t),
    type: "directory_user",
    action: "contain",
    result: "success",
    integrationResponse: { ok: true },
  };
}

export function userAgent({ teamId, index, t }: Parts) {
  return {
    id: `ua-${index}`,
    userAgent: "Mozilla/5.0",
    teamId,
    displayName: "Firefox on Windows",
    userAgentAlt: null,
    browserName: "Firefox",
    browserVersion: "133.0",
    browserMajorVersion: "133",
    cpuArchitecture: "amd64",
    deviceModel: null,
    deviceVendor: null,
    engineName: "Gecko",
    engineVersion: "133.0",
    osName: "Windows",
    osVersion: "11",
    createdAt: at(t),
  };
}

export function verdictSetting({ teamId }: Parts) {
  return {
    id: "vs-1",
    teamId,
    description: "Default EDR verdict",
    createdAt: at(0),
    updatedAt: at(1),
    stage: "TRIAGE",
    category: "MALWARE",
    serviceRule: "CLOUD__INVOCATION",
    severity: "HIGH",
    verdict: "MALICIOUS",
    monitorFallbackPreset: "ESCALATE",
    chatOpsUnsureVerdict: "SUSPICIOUS",
    chatOpsTimeoutVerdict: "SUSPICIOUS",
    default: true,
    managedByService: true,
    retired: false,
    escalate: true,
    chatOps: true,
    close: false,
    disabled: false,
    chatOpsMFA: false,
    monitor: false,
    vipChatOps: true,
    chatOpsTimeoutMonitor: false,
    chatOpsTimeoutClose: false,
    managedByParent: false,
    useSourceSeverity: true,
    ignoresRemediation: false,
    containUserActions: ["disable"],
    containEndpointActions: ["isolate"],
    containFileActions: ["delete"],
    uncontainUserActions: ["enable"],
    uncontainEndpointActions: ["unisolate"],
    uncontainFileActions: ["unquarantine"],
    defaults: { escalate: true },
  };
}

/** Node `k` of a process tree: explorer.exe, then the encoded PowerShell it started. */
function node(k: number) {
  return {
    id: `pn-${k}`,
    parentId: k === 0 ? null : `pn-${k - 1}`,
    sourceUid: `uid-${k}`,
    cpid: String(1000 + k),
    name: k === 0 ? "explorer.exe" : "powershell.exe",
    cmdLine: k === 0 ? "explorer.exe" : 'powershell.exe -enc "SQBFAFgA"',
    path: "C:\\Windows\\System32",
    sha1: "a".repeat(40),
    sha256: "b".repeat(64),
    pid: 4000 + k,
    createdTime: 1767225600 + k,
  };
}

export function processTree({ index }: Parts) {
  return {
    nodes: [node(0), node(1), node(2)],
    limitsHit: { nodes: false, edges: false, fields: index % 50 === 0 },
  };
}

export function customDetection({ t }: Parts) {
  return {
    id: "cd-1",
    name: "Encoded PowerShell",
    category: "EXECUTION",
    query: "process.cmd contains '-enc'",
    createdBy: "svc-admin",
    updatedBy: "svc-admin",
    description: "Flags encoded PowerShell",
    legacyQuery: null,
    sourceTable: "process_events",
    lastRan: at(t),
    createdAt: at(0),
    updatedAt: at(1),
    enabled: true,
    alwaysNotify: false,
    deduplication: { assetTypes: ["USER"], windowSeconds: 3600 },
  };
}

export function externalCustomDetection({ teamId, t }: Parts) {
  return {
    id: "ecd-1",
    teamId,
    integrationId: `int-${teamId}-003`,
    provider: "siem",
    sourceRuleId: "rule-42",
    name: "Impossible travel",
    status: "ACTIVE",
    sourceActionSlug: "siem-rule",
    description: "Sign-ins from two continents within an hour",
    severity: "HIGH",
    category: "IDENTITY",
    aiSuggestedCategory: "IDENTITY",
    aiReasoning: "Geographic anomaly",
    query: "signin | where distance > 1000",
    queryLanguage: "KQL",
    ruleGroup: "identity",
    ruleType: "scheduled",
    severityOrdinal: 3,
    alwaysNotify: false,
    providerEnabled: true,
    lastSyncedAt: at(t),
    createdAt: at(0),
    updatedAt: at(1),
    classifiedAt: at(2),
    providerCreatedAt: at(0),
    providerUpdatedAt: at(1),
    deletedAt: null,
    providerMetadata: { workspace: "ws-1" },
    sampleDetection: { title: "sample" },
  };
}
