/**
 * The assets of a seeded detection (endpoint, file, process, location, IP, domain), one of each: what
 * `detection()` lists under `endpoints`, `files`, ... Only `(teamId, index, t)` shape them.
 */
import { at } from "./seed";
import type { Parts } from "./detections";

function base(teamId: string, id: string, t: number) {
  return { id, teamId, displayName: id, createdAt: at(t) };
}

export function endpoint({ teamId, index, t }: Parts) {
  return {
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
  };
}

export function file({ teamId, index, t }: Parts) {
  return {
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
  };
}

export function spawnedProcess({ teamId, index, t }: Parts) {
  return {
    ...base(teamId, `proc-${index}`, t),
    command: "powershell.exe -enc SQBFAFgA",
    sha256: "e".repeat(64),
    sha1: "f".repeat(40),
  };
}

export function location({ teamId, index, t }: Parts) {
  return {
    ...base(teamId, `loc-${index}`, t),
    lat: "52.52",
    lon: "13.40",
    city: "Berlin",
    state: "Berlin",
    country: "Germany",
    countryCode: "DE",
    continent: "Europe",
    continentCode: "EU",
  };
}

export function ip({ teamId, index, t }: Parts) {
  return {
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
  };
}

export function domain({ teamId, index, t }: Parts) {
  return { ...base(teamId, `dom-${index}`, t), name: "evil.example" };
}
