/**
 * Detections (threat indicators of a case) with every nested type the spec lists. Every field is
 * optional except `id`; every enumeration is open (the spec lists one value of most of them).
 */
import { z } from "zod";
import {
  fields,
  optArrayOf,
  optBool,
  optEnum,
  optInt,
  optObject,
  optString,
  optStrings,
  optTimestamp,
} from "./common";
import { DETECTION_ENUMS } from "../types";
import { clusterMemberSchema, directoryUserSchema, endpointGroupAssignmentSchema } from "./directory";

const E = DETECTION_ENUMS;

export const endpointSchema = z
  .looseObject({
    ...fields("id displayName teamId integrationId edrSourceId mdmSourceId name privateIpAddress", optString),
    ...fields("publicIpAddress operatingSystem canonicalId lockPin", optString),
    operatingSystemCategory: optEnum(E.operatingSystemCategory),
    ...fields("createdAt lastSeenAt updatedAt", optTimestamp),
    ...fields("hva hvaOverriddenByUser contained workstation server mobile domainController", optBool),
    ...fields(
      "groupContainmentEnabled groupChatOpsEnabled groupSourceSystemUpdates groupsSynced live managed",
      optBool,
    ),
    groups: optArrayOf(endpointGroupAssignmentSchema),
    canonicalClusterMemberCount: optInt,
    canonicalClusterMembers: optArrayOf(clusterMemberSchema),
    raw: optObject,
  })
  .describe("An endpoint (device) of a detection.");

const threatNameSchema = z.looseObject({
  ...fields("name engine", optString),
  excluded: optBool,
  matchedFileRiskRules: optStrings,
});
const nameValueSchema = z.looseObject(fields("name value", optString));

export const fileSchema = z
  .looseObject({
    ...fields("id displayName teamId name path sha256 sha1 toolName nameWithPath", optString),
    ...fields("createdAt updatedAt lastEnrichedAt", optTimestamp),
    fileRisk: optEnum(E.fileRisk),
    ...fields("enrichedViaIntegration contained", optBool),
    metadata: z
      .looseObject({
        threatNames: optArrayOf(threatNameSchema),
        versionInfo: optArrayOf(nameValueSchema),
        ...fields("proposedFileNames fileNameCatalogMatches", optStrings),
        lastScanTime: optTimestamp,
        story: optString,
      })
      .nullish(),
  })
  .describe("A file of a detection, with its enrichment metadata.");

export const processSchema = z
  .looseObject({
    ...fields("id displayName teamId command sha256 sha1", optString),
    createdAt: optTimestamp,
  })
  .describe("A process of a detection.");

export const locationSchema = z
  .looseObject({
    ...fields(
      "id displayName teamId lat lon city state country countryCode continent continentCode",
      optString,
    ),
    createdAt: optTimestamp,
  })
  .describe("A geographic location of a detection.");

const ipMetadataSchema = z.looseObject({
  ...fields("ofac adversarial isAnycast isMobile isSatellite", optBool),
  ...fields("ip hostname city region country loc postal timezone org", optString),
  asn: z.looseObject(fields("asn name domain type route", optString)).nullish(),
  company: z.looseObject(fields("name domain type", optString)).nullish(),
  privacy: z
    .looseObject({
      ...fields("vpn proxy tor relay hosting residentialProxy", optBool),
      ...fields("service lastSeen", optString),
      percentDaysSeen: optInt,
    })
    .nullish(),
  abuse: z
    .looseObject({
      ...fields("address country email name network phone", optString),
      ...fields("ofac adversarial", optBool),
    })
    .nullish(),
  domains: z.looseObject({ ip: optString, total: optInt, domains: optStrings }).nullish(),
});

export const ipSchema = z
  .looseObject({
    ...fields("id displayName teamId ipv4 ipv6 locationId", optString),
    ...fields("createdAt updatedAt metadataLastFetchedAt", optTimestamp),
    metadata: ipMetadataSchema.nullish(),
  })
  .describe("An IP address of a detection, with its metadata.");

