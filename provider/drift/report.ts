/**
 * The drift and coverage report, per team (one key each, matched by identity; resources by their
 * recorded `teamId`): managed objects in sync, drifted or deleted; objects two resources hold
 * (duplicate); live rules no resource holds (unmanaged), less the ignored ones and copies.
 */
import { SecOpsClient } from "../client/client";
import { ErrorCodes, isSecOpsError } from "../client/errors";
import type { HvaRule } from "../client/types";
import type { ResourceDefinition } from "../resources/framework/definition";
import { listObjects } from "../resources/framework/listing";
import { RESOURCES } from "../resources/framework/registry";
import { PENDING_ID_PREFIX } from "../resources/framework/runtime";
import {
  adoptionNames,
  hasExplicitProviders,
  importLine,
  providerOfTeam,
  ruleRow,
  sortLoose,
  type StateView,
} from "./adopt";
import { DriftInputError, ENCRYPTED, type IgnoreRule, type ManagedResource } from "./state";

/** A managed object, by id (a rule id, or a directory user's id) and the URN that holds it. */
export interface DriftRef {
  id: string;
  urn: string;
}

/** One team's findings. */
export interface TeamDrift {
  teamId: string;
  /** False when no key of this team was given: nothing below was looked at. */
  checked: boolean;
  /** How many resources of the state belong to this team. */
  managed: number;
  inSync: DriftRef[];
  drifted: Array<DriftRef & { fields: Record<string, { state: unknown; live: unknown }> }>;
  deleted: DriftRef[];
  unmanaged: Array<{ id: string; field: string; search: string; enabled: boolean; import: string }>;
  /** Objects held by more than one resource of the state: each with every URN that holds it. */
  duplicate: Array<{ id: string; urns: string[] }>;
  /**
   * Unheld live rules copying a held rule (`of`: its URN) or an unmanaged one offered instead (`of`:
   * its id): delete them, or ignore them on purpose; never import.
   */
  copy: Array<{ id: string; field: string; search: string; enabled: boolean; of: string }>;
  ignored: Array<{ id: string; reason: string }>;
  /** The `secops hva export` command that writes TypeScript adopting the unmanaged rules (when any). */
  adopt?: string;
}

/** The report (`--format json` prints it as it is). */
export interface DriftReport {
  version: 1;
  teams: TeamDrift[];
}

/** One team's key, by the name of the environment variable it came from (never the value). */
export interface DriftKey {
  name: string;
  key: string;
}

/** What {@link driftReport} needs besides the state. */
export interface DriftOptions {
  baseUrl: string;
  keys: DriftKey[];
  /** The state file as the user named it, for the `secops hva export --state` hint. */
  state?: string;
  ignore?: IgnoreRule[];
  /** The ignore file as the user named it: the adoption hint passes it on to the export. */
  ignoreFile?: string;
  /** Called with a line of progress (the CLI prints it on stderr when that is a terminal). */
  progress?: (line: string) => void;
  /** Directory users read at once. Default 8. */
  concurrency?: number;
}

/** A team's lists, in the order the report gives them, with the words the formats count them in. */
export const LISTS = [
  ["inSync", "in sync"],
  ["drifted", "drifted"],
  ["deleted", "deleted"],
  ["unmanaged", "unmanaged"],
  ["duplicate", "duplicate"],
  ["copy", "copy"],
  ["ignored", "ignored"],
] as const;

/** The lists that fail the report when not empty. */
const FINDINGS = ["drifted", "deleted", "unmanaged", "duplicate", "copy"] as const;

/** True when every team was checked and nothing was found. */
export const isClean = (r: DriftReport) =>
  r.teams.every((t) => t.checked && FINDINGS.every((k) => t[k].length === 0));

type Fields = Record<string, { state: unknown; live: unknown }>;

