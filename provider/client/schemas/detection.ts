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
    ...fields(optString, "id displayName teamId integrationId edrSourceId mdmSourceId name privateIpAddress"),
    ...fields(optString, "publicIpAddress operatingSystem canonicalId lockPin"),
    operatingSystemCategory: optEnum(E.operatingSystemCategory),
    ...fields(optTimestamp, "createdAt lastSeenAt updatedAt"),
    ...fields(optBool, "hva hvaOverriddenByUser contained workstation server mobile domainController"),
    ...fields(
      optBool,
      "groupContainmentEnabled groupChatOpsEnabled groupSourceSystemUpdates groupsSynced live managed",
    ),
    groups: optArrayOf(endpointGroupAssignmentSchema),
    canonicalClusterMemberCount: optInt,
    canonicalClusterMembers: optArrayOf(clusterMemberSchema),
    raw: optObject,
  })
  .describe("An endpoint (device) of a detection.");

const threatNameSchema = z.looseObject({
  ...fields(optString, "name engine"),
  excluded: optBool,
  matchedFileRiskRules: optStrings,
});
const nameValueSchema = z.looseObject(fields(optString, "name value"));

export const fileSchema = z
  .looseObject({
    ...fields(optString, "id displayName teamId name path sha256 sha1 toolName nameWithPath"),
    ...fields(optTimestamp, "createdAt updatedAt lastEnrichedAt"),
    fileRisk: optEnum(E.fileRisk),
    ...fields(optBool, "enrichedViaIntegration contained"),
    metadata: z
      .looseObject({
        threatNames: optArrayOf(threatNameSchema),
        versionInfo: optArrayOf(nameValueSchema),
        ...fields(optStrings, "proposedFileNames fileNameCatalogMatches"),
        lastScanTime: optTimestamp,
        story: optString,
      })
      .nullish(),
  })
  .describe("A file of a detection, with its enrichment metadata.");

export const processSchema = z
  .looseObject({
    ...fields(optString, "id displayName teamId command sha256 sha1"),
    createdAt: optTimestamp,
  })
  .describe("A process of a detection.");

export const locationSchema = z
  .looseObject({
    ...fields(
      optString,
      "id displayName teamId lat lon city state country countryCode continent continentCode",
    ),
    createdAt: optTimestamp,
  })
  .describe("A geographic location of a detection.");

const ipMetadataSchema = z.looseObject({
  ...fields(optBool, "ofac adversarial isAnycast isMobile isSatellite"),
  ...fields(optString, "ip hostname city region country loc postal timezone org"),
  asn: z.looseObject(fields(optString, "asn name domain type route")).nullish(),
  company: z.looseObject(fields(optString, "name domain type")).nullish(),
  privacy: z
    .looseObject({
      ...fields(optBool, "vpn proxy tor relay hosting residentialProxy"),
      ...fields(optString, "service lastSeen"),
      percentDaysSeen: optInt,
    })
    .nullish(),
  abuse: z
    .looseObject({
      ...fields(optString, "address country email name network phone"),
      ...fields(optBool, "ofac adversarial"),
    })
    .nullish(),
  domains: z.looseObject({ ip: optString, total: optInt, domains: optStrings }).nullish(),
});

export const ipSchema = z
  .looseObject({
    ...fields(optString, "id displayName teamId ipv4 ipv6 locationId"),
    ...fields(optTimestamp, "createdAt updatedAt metadataLastFetchedAt"),
    metadata: ipMetadataSchema.nullish(),
  })
  .describe("An IP address of a detection, with its metadata.");

export const domainSchema = z
  .looseObject({
    ...fields(optString, "id displayName teamId name"),
    createdAt: optTimestamp,
  })
  .describe("A domain of a detection.");

export const artifactSchema = z
  .looseObject({
    type: optEnum(E.artifactType),
    data: z
      .looseObject({
        ...fields(optString, "externalId name tenantExternalId"),
        mailbox: z.looseObject(fields(optString, "address externalId")).nullish(),
        operation: optEnum(E.artifactOperation),
        actions: optArrayOf(z.looseObject(fields(optString, "type value"))),
        conditions: optArrayOf(z.looseObject(fields(optString, "field value operator"))),
        properties: optArrayOf(nameValueSchema),
      })
      .nullish(),
  })
  .describe("An artifact of a detection (e.g. a mailbox rule). All values are strings.");

