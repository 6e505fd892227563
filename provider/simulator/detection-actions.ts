/**
 * Parts of a seeded detection (artifacts, actions, user agents, verdict setting, process tree, custom detections). Each returns some of the Detection's properties; `detection()`
 * spreads them in order, so they draw from one random sequence.
 */
import { at } from "./seed";
import type { Parts } from "./detection-parts";

export function artifactsPart({ index }: Parts) {
  return {
    artifacts: [
      {
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
      },
    ],
  };
}

export function chatOpsActionsPart({ id, teamId, index, t, caseId, directoryUser }: Parts) {
  return {
    chatOpsActions: [
      {
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
      },
    ],
  };
}

export function containmentActionsPart({ id, teamId, index, t, caseId }: Parts) {
  return {
    containmentActions: [
      {
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
      },
    ],
  };
}

export function userAgentsPart({ teamId, index, t }: Parts) {
  return {
    userAgents: [
      {
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
      },
    ],
  };
}

export function verdictSettingPart({ teamId }: Parts) {
  return {
    verdictSetting: {
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
    },
  };
}

export function processTreePart({ index, node }: Parts) {
  return {
    processTree: {
      nodes: [node(0), node(1), node(2)],
      limitsHit: { nodes: false, edges: false, fields: index % 50 === 0 },
    },
  };
}

export function customDetectionPart({ t }: Parts) {
  return {
    customDetection: {
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
    },
  };
}

export function externalCustomDetectionPart({ teamId, t }: Parts) {
  return {
    externalCustomDetection: {
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
    },
  };
}