/** The live objects of `mine`, by id, read one at a time (`concurrency` at once); a missing one is absent. */
async function readEach(
  def: ResourceDefinition<never>,
  client: SecOpsClient,
  mine: ManagedResource[],
  concurrency: number,
): Promise<Map<string, never>> {
  const queue = [...mine];
  const live = new Map<string, never>();
  const worker = async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      try {
        live.set(r.id, await def.read(client, r.id));
      } catch (err) {
        if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  return live;
}

/** Sorts the team's objects of one resource into in sync, drifted and deleted; returns those to adopt. */
async function checkKind(
  def: ResourceDefinition<never>,
  team: TeamDrift,
  once: ManagedResource[],
  ctx: StateView & { client: SecOpsClient; concurrency: number },
) {
  const mine = once.filter((r) => r.kind === def.name);
  const listed = def.drift.live === "list" ? await listObjects(ctx.client, def.token) : undefined;
  const live = listed
    ? new Map(listed.map((o) => [o.id, o.item as never]))
    : await readEach(def, ctx.client, mine, ctx.concurrency);
  for (const r of mine) {
    const ref = { id: r.id, urn: r.urn };
    if (!live.has(r.id)) {
      team.deleted.push(ref);
      continue;
    }
    // The differing fields, state value against live value; encrypted values are not compared.
    const fields: Fields = {};
    for (const [f, get] of Object.entries(def.drift.fields)) {
      const state = r.outputs[f];
      const skip = state === undefined || state === ENCRYPTED || (def.drift.managedOnly && state === null);
      if (!skip && state !== get(live.get(r.id)!)) fields[f] = { state, live: get(live.get(r.id)!) };
    }
    if (Object.keys(fields).length) team.drifted.push({ ...ref, fields });
    else team.inSync.push(ref);
  }
  if (!def.drift.unmanaged || !listed) return [];
  const rules = listed.map((o) => o.item as HvaRule);
  const { ignored, copies, twins, kept } = sortLoose(rules, ctx, team.teamId);
  team.ignored.push(...ignored);
  team.copy.push(...[...copies, ...twins].map((c) => ({ ...ruleRow(c.rule), of: c.of })));
  return kept;
}

/** Each team's rules to adopt, named uniquely across teams (so the files fit one program), with commands. */
function adoptions(
  found: Array<{ team: TeamDrift; loose: HvaRule[]; key: DriftKey }>,
  resources: ManagedResource[],
  options: DriftOptions,
): void {
  const plain = found.map((f) => new Set(adoptionNames(f.loose, resources).map((n) => n.name)));
  const explicit = hasExplicitProviders(resources);
  for (const [i, { team, loose, key }] of found.entries()) {
    const clash = plain.some((other, j) => j !== i && [...plain[i]].some((n) => other.has(n)));
    const prefix = clash ? `${team.teamId}-` : "";
    const provider = providerOfTeam(resources, team.teamId);
    for (const { name, rule } of adoptionNames(loose, resources, prefix))
      team.unmanaged.push({
        ...ruleRow(rule),
        import: importLine(name, rule.id, explicit, provider, team.teamId),
      });
    if (!team.unmanaged.length) continue;
    // The `secops hva export` line adopting exactly the team's unmanaged rules, under the report's names.
    const flags = [
      `--state ${options.state ?? "<state file>"}`,
      ...(key.name === "SECOPS_API_KEY" ? [] : [`--api-key-env ${key.name}`]),
      ...(options.ignoreFile ? [`--ignore ${options.ignoreFile}`] : []),
      ...(prefix ? [`--name-prefix ${prefix}`] : []),
    ];
    team.adopt = `secops hva export ${flags.join(" ")} --format typescript --native --out adopt-${team.teamId}.ts`;
  }
}

/** The kind and id of the object a resource holds. */
const objectOf = (r: ManagedResource) => `${r.kind}\n${r.id}`;

/** Objects held by more than one resource (of one kind), by kind and id: the URNs, sorted. */
function heldTwice(resources: ManagedResource[]): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  for (const r of resources) holders.set(objectOf(r), [...(holders.get(objectOf(r)) ?? []), r.urn]);
  return new Map([...holders].filter(([, urns]) => urns.length > 1).map(([k, urns]) => [k, urns.sort()]));
}

/** Builds the report from the state's managed resources and the live API. */
export async function driftReport(resources: ManagedResource[], options: DriftOptions): Promise<DriftReport> {
  const progress = options.progress ?? (() => undefined);
  const clients = options.keys.map((key) => ({
    key,
    client: new SecOpsClient({ apiKey: key.key, baseUrl: options.baseUrl }),
  }));
  try {
    // The teams of the keys, by identity. Two keys of one team are a mistake worth stopping for.
    const byTeam = new Map<string, (typeof clients)[number]>();
    for (const access of clients) {
      const { teamId } = await access.client.getIdentity();
      const other = byTeam.get(teamId);
      if (other)
        throw new DriftInputError(
          `$${other.key.name} and $${access.key.name} are keys of the same team (${teamId}): give one key per team`,
        );
      byTeam.set(teamId, access);
    }
    const real = resources.filter((r) => !r.id.startsWith(PENDING_ID_PREFIX));
    // A resource that recorded no team belongs to the one team checked, when there is one.
    const only = byTeam.size === 1 ? [...byTeam.keys()][0] : "";
    const teamOf = (r: ManagedResource) => r.teamId ?? only;
    const teamIds = [...new Set([...byTeam.keys(), ...real.map(teamOf)])].sort();
    const twice = heldTwice(real);
    const shared = { resources, ignore: options.ignore ?? [], teamOf, concurrency: options.concurrency ?? 8 };
    const teams: TeamDrift[] = [];
    const found: Array<{ team: TeamDrift; loose: HvaRule[]; key: DriftKey }> = [];
    for (const [i, teamId] of teamIds.entries()) {
      const mine = real.filter((r) => teamOf(r) === teamId);
      const access = byTeam.get(teamId);
      const lists = Object.fromEntries(LISTS.map(([k]) => [k, []]));
      const team = { teamId, checked: access !== undefined, managed: mine.length, ...lists } as TeamDrift;
      teams.push(team);
      if (!access) continue;
      progress(`team ${teamId} (${i + 1} of ${teamIds.length}): ${mine.length} managed`);
      // An object held twice is its own finding, once, in the team of its first holder.
      for (const r of mine)
        if (twice.get(objectOf(r))?.[0] === r.urn)
          team.duplicate.push({ id: r.id, urns: twice.get(objectOf(r))! });
      const once = mine.filter((r) => !twice.has(objectOf(r)));
      const loose: HvaRule[] = [];
      for (const { definition } of RESOURCES)
        loose.push(...(await checkKind(definition, team, once, { ...shared, ...access })));
      found.push({ team, loose, key: access.key });
    }
    adoptions(found, resources, options);
    return { version: 1, teams };
  } finally {
    await Promise.all(clients.map((c) => c.client.close()));
  }
}
