/**
 * Deterministic seed data: the same `seed` always yields the same teams, keys, users, integrations,
 * cases with fully populated detections, comments and rules.
 */
import { HEALTH_STATUSES, INTEGRATION_TYPES } from "../provider/client/types";

/** A small seeded PRNG (mulberry32): deterministic across runs and platforms. */
export function rng(seed: number): () => number {
  let a = seed >>> 0 || 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const hex = (r: Rand, n: number) =>
  Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
const BASE = Date.UTC(2026, 0, 1);
/** An ISO 8601 UTC timestamp with milliseconds, `minutes` after 2026-01-01. */
export const at = (minutes: number) =>
  new Date(BASE + Math.round(minutes * 60_000) + (minutes % 1000)).toISOString();

/** A team of the simulated service. */
export interface SimTeam {
  id: string;
  name: string;
  parentTeamId: string;
  serviceProvider: boolean;
}

/** An API key of the simulated service and who it authenticates as. */
export interface SimKey {
  key: string;
  userId: string;
  email: string;
  displayName: string;
  role: "ADMIN" | "ANALYST" | "VIEWER";
  teamId: string;
}

/** An integration (the spec hides its record; these are the fields the count filters need). */
export interface SimIntegration {
  id: string;
  teamId: string;
  name: string;
  integrationPlatform: string;
  integrationType: string;
  healthStatus: string;
  enabled: boolean;
  createdAt: string;
}

/** A case (fields beyond the identifiers are not shown in the spec; the export invents a few). */
export interface SimCase {
  id: string;
  sid: string;
  teamId: string;
  title: string;
  status: string;
  severity: string;
  createdAt: string;
}

export const TEAM_REGULAR = "team-acme";
export const TEAM_SP = "team-msp";
export const CLIENT_TEAMS = ["team-client-1", "team-client-2"];

/** The teams: one regular team and one service provider with two client teams. */
export function teams(): SimTeam[] {
  return [
    { id: TEAM_REGULAR, name: "Acme Security", parentTeamId: TEAM_REGULAR, serviceProvider: false },
    { id: TEAM_SP, name: "Managed SOC", parentTeamId: TEAM_SP, serviceProvider: true },
    ...CLIENT_TEAMS.map((id, i) => ({
      id,
      name: `Client ${i + 1}`,
      parentTeamId: TEAM_SP,
      serviceProvider: false,
    })),
  ];
}

/** The API keys, derived from the seed: three roles of the regular team, the service provider's admin, and an admin of each client team. */
export function keys(seed: number): SimKey[] {
  const r = rng(seed * 7919 + 1);
  const mk = (name: string, role: SimKey["role"], teamId: string): SimKey => ({
    key: `simkey_${name}_${hex(r, 24)}`,
    userId: `svc-${name}`,
    email: `svc-${name}@example.test`,
    displayName: `Service account (${name})`,
    role,
    teamId,
  });
  return [
    mk("admin", "ADMIN", TEAM_REGULAR),
    mk("analyst", "ANALYST", TEAM_REGULAR),
    mk("viewer", "VIEWER", TEAM_REGULAR),
    mk("spadmin", "ADMIN", TEAM_SP),
    // Appended, so the keys above stay what they were for a given seed.
    ...CLIENT_TEAMS.map((team, i) => mk(`client${i + 1}admin`, "ADMIN", team)),
  ];
}

const FIRST = ["Ada", "Grace", "Alan", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger"];
const LAST = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Torvalds",
  "Hamilton",
  "Thompson",
  "Liskov",
  "Ritchie",
  "Allen",
  "Dijkstra",
];
const PLATFORMS = [
  "microsoft-entra-id",
  "okta",
  "crowdstrike-falcon",
  "google-workspace",
  "slack",
  "sentinelone",
  "aws",
];

/** A directory user's group assignment (user form). */
function userGroup(teamId: string, i: number) {
  return {
    id: `ga-${i}`,
    group: "all-staff",
    teamId,
    enabled: true,
    overriddenByUser: false,
    createdAt: at(i),
    groupId: "grp-all",
    groupName: "All staff",
    groupSlug: "all-staff",
    groupContainmentEnabled: true,
    groupChatOpsEnabled: i % 2 === 0,
    groupSourceSystemUpdates: false,
    groupAlwaysNotify: false,
    groupRuleSearch: "*",
    groupRuleSearchField: "email",
    groupRuleSearchType: "WILDCARD",
    directoryUserId: `du-${teamId}-${String(i + 1).padStart(3, "0")}`,
    overriddenByUserId: null,
  };
}

/** A directory user's license. */
const license = (i: number) => ({
  licenseId: `lic-${i}`,
  licenseName: "E5",
  productId: "prod-e5",
  integrationPlatform: "microsoft-entra-id",
});

/** A directory user's cluster members (draws from `r` in the order the user literal did). */
function clusterMembers(
  r: () => number,
  u: { i: number; first: string; last: string; teamId: string; clusterCount: number },
) {
  return Array.from({ length: Math.min(5, u.clusterCount) }, (_, k) => ({
    id: `cm-${u.i}-${k}`,
    displayLabel: `${u.first} (${pick(r, PLATFORMS)})`,
    integrationId: `int-${u.teamId}-00${k + 1}`,
    integrationPlatform: pick(r, PLATFORMS),
    name: `${u.first} ${u.last}`,
    managed: true,
    live: k % 2 === 0,
    operatingSystem: null,
    createdAt: at(k),
    updatedAt: at(k + 1),
  }));
}

/** Directory users of a team (at least 50 for the regular team). */
export function directoryUsers(seed: number, teamId: string, count: number): Record<string, unknown>[] {
  const r = rng(seed * 31 + teamId.length);
  return Array.from({ length: count }, (_, i) => {
    const first = pick(r, FIRST);
    const last = pick(r, LAST);
    const email = `${first}.${last}.${i}@acme.example`.toLowerCase();
    const clusterCount = i % 9 === 0 ? 7 : i % 4 === 0 ? 2 : 0;
    return {
      id: `du-${teamId}-${String(i + 1).padStart(3, "0")}`,
      displayName: `${first} ${last}`,
      name: `${first} ${last}`,
      teamId,
      email,
      additionalEmails: i % 3 === 0 ? [`${first}@alias.example`.toLowerCase()] : [],
      allEmails: i % 3 === 0 ? [email, `${first}@alias.example`.toLowerCase()] : [email],
      createdAt: at(i * 60),
      updatedAt: at(i * 60 + 30),
      integrationId: `int-${teamId}-001`,
      credentialsExposed: r() < 0.2,
      numberCredentialExposures: Math.floor(r() * 3),
      containable: true,
      managed: true,
      smsInviteAttempts: Math.floor(r() * 2),
      groups: [userGroup(teamId, i)],
      licenses: [license(i)],
      groupContainmentEnabled: true,
      groupChatOpsEnabled: i % 2 === 0,
      groupSourceSystemUpdates: false,
      groupsSynced: true,
      enabled: i % 17 !== 0,
      directoryId: `dir-${hex(r, 8)}`,
      title: pick(r, ["Engineer", "Analyst", "Director", "Intern"]),
      vip: i % 11 === 0,
      nhi: i % 13 === 0,
      financial: i % 5 === 0,
      technical: i % 2 === 1,
      external: false,
      department: pick(r, ["Security", "Finance", "R&D", "Sales"]),
      domain: "acme.example",
      canonicalId: null,
      canonicalClusterMemberCount: clusterCount,
      canonicalClusterMembers:
        clusterCount === 0 ? null : clusterMembers(r, { i, first, last, teamId, clusterCount }),
      roles: ["user"],
      needsChatOpsWelcome: i % 3 === 1,
      chatOpsOnboardingUser: i % 4 === 2,
      contained: false,
      username: `${first}${i}`.toLowerCase(),
      administrator: i % 10 === 0,
      raw: { source: "seed", index: i },
      emailDirection: i % 2 === 0 ? "sender" : "receiver",
      lastSignInAt: at(i * 90),
      passwordLastChangedAt: null,
    };
  });
}

/** Integrations: every health status and type, some disabled, spread over the teams. */
export function integrations(seed: number): SimIntegration[] {
  const r = rng(seed * 131 + 7);
  const owners = [
    ...Array(40).fill(TEAM_REGULAR),
    ...Array(6).fill(TEAM_SP),
    ...Array(8).fill(CLIENT_TEAMS[0]),
    ...Array(6).fill(CLIENT_TEAMS[1]),
  ];
  return owners.map((teamId, i) => {
    const type = INTEGRATION_TYPES[i % INTEGRATION_TYPES.length];
    const platform = pick(r, PLATFORMS);
    return {
      id: `int-${teamId}-${String(i + 1).padStart(3, "0")}`,
      teamId,
      name: `${platform} ${type} ${i + 1}`,
      integrationPlatform: platform,
      integrationType: type,
      healthStatus: HEALTH_STATUSES[i % HEALTH_STATUSES.length],
      enabled: i % 7 !== 3,
      createdAt: at(i * 13),
    };
  });
}

/**
 * The cases each team has in the seed, by id: the regular team's `case-001` to `case-012` (ids of
 * the examples), then `case-<team>-001`, ... for the service provider and each client team.
 */
export const CASES_PER_TEAM: ReadonlyArray<{ teamId: string; prefix: string; count: number }> = [
  { teamId: TEAM_REGULAR, prefix: "case-", count: 12 },
  { teamId: TEAM_SP, prefix: "case-msp-", count: 3 },
  ...CLIENT_TEAMS.map((teamId) => ({ teamId, prefix: `case-${teamId.replace(/^team-/, "")}-`, count: 4 })),
];

/** Every team's cases (the detections come from detections.ts). */
export function allCases(seed: number): SimCase[] {
  return CASES_PER_TEAM.flatMap(({ teamId, prefix, count }, t) =>
    // The regular team's draws are those of before client teams had cases: its cases stay as they were.
    cases(count, teamId, prefix, seed * 17 + 3 + t * 7919, t === 0 ? 1000 : 90_000 + t * 100),
  );
}

/** `count` cases of a team, ids `<prefix>001`, ... */
function cases(count: number, teamId: string, prefix: string, stream: number, sid: number): SimCase[] {
  const r = rng(stream);
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String(i + 1).padStart(3, "0")}`,
    sid: `C-${sid + i}`,
    teamId,
    title: pick(r, [
      'Suspicious sign-in, "impossible travel"',
      "Malware, quarantined",
      "Mailbox rule\ncreated",
      "Phish",
    ]),
    status: pick(r, ["NEW", "IN_PROGRESS", "CLOSED"]),
    severity: pick(r, ["INFORMATIONAL", "LOW", "MEDIUM", "HIGH"]),
    createdAt: at(i * 240),
  }));
}