export const chatOpsActionSchema = z
  .looseObject({
    ...fields(optString, "id teamId directoryUserId integrationId detectionId caseId message ipAddress"),
    mfaAttempts: optInt,
    ...fields(optTimestamp, "createdAt respondedAt mfaRespondedAt"),
    ...fields(
      optBool,
      "isSuccessful isTimeout isRateLimited isOverride isMfaSuccess isMfaFailure isMfaUnavailable",
    ),
    settingsAtTimeOfAction: optObject,
    verdict: optEnum(E.verdict),
  })
  .describe("A chat-operations action of a detection.");

export const containmentActionSchema = z
  .looseObject({
    ...fields(optString, "id teamId detectionId caseId endpointId directoryUserId fileId userId subAction"),
    ...fields(optString, "integrationId integrationPlatform"),
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
    ...fields(optString, "id teamId description"),
    ...fields(optTimestamp, "createdAt updatedAt"),
    stage: optEnum(E.verdictStage),
    serviceRule: optEnum(E.serviceRule),
    monitorFallbackPreset: optEnum(E.monitorFallbackPreset),
    ...fields(optString, "category severity verdict chatOpsUnsureVerdict chatOpsTimeoutVerdict"),
    ...fields(optBool, "default managedByService retired escalate chatOps close disabled chatOpsMFA monitor"),
    ...fields(
      optBool,
      "vipChatOps chatOpsTimeoutMonitor chatOpsTimeoutClose managedByParent useSourceSeverity",
    ),
    ignoresRemediation: optBool,
    ...fields(enumList, "containUserActions containEndpointActions containFileActions uncontainUserActions"),
    ...fields(enumList, "uncontainEndpointActions uncontainFileActions"),
    defaults: z.unknown().optional(),
  })
  .describe("The verdict setting of a detection. `defaults` has no type in the spec and is kept as sent.");

export const userAgentSchema = z
  .looseObject({
    ...fields(
      optString,
      "id userAgent teamId displayName userAgentAlt browserName browserVersion browserMajorVersion",
      "cpuArchitecture deviceModel deviceVendor engineName engineVersion osName osVersion",
    ),
    createdAt: optTimestamp,
  })
  .describe("A user agent of a detection.");

export const processTreeSchema = z
  .looseObject({
    nodes: optArrayOf(
      z.looseObject({
        ...fields(optString, "id parentId sourceUid cpid name cmdLine path sha1 sha256"),
        ...fields(optInt, "pid createdTime"),
      }),
    ),
    limitsHit: z.looseObject(fields(optBool, "nodes edges fields")).nullish(),
  })
  .describe("A process tree: its nodes and which ceilings truncated it.");

export const customDetectionSchema = z
  .looseObject({
    ...fields(optString, "id name category query createdBy updatedBy description legacyQuery sourceTable"),
    ...fields(optTimestamp, "lastRan createdAt updatedAt"),
    ...fields(optBool, "enabled alwaysNotify"),
    deduplication: z.looseObject({ assetTypes: enumList, windowSeconds: optInt }).nullish(),
  })
  .describe("A custom detection.");

export const externalCustomDetectionSchema = z
  .looseObject({
    ...fields(
      optString,
      "id teamId integrationId provider sourceRuleId name status sourceActionSlug description",
      "severity category aiSuggestedCategory aiReasoning query queryLanguage ruleGroup ruleType",
    ),
    severityOrdinal: optInt,
    ...fields(optBool, "alwaysNotify providerEnabled"),
    ...fields(
      optTimestamp,
      "lastSyncedAt createdAt updatedAt classifiedAt providerCreatedAt providerUpdatedAt deletedAt",
    ),
    ...fields(optObject, "providerMetadata sampleDetection"),
  })
  .describe("An external custom detection.");

export const detectionSchema = z
  .looseObject({
    id: z.string(),
    ...fields(
      optString,
      "teamId sid title whatHappened nextSteps notes teamName sourceName sourceDescription sourceUrl",
      "actionSlug caseId caseSid integrationId duplicateDetectionId exclusionId exclusionSid",
      "customDetectionId externalCustomDetectionId chatOpsTestEmail chatOpsTestPhoneNumber groups",
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
      optTimestamp,
      "createdAt sourceIngestedAt sourceDetectedAt verdictedAt updatedAt closedAt lastRefreshAt",
    ),
    ...fields(optTimestamp, "escalatedAt autoRemediateStartedAt remediatedAt"),
    ...fields(
      optBool,
      "testMode contained reingested prevented managedByThirdParty excludeFromMeans firstRun",
      "containOnChatOpsFailure wasEscalated alwaysNotifyApplied chatOpsTest containsVIP containsHVA",
      "excluded autoClosed autoContained",
    ),
    ...fields(optObject, "raw refreshRaw ocsfDetectionFinding"),
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
