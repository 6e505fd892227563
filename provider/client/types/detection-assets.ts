/** What a detection involves: endpoints, files, processes, locations, IPs, domains, artifacts, user agents. */
import type { ClusterMember, EndpointGroupAssignment } from "./directory";

/** An endpoint (device) of a detection. */
export interface Endpoint {
  id?: string | null;
  displayName?: string | null;
  teamId?: string | null;
  integrationId?: string | null;
  edrSourceId?: string | null;
  mdmSourceId?: string | null;
  name?: string | null;
  privateIpAddress?: string | null;
  publicIpAddress?: string | null;
  operatingSystem?: string | null;
  canonicalId?: string | null;
  lockPin?: string | null;
  operatingSystemCategory?: "Windows" | (string & {}) | null;
  createdAt?: string | null;
  lastSeenAt?: string | null;
  updatedAt?: string | null;
  hva?: boolean | null;
  hvaOverriddenByUser?: boolean | null;
  contained?: boolean | null;
  workstation?: boolean | null;
  server?: boolean | null;
  mobile?: boolean | null;
  domainController?: boolean | null;
  groupContainmentEnabled?: boolean | null;
  groupChatOpsEnabled?: boolean | null;
  groupSourceSystemUpdates?: boolean | null;
  groupsSynced?: boolean | null;
  live?: boolean | null;
  managed?: boolean | null;
  groups?: EndpointGroupAssignment[] | null;
  canonicalClusterMemberCount?: number | null;
  canonicalClusterMembers?: ClusterMember[] | null;
  raw?: Record<string, unknown> | null;
}

/** A file of a detection, with its enrichment metadata. */
export interface File {
  id?: string | null;
  displayName?: string | null;
  teamId?: string | null;
  name?: string | null;
  path?: string | null;
  sha256?: string | null;
  sha1?: string | null;
  toolName?: string | null;
  nameWithPath?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  lastEnrichedAt?: string | null;
  fileRisk?: "BENIGN" | (string & {}) | null;
  enrichedViaIntegration?: boolean | null;
  contained?: boolean | null;
  metadata?: {
    threatNames?:
      | {
          name?: string | null;
          engine?: string | null;
          excluded?: boolean | null;
          matchedFileRiskRules?: string[] | null;
        }[]
      | null;
    versionInfo?:
      | {
          name?: string | null;
          value?: string | null;
        }[]
      | null;
    proposedFileNames?: string[] | null;
    fileNameCatalogMatches?: string[] | null;
    lastScanTime?: string | null;
    story?: string | null;
  } | null;
}

/** A process of a detection. */
export interface Process {
  id?: string | null;
  displayName?: string | null;
  teamId?: string | null;
  command?: string | null;
  sha256?: string | null;
  sha1?: string | null;
  createdAt?: string | null;
}

/** A geographic location of a detection. */
export interface Location {
  id?: string | null;
  displayName?: string | null;
  teamId?: string | null;
  lat?: string | null;
  lon?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  countryCode?: string | null;
  continent?: string | null;
  continentCode?: string | null;
  createdAt?: string | null;
}

/** An IP address of a detection, with its metadata. */
export interface Ip {
  id?: string | null;
  displayName?: string | null;
  teamId?: string | null;
  ipv4?: string | null;
  ipv6?: string | null;
  locationId?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  metadataLastFetchedAt?: string | null;
  metadata?: {
    ofac?: boolean | null;
    adversarial?: boolean | null;
    isAnycast?: boolean | null;
    isMobile?: boolean | null;
    isSatellite?: boolean | null;
    ip?: string | null;
    hostname?: string | null;
    city?: string | null;
    region?: string | null;
    country?: string | null;
    loc?: string | null;
    postal?: string | null;
    timezone?: string | null;
    org?: string | null;
    asn?: {
      asn?: string | null;
      name?: string | null;
      domain?: string | null;
      type?: string | null;
      route?: string | null;
    } | null;
    company?: {
      name?: string | null;
      domain?: string | null;
      type?: string | null;
    } | null;
    privacy?: {
      vpn?: boolean | null;
      proxy?: boolean | null;
      tor?: boolean | null;
      relay?: boolean | null;
      hosting?: boolean | null;
      residentialProxy?: boolean | null;
      service?: string | null;
      lastSeen?: string | null;
      percentDaysSeen?: number | null;
    } | null;
    abuse?: {
      address?: string | null;
      country?: string | null;
      email?: string | null;
      name?: string | null;
      network?: string | null;
      phone?: string | null;
      ofac?: boolean | null;
      adversarial?: boolean | null;
    } | null;
    domains?: {
      ip?: string | null;
      total?: number | null;
      domains?: string[] | null;
    } | null;
  } | null;
}

/** A domain of a detection. */
export interface Domain {
  id?: string | null;
  displayName?: string | null;
  teamId?: string | null;
  name?: string | null;
  createdAt?: string | null;
}

/** An artifact of a detection (e.g. a mailbox rule). All values are strings. */
export interface Artifact {
  type?: "MAILBOX_RULE" | (string & {}) | null;
  data?: {
    externalId?: string | null;
    name?: string | null;
    tenantExternalId?: string | null;
    mailbox?: {
      address?: string | null;
      externalId?: string | null;
    } | null;
    operation?: "CREATE" | (string & {}) | null;
    actions?:
      | {
          type?: string | null;
          value?: string | null;
        }[]
      | null;
    conditions?:
      | {
          field?: string | null;
          value?: string | null;
          operator?: string | null;
        }[]
      | null;
    properties?:
      | {
          name?: string | null;
          value?: string | null;
        }[]
      | null;
  } | null;
}

/** A user agent of a detection. */
export interface UserAgent {
  id?: string | null;
  userAgent?: string | null;
  teamId?: string | null;
  displayName?: string | null;
  userAgentAlt?: string | null;
  browserName?: string | null;
  browserVersion?: string | null;
  browserMajorVersion?: string | null;
  cpuArchitecture?: string | null;
  deviceModel?: string | null;
  deviceVendor?: string | null;
  engineName?: string | null;
  engineVersion?: string | null;
  osName?: string | null;
  osVersion?: string | null;
  createdAt?: string | null;
}
