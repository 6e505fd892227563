/**
 * Parts of a seeded detection (scalar fields, endpoints, files, processes, locations, IPs, domains). Each returns some of the Detection's properties; `detection()`
 * spreads them in order, so they draw from one random sequence.
 */
import { at } from "./seed";
import type { Parts } from "./detection-parts";

const STATUSES = ["NEW", "IN_PROGRESS", "CLOSED"];
/** Severities by ordinal. */
export const SEVERITIES = ["INFORMATIONAL", "LOW", "MEDIUM", "HIGH", "CRITICAL"];

export function base(teamId: string, id: string, t: number) {
  return { id, teamId, displayName: id, createdAt: at(t) };
}

export function idFields({ id, teamId, index, sevIdx, caseId, caseSid }: Parts) {
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

export function integrationPlatformFields({ index, t }: Parts) {
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

export function ocsfDetectionFindingFields({ t, sevIdx }: Parts) {
  return {
    ocsfDetectionFinding: { class_uid: 2004, severity_id: sevIdx },
    logs: [{ log: "detection created", timestamp: at(t), debug: false }],
    groupNames: ["All staff"],
  };
}

export function endpointsPart({ teamId, index, t }: Parts) {
  return {
    endpoints: [
      {
        ...base(teamId, `ep-${index}`, t),
        integrationId: `int-${teamId}-002`,
        edrSourceId: `edr-${index}`,
        mdmSourceId: null,
        name: `LAPTOP-${index}`,
        privateIpAddress: `10.0.${index % 256}.${(index * 7) % 256}`,
        publicIpAddress: "203.0.113.10",
        operatingSystem: "Windows 11",
        canonicalId: null,
        lockPin: null,
        operatingSystemCategory: "Windows",
        lastSeenAt: at(t),
        updatedAt: at(t),
        hva: index % 9 === 0,
        hvaOverriddenByUser: false,
        contained: false,
        workstation: true,
        server: false,
        mobile: false,
        domainController: false,
        groupContainmentEnabled: true,
        groupChatOpsEnabled: true,
        groupSourceSystemUpdates: false,
        groupsSynced: true,
        live: true,
        managed: true,
        groups: [
          {
            id: `gae-${index}`,
            group: "laptops",
            teamId,
            enabled: true,
            endpointId: `ep-${index}`,
            groupName: "Laptops",
          },
        ],
        canonicalClusterMemberCount: 0,
        canonicalClusterMembers: [],
        raw: { agentVersion: "7.1" },
      },
    ],
  };
}

export function filesPart({ teamId, index, t }: Parts) {
  return {
    files: [
      {
        ...base(teamId, `file-${index}`, t),
        name: "invoice.exe",
        path: "C:\\Users\\ada\\Downloads",
        sha256: "c".repeat(64),
        sha1: "d".repeat(40),
        toolName: null,
        nameWithPath: "C:\\Users\\ada\\Downloads\\invoice.exe",
        updatedAt: at(t),
        lastEnrichedAt: at(t),
        fileRisk: "MALICIOUS",
        enrichedViaIntegration: true,
        contained: false,
        metadata: {
          threatNames: [
            { name: "Trojan.Generic", engine: "engine-a", excluded: false, matchedFileRiskRules: ["r1"] },
          ],
          versionInfo: [{ name: "CompanyName", value: "Unknown" }],
          proposedFileNames: ["invoice.exe"],
          fileNameCatalogMatches: [],
          lastScanTime: at(t),
          story: "Downloaded from an email attachment.",
        },
      },
    ],
  };
}

export function processesPart({ teamId, index, t }: Parts) {
  return {
    processes: [
      {
        ...base(teamId, `proc-${index}`, t),
        command: "powershell.exe -enc SQBFAFgA",
        sha256: "e".repeat(64),
        sha1: "f".repeat(40),
      },
    ],
  };
}

export function locationsPart({ teamId, index, t }: Parts) {
  return {
    locations: [
      {
        ...base(teamId, `loc-${index}`, t),
        lat: "52.52",
        lon: "13.40",
        city: "Berlin",
        state: "Berlin",
        country: "Germany",
        countryCode: "DE",
        continent: "Europe",
        continentCode: "EU",
      },
    ],
  };
}

export function directoryPart({ directoryUser }: Parts) {
  return {
    directory: [directoryUser],
  };
}

export function ipsPart({ teamId, index, t }: Parts) {
  return {
    ips: [
      {
        ...base(teamId, `ip-${index}`, t),
        ipv4: "203.0.113.10",
        ipv6: null,
        locationId: `loc-${index}`,
        updatedAt: at(t),
        metadataLastFetchedAt: at(t),
        metadata: {
          ofac: false,
          adversarial: index % 7 === 0,
          isAnycast: false,
          isMobile: false,
          isSatellite: false,
          ip: "203.0.113.10",
          hostname: "host.example",
          city: "Berlin",
          region: "Berlin",
          country: "DE",
          loc: "52.52,13.40",
          postal: "10115",
          timezone: "Europe/Berlin",
          org: "AS64500 Example",
          asn: {
            asn: "AS64500",
            name: "Example",
            domain: "example.net",
            type: "isp",
            route: "203.0.113.0/24",
          },
          company: { name: "Example", domain: "example.net", type: "isp" },
          privacy: {
            vpn: false,
            proxy: false,
            tor: false,
            relay: false,
            hosting: true,
            residentialProxy: false,
            service: "",
            lastSeen: at(t),
            percentDaysSeen: 3,
          },
          abuse: {
            address: "1 Example St",
            country: "DE",
            email: "abuse@example.net",
            name: "Abuse",
            network: "203.0.113.0/24",
            phone: "+49",
            ofac: false,
            adversarial: false,
          },
          domains: { ip: "203.0.113.10", total: 1, domains: ["host.example"] },
        },
      },
    ],
  };
}

export function domainsPart({ teamId, index, t }: Parts) {
  return {
    domains: [{ ...base(teamId, `dom-${index}`, t), name: "evil.example" }],
  };
}
