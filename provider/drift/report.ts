/**
 * The drift and coverage report: for each team, which managed objects are in sync, drifted (field by
 * field) or deleted out of band, which are held by two resources of the state at once (duplicate: the
 * next removal of either deletes the object under the other), which live rules no resource of the
 * state holds (unmanaged, made by hand), less those an ignore file names, and which of those copy a
 * managed rule (copy: delete it or ignore it, never adopt it). One key per team, matched to
 * its team by identity; the state's resources are matched by the `teamId` they recorded. One list of
 * rules per team, one read per managed directory user.
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
  copiesOf,
  firstOfEach,
  hasExplicitProviders,
  heldRuleIds,
  importLine,
  providerOfTeam,
} from "./adopt";
import { ignoredBy, type IgnoreRule } from "./ignore";
import { DriftInputError, ENCRYPTED, type ManagedResource } from "./state";

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
   * Live rules no resource holds with the field and search of a rule the team's resources hold (`of`:
   * its URN), or of an unmanaged rule offered for adoption instead (`of`: its id): delete them by
   * hand, or keep them deliberately in the ignore file; never import.
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

/** True when every team was checked and nothing was found. */
export const isClean = (r: DriftReport) =>
  r.teams.every(
    (t) =>
      t.checked &&
      t.drifted.length === 0 &&
      t.deleted.length === 0 &&
      t.unmanaged.length === 0 &&
      t.duplicate.length === 0 &&
      t.copy.length === 0,
  );

/** The differing fields: state value → live value; encrypted values are not compared. */
function differences(
  pairs: Array<[string, unknown, unknown]>,
): Record<string, { state: unknown; live: unknown }> {
  const fields: Record<string, { state: unknown; live: unknown }> = {};
  for (const [name, state, live] of pairs)
    if (state !== ENCRYPTED && state !== undefined && state !== live) fields[name] = { state, live };
  return fields;
}

function emptyTeam(teamId: string, checked: boolean, managed: number): TeamDrift {
  return {
    teamId,
    checked,
    managed,
    inSync: [],
    drifted: [],
    deleted: [],
    unmanaged: [],
    duplicate: [],
    copy: [],
    ignored: [],
  };
}

/** Sorts a managed object into in sync, drifted or deleted. */
function place(
  team: TeamDrift,
  r: ManagedResource,
  fields: Record<string, { state: unknown; live: unknown }> | null,
) {
  const ref = { id: r.id, urn: r.urn };
  if (fields === null) team.deleted.push(ref);
  else if (Object.keys(fields).length) team.drifted.push({ ...ref, fields });
  else team.inSync.push(ref);
}

/** What checking a team's rules needs from the whole state. */
interface StateView {
  resources: ManagedResource[];
  ignore: IgnoreRule[];
  /** The team a resource of the state belongs to. */
  teamOf: (r: ManagedResource) => string;
}

/** The fields drift compares of a managed object, state value against live value. */
function compared(def: ResourceDefinition<never>, outputs: Record<string, unknown>, live: never) {
  return differences(
    Object.entries(def.drift.fields)
      .filter(([f]) => !def.drift.managedOnly || (outputs[f] !== null && outputs[f] !== undefined))
      .map(([f, get]) => [f, outputs[f], get(live)]),
  );
}

/** The live objects of `mine`, by id, read one at a time (`concurrency` at once); a missing one is absent. */
async function readEach(
  def: ResourceDefinition<never>,
  client: SecOpsClient,
  mine: ManagedResource[],
  concurrency: number,
): Promise<Map<string, never>> {
  const queue = [...mine];
  const live = new Map<string, never>();
  const one = async (r: ManagedResource) => {
    try {
      live.set(r.id, await def.read(client, r.id));
    } catch (err) {
      if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let r = queue.shift(); r; r = queue.shift()) await one(r);
    }),
  );
  return live;
}