export const domainSchema = z
  .looseObject({
    ...fields("id displayName teamId name", optString),
    createdAt: optTimestamp,
  })
  .describe("A domain of a detection.");

export const artifactSchema = z
  .looseObject({
    type: optEnum(E.artifactType),
    data: z
      .looseObject({
        ...fields("externalId name tenantExternalId", optString),
        mailbox: z.looseObject(fields("address externalId", optString)).nullish(),
        operation: optEnum(E.artifactOperation),
        actions: optArrayOf(z.looseObject(fields("type value", optString))),
        conditions: optArrayOf(z.looseObject(fields("field value operator", optString))),
        properties: optArrayOf(nameValueSchema),
      })
      .nullish(),
  })
  .describe("An artifact of a detection (e.g. a mailbox rule). All values are strings.");

export const chatOpsActionSchema = z
  .looseObject({
    ...fields("id teamId directoryUserId integrationId detectionId caseId message ipAddress", optString),
    mfaAttempts: optInt,
    ...fields("createdAt respondedAt mfaRespondedAt", optTimestamp),
    ...fields(
      "isSuccessful isTimeout isRateLimited isOverride isMfaSuccess isMfaFailure isMfaUnavailable",
      optBool,
    ),
    settingsAtTimeOfAction: optObject,
    verdict: optEnum(E.verdict),
  })
  .describe("A chat-operations action of a detection.");

export const containmentActionSchema = z
  .looseObject({
    ...fields("id teamId detectionId caseId endpointId directoryUserId fileId userId subAction", optString),
    ...fields("integrationId integrationPlatform", optString),
    createdAt: optTimestamp,
    type: optEnum(E.containmentType),
    action: optEnum(E.containmentAction),
    result: optEnum(E.containmentResult),
    integrationResponse: optObject,
  })
  .describe("A containment action of a detection.");

const enumList = z.array(z.string()).nullish();

export const verdictSettingSchema = z
  .looseObject({
    ...fields("id teamId description", optString),
    ...fields("createdAt updatedAt", optTimestamp),
    stage: optEnum(E.verdictStage),
    serviceRule: optEnum(E.serviceRule),
    monitorFallbackPreset: optEnum(E.monitorFallbackPreset),
    ...fields("category severity verdict chatOpsUnsureVerdict chatOpsTimeoutVerdict", optString),
    ...fields("default managedByService retired escalate chatOps close disabled chatOpsMFA monitor", optBool),
    ...fields(
      "vipChatOps chatOpsTimeoutMonitor chatOpsTimeoutClose managedByParent useSourceSeverity",
      optBool,
    ),
    ignoresRemediation: optBool,
    ...fields("containUserActions containEndpointActions containFileActions uncontainUserActions", enumList),
    ...fields("uncontainEndpointActions uncontainFileActions", enumList),
    defaults: z.unknown().optional(),
  })
  .describe("The verdict setting of a detection. `defaults` has no type in the spec and is kept as sent.");

export const userAgentSchema = z
  .looseObject({
    ...fields(
      "id userAgent teamId displayName userAgentAlt browserName browserVersion browserMajorVersion",
      optString,
    ),
    ...fields(
      "cpuArchitecture deviceModel deviceVendor engineName engineVersion osName osVersion",
      optString,
    ),
    createdAt: optTimestamp,
  })
  .describe("A user agent of a detection.");

export const processTreeSchema = z
  .looseObject({
    nodes: optArrayOf(
      z.looseObject({
        ...fields("id parentId sourceUid cpid name cmdLine path sha1 sha256", optString),
        ...fields("pid createdTime", optInt),
      }),
    ),
    limitsHit: z.looseObject(fields("nodes edges fields", optBool)).nullish(),
  })
  .describe("A process tree: its nodes and which ceilings truncated it.");