/**
 * Sorts the team's objects of one resource into in sync, drifted and deleted, from one list or one
 * read per object as its definition says; then, for a resource whose unmanaged objects are reported,
 * the live ones no resource holds (`adopt` is the command that adopts them).
 */
async function checkKind(
  def: ResourceDefinition<never>,
  team: TeamDrift,
  client: SecOpsClient,
  mine: ManagedResource[],
  view: StateView,
  concurrency: number,
): Promise<HvaRule[]> {
  const listed = def.drift.live === "list" ? await listObjects(client, def.token) : undefined;
  const live = listed
    ? new Map(listed.map((o) => [o.id, o.item as never]))
    : await readEach(def, client, mine, concurrency);
  for (const r of mine) place(team, r, live.has(r.id) ? compared(def, r.outputs, live.get(r.id)!) : null);
  return def.drift.unmanaged && listed
    ? looseRules(
        team,
        listed.map((o) => o.item as HvaRule),
        view,
      )
    : [];
}

/**
 * The live rules no resource holds, less the ignored ones (listed as ignored) and the copies of
 * managed rules (listed as copies): the rules to adopt.
 */
function looseRules(team: TeamDrift, rules: HvaRule[], view: StateView): HvaRule[] {
  const held = heldRuleIds(view.resources, rules);
  const copies = copiesOf(rules, view.resources, held, view.teamOf, team.teamId);
  const loose: HvaRule[] = [];
  for (const rule of rules) {
    if (held.has(rule.id)) continue;
    const reason = ignoredBy(view.ignore, rule);
    const of = copies.get(rule.id);
    if (reason !== undefined) team.ignored.push({ id: rule.id, reason });
    else if (of !== undefined)
      team.copy.push({
        id: rule.id,
        field: rule.searchField ?? "name",
        search: rule.search ?? "",
        enabled: rule.enabled !== false,
        of,
      });
    else loose.push(rule);
  }
  // Identical unmanaged rules: one is offered for adoption, the others are its copies.
  const { kept, copies: twins } = firstOfEach(loose);
  for (const rule of loose.filter((r) => twins.has(r.id)))
    team.copy.push({
      id: rule.id,
      field: rule.searchField ?? "name",
      search: rule.search ?? "",
      enabled: rule.enabled !== false,
      of: twins.get(rule.id)!,
    });
  return kept;
}

/**
 * Names every team's rules to adopt, unique across the whole report: a team whose names another team
 * would also give is prefixed with its team id (and its export line says so), so the files the
 * adoption lines write can be used in one program. Then each rule's import line and the team's export.
 */
function adoptions(
  found: Array<{ team: TeamDrift; loose: HvaRule[]; key: DriftKey }>,
  view: StateView,
  options: DriftOptions,
): void {
  const plain = found.map((f) => new Set(adoptionNames(f.loose, view.resources).map((n) => n.name)));
  const explicit = hasExplicitProviders(view.resources);
  for (const [i, { team, loose, key }] of found.entries()) {
    const clash = plain.some((other, j) => j !== i && [...plain[i]].some((n) => other.has(n)));
    const prefix = clash ? `${team.teamId}-` : "";
    const provider = providerOfTeam(view.resources, team.teamId);
    for (const { name, rule } of adoptionNames(loose, view.resources, prefix))
      team.unmanaged.push({
        id: rule.id,
        field: rule.searchField ?? "name",
        search: rule.search ?? "",
        enabled: rule.enabled !== false,
        import: importLine(name, rule.id, explicit, provider, team.teamId),
      });
    if (team.unmanaged.length) team.adopt = adoptCommand(options, key, team.teamId, prefix);
  }
}

/** Objects held by more than one resource (of one kind), by kind and id: the URNs, sorted. */
function heldTwice(resources: ManagedResource[]): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  for (const r of resources) {
    const key = `${r.kind}\n${r.id}`;
    holders.set(key, [...(holders.get(key) ?? []), r.urn]);
  }
  return new Map([...holders].filter(([, urns]) => urns.length > 1).map(([k, urns]) => [k, urns.sort()]));
}

/**
 * The `secops hva export` line that adopts a team's unmanaged rules, with that team's key and the
 * options the report was made with (its ignore file; the team's name prefix), so the export adopts
 * exactly the rules the report lists as unmanaged, under the names it gives.
 */
function adoptCommand(options: DriftOptions, key: DriftKey, teamId: string, prefix: string): string {
  const flags = [
    `--state ${options.state ?? "<state file>"}`,
    ...(key.name === "SECOPS_API_KEY" ? [] : [`--api-key-env ${key.name}`]),
    ...(options.ignoreFile ? [`--ignore ${options.ignoreFile}`] : []),
    ...(prefix ? [`--name-prefix ${prefix}`] : []),
  ];
  return `secops hva export ${flags.join(" ")} --format typescript --native --out adopt-${teamId}.ts`;
}

/** The teams of the keys, by identity. Two keys of one team are a mistake worth stopping for. */
async function teamsOf(
  clients: Array<{ key: DriftKey; client: SecOpsClient }>,
): Promise<Map<string, { key: DriftKey; client: SecOpsClient }>> {
  const byTeam = new Map<string, { key: DriftKey; client: SecOpsClient }>();
  for (const { key, client } of clients) {
    const { teamId } = await client.getIdentity();
    const other = byTeam.get(teamId);
    if (other)
      throw new DriftInputError(
        `$${other.key.name} and $${key.name} are keys of the same team (${teamId}): give one key per team`,
      );
    byTeam.set(teamId, { key, client });
  }
  return byTeam;
}

/** Builds the report from the state's managed resources and the live API. */
export async function driftReport(resources: ManagedResource[], options: DriftOptions): Promise<DriftReport> {
  const progress = options.progress ?? (() => undefined);
  const clients = options.keys.map((key) => ({
    key,
    client: new SecOpsClient({ apiKey: key.key, baseUrl: options.baseUrl }),
  }));
  try {
    const byTeam = await teamsOf(clients);
    const real = resources.filter((r) => !r.id.startsWith(PENDING_ID_PREFIX));
    // A resource that recorded no team belongs to the one team checked, when there is one.
    const only = byTeam.size === 1 ? [...byTeam.keys()][0] : "";
    const teamOfResource = (r: ManagedResource) => r.teamId ?? only;
    const teamIds = [...new Set([...byTeam.keys(), ...real.map(teamOfResource)])].sort();
    const view: StateView = { resources, ignore: options.ignore ?? [], teamOf: teamOfResource };
    const twice = heldTwice(real);
    const teams: TeamDrift[] = [];
    const found: Array<{ team: TeamDrift; loose: HvaRule[]; key: DriftKey }> = [];
    for (const [i, teamId] of teamIds.entries()) {
      const mine = real.filter((r) => teamOfResource(r) === teamId);
      const access = byTeam.get(teamId);
      const team = emptyTeam(teamId, access !== undefined, mine.length);
      teams.push(team);
      if (!access) continue;
      progress(`team ${teamId} (${i + 1} of ${teamIds.length}): ${mine.length} managed`);
      // An object held twice is its own finding, once, in the team of its first holder.
      const once = mine.filter((r) => !twice.has(`${r.kind}\n${r.id}`));
      for (const r of mine) {
        const urns = twice.get(`${r.kind}\n${r.id}`);
        if (urns?.[0] === r.urn) team.duplicate.push({ id: r.id, urns });
      }
      const loose: HvaRule[] = [];
      for (const { definition } of RESOURCES)
        loose.push(
          ...(await checkKind(
            definition,
            team,
            access.client,
            once.filter((r) => r.kind === definition.name),
            view,
            options.concurrency ?? 8,
          )),
        );
      found.push({ team, loose, key: access.key });
    }
    adoptions(found, view, options);
    return { version: 1, teams };
  } finally {
    await Promise.all(clients.map((c) => c.client.close()));
  }
}