export const customDetectionSchema = z
  .looseObject({
    ...fields("id name category query createdBy updatedBy description legacyQuery sourceTable", optString),
    ...fields("lastRan createdAt updatedAt", optTimestamp),
    ...fields("enabled alwaysNotify", optBool),
    deduplication: z.looseObject({ assetTypes: enumList, windowSeconds: optInt }).nullish(),
  })
  .describe("A custom detection.");

export const externalCustomDetectionSchema = z
  .looseObject({
    ...fields(
      "id teamId integrationId provider sourceRuleId name status sourceActionSlug description",
      optString,
    ),
    ...fields(
      "severity category aiSuggestedCategory aiReasoning query queryLanguage ruleGroup ruleType",
      optString,
    ),
    severityOrdinal: optInt,
    ...fields("alwaysNotify providerEnabled", optBool),
    ...fields(
      "lastSyncedAt createdAt updatedAt classifiedAt providerCreatedAt providerUpdatedAt deletedAt",
      optTimestamp,
    ),
    ...fields("providerMetadata sampleDetection", optObject),
  })
  .describe("An external custom detection.");

export const detectionSchema = z
  .looseObject({
    id: z.string(),
    ...fields(
      "teamId sid title whatHappened nextSteps notes teamName sourceName sourceDescription sourceUrl",
      optString,
    ),
    ...fields(
      "actionSlug caseId caseSid integrationId duplicateDetectionId exclusionId exclusionSid",
      optString,
    ),
    ...fields(
      "customDetectionId externalCustomDetectionId chatOpsTestEmail chatOpsTestPhoneNumber groups",
      optString,
    ),
    integrationPlatform: optString,
    status: optEnum(E.status),
    verdict: optEnum(E.verdict),
    category: optEnum(E.category),
    severity: optEnum(E.severity),
    severityOrdinal: optInt,
    fileRisk: optEnum(E.fileRisk),
    helpfulnessRating: optEnum(E.helpfulnessRating),
    containments: enumList,
    ...fields(
      "createdAt sourceIngestedAt sourceDetectedAt verdictedAt updatedAt closedAt lastRefreshAt",
      optTimestamp,
    ),
    ...fields("escalatedAt autoRemediateStartedAt remediatedAt", optTimestamp),
    ...fields(
      "testMode contained reingested prevented managedByThirdParty excludeFromMeans firstRun",
      optBool,
    ),
    ...fields(
      "containOnChatOpsFailure wasEscalated alwaysNotifyApplied chatOpsTest containsVIP containsHVA",
      optBool,
    ),
    ...fields("excluded autoClosed autoContained", optBool),
    ...fields("raw refreshRaw ocsfDetectionFinding", optObject),
    logs: optArrayOf(z.looseObject({ log: optString, timestamp: optTimestamp, debug: optBool })),
    groupNames: optStrings,
    endpoints: optArrayOf(endpointSchema),
    files: optArrayOf(fileSchema),
    processes: optArrayOf(processSchema),
    locations: optArrayOf(locationSchema),
    directory: optArrayOf(directoryUserSchema),
    ips: optArrayOf(ipSchema),
    domains: optArrayOf(domainSchema),
    artifacts: optArrayOf(artifactSchema),
    chatOpsActions: optArrayOf(chatOpsActionSchema),
    containmentActions: optArrayOf(containmentActionSchema),
    userAgents: optArrayOf(userAgentSchema),
    verdictSetting: verdictSettingSchema.nullish(),
    processTree: processTreeSchema.nullish(),
    customDetection: customDetectionSchema.nullish(),
    externalCustomDetection: externalCustomDetectionSchema.nullish(),
  })
  .describe("A detection: one threat indicator of a case. Every field but `id` may be absent or null.");

export const threatIndicatorPageSchema = z
  .looseObject({
    data: z.array(detectionSchema),
    totalCount: z.number().int().nonnegative(),
  })
  .describe("One page of GET /v1/cases/{id}/threat-indicators.");
