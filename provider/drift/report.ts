/**
 * The drift and coverage report, per team (one key each, matched by identity; resources by their
 * recorded `teamId`): managed objects in sync, drifted or deleted; objects two resources hold, and
 * identical rules two resources hold one each (duplicate); live rules no resource holds (unmanaged),
 * less the ignored ones and those identical to another (never adopted); rules the team's other stacks
 * hold (managed there: never unmanaged, never adopted).
 */
import { SecOpsClient } from "../client/client";
import { ErrorCodes, isSecOpsError } from "../client/errors";
import type { HvaRule } from "../client/types";
import type { ResourceDefinition } from "../resources/framework/definition";
import { listObjects } from "../resources/framework/listing";
import { RESOURCES } from "../resources/framework/registry";
import { PENDING_ID_PREFIX } from "../resources/framework/runtime";
import {
  adoptExistingLine,
  adoptionNames,
  hasExplicitProviders,
  heldInputs,
  identityOf,
  importLine,
  isDynamicTeam,
  providerOfTeam,
  ruleRow,
  sortLoose,
  type StateView,
} from "./adopt";
import { DriftInputError, ENCRYPTED, type IgnoreRule, type ManagedResource, type StackExport } from "./state";

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
  /**
   * Objects held by more than one resource (of this stack, or of this stack and another given one):
   * each with every URN that holds it. With `ids`, two or more identical rules (one field and search
   * in one team), each held by its own resource: `ids[i]` is the rule `urns[i]` holds.
   */
  duplicate: Array<{ id: string; urns: string[]; ids?: string[] }>;
  /**
   * Unheld live rules identical to a held rule (`of`: its URN) or to an unmanaged one offered instead
   * (`of`: its id), counted as "identical": never imported, never advised for deletion.
   */
  copy: Array<{ id: string; field: string; search: string; enabled: boolean; of: string }>;
  ignored: Array<{ id: string; reason: string }>;
  /** Live rules another given stack holds (`stack`: its name; `urn`: its resource there). */
  otherStacks: Array<{
    id: string;
    field: string;
    search: string;
    enabled: boolean;
    stack: string;
    urn: string;
  }>;
  /**
   * The `secops hva export` command that writes TypeScript adopting the unmanaged rules (when any, and
   * no other given stack holds rules of the team: the export reads one state).
   */
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
  /**
   * The exports of the teams' other stacks: the rules they hold are "managed by" them, never
   * unmanaged; a rule they hold too, or an identical one, is a duplicate.
   */
  others?: StackExport[];
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
  ["copy", "identical"],
  ["ignored", "ignored"],
  ["otherStacks", "in other stacks"],
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
  const theirs = (ctx.others ?? []).flatMap((o) =>
    o.resources.filter((r) => r.kind === def.name && ctx.teamOf(r) === team.teamId && !isPending(r)),
  );
  team.duplicate.push(...heldIdentical(mine, theirs, new Map(rules.map((r) => [r.id, r]))));
  const { ignored, copies, twins, kept, elsewhere } = sortLoose(rules, ctx, team.teamId);
  team.ignored.push(...ignored);
  team.copy.push(...[...copies, ...twins].map((c) => ({ ...ruleRow(c.rule), of: c.of })));
  team.otherStacks.push(...elsewhere.map((e) => ({ ...ruleRow(e.rule), stack: e.stack, urn: e.urn })));
  return kept;
}

const isPending = (r: ManagedResource) => r.id.startsWith(PENDING_ID_PREFIX);

/**
 * Identical live rules (one field and search) each held by a resource of its own, this stack's
 * (`mine`) first, then another stack's (`theirs`): two rules where the team should have one. Each
 * group names every rule and its holder; a group of other stacks' rules alone is theirs to report.
 */
function heldIdentical(
  mine: ManagedResource[],
  theirs: ManagedResource[],
  live: ReadonlyMap<string, HvaRule>,
): TeamDrift["duplicate"] {
  const byUrn = (a: ManagedResource, b: ManagedResource) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0);
  const groups = new Map<string, Map<string, string>>();
  for (const r of [...[...mine].sort(byUrn), ...[...theirs].sort(byUrn)]) {
    if (!live.has(r.id)) continue;
    const key = identityOf(heldInputs(r, live));
    const holders = groups.get(key) ?? new Map<string, string>();
    if (!holders.has(r.id)) holders.set(r.id, r.urn);
    groups.set(key, holders);
  }
  const mineUrns = new Set(mine.map((r) => r.urn));
  return [...groups.values()]
    .filter((g) => g.size > 1 && [...g.values()].some((urn) => mineUrns.has(urn)))
    .map((g) => ({ id: [...g.keys()][0], urns: [...g.values()], ids: [...g.keys()] }));
}

/** Each team's rules to adopt, named uniquely across teams (so the files fit one program), with commands. */
function adoptions(
  found: Array<{ team: TeamDrift; loose: HvaRule[]; key: DriftKey }>,
  resources: ManagedResource[],
  options: DriftOptions,
  teamOf: (r: ManagedResource) => string,
): void {
  const plain = found.map((f) => new Set(adoptionNames(f.loose, resources).map((n) => n.name)));
  const explicit = hasExplicitProviders(resources);
  for (const [i, { team, loose, key }] of found.entries()) {
    const clash = plain.some((other, j) => j !== i && [...plain[i]].some((n) => other.has(n)));
    const prefix = clash ? `${team.teamId}-` : "";
    const provider = providerOfTeam(resources, team.teamId);
    // A stack of dynamic resources adopts with adoptExisting: the engine cannot import dynamic ones.
    const dynamic = isDynamicTeam(resources, teamOf, team.teamId);
    for (const { name, rule } of adoptionNames(loose, resources, prefix))
      team.unmanaged.push({
        ...ruleRow(rule),
        import: dynamic
          ? adoptExistingLine(name, rule)
          : importLine(name, rule.id, explicit, provider, team.teamId),
      });
    // The export reads one state: where another stack holds rules of the team, it would offer them.
    const elsewhere = (options.others ?? []).some((o) => o.resources.some((r) => teamOf(r) === team.teamId));
    if (!team.unmanaged.length || elsewhere) continue;
    // The `secops hva export` line adopting exactly the team's unmanaged rules, under the report's names.
    const flags = [
      `--state ${options.state ?? "<state file>"}`,
      ...(key.name === "SECOPS_API_KEY" ? [] : [`--api-key-env ${key.name}`]),
      ...(options.ignoreFile ? [`--ignore ${options.ignoreFile}`] : []),
      ...(prefix ? [`--name-prefix ${prefix}`] : []),
    ];
    const native = dynamic ? "" : " --native";
    team.adopt = `secops hva export ${flags.join(" ")} --format typescript${native} --out adopt-${team.teamId}.ts`;
  }
}

/** The kind and id of the object a resource holds. */
const objectOf = (r: ManagedResource) => `${r.kind}\n${r.id}`;

/**
 * Objects held by more than one resource (of one kind), by kind and id: the URNs, this stack's
 * (`mine`) first, then the other stacks'; only objects one of this stack's resources holds.
 */
function heldTwice(mine: ManagedResource[], theirs: ManagedResource[]): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  for (const r of [...mine, ...theirs])
    holders.set(objectOf(r), [...(holders.get(objectOf(r)) ?? []), r.urn]);
  const ours = new Set(mine.map((r) => r.urn));
  const ordered = (urns: string[]) => [
    ...urns.filter((u) => ours.has(u)).sort(),
    ...urns.filter((u) => !ours.has(u)).sort(),
  ];
  return new Map(
    [...holders]
      .filter(([, urns]) => urns.length > 1 && urns.some((u) => ours.has(u)))
      .map(([k, urns]) => [k, ordered(urns)]),
  );
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
    const real = resources.filter((r) => !isPending(r));
    // A resource that recorded no team belongs to the one team checked, when there is one.
    const only = byTeam.size === 1 ? [...byTeam.keys()][0] : "";
    const teamOf = (r: ManagedResource) => r.teamId ?? only;
    const teamIds = [...new Set([...byTeam.keys(), ...real.map(teamOf)])].sort();
    const others = options.others ?? [];
    const twice = heldTwice(
      real,
      others.flatMap((o) => o.resources.filter((r) => !isPending(r))),
    );
    const shared = {
      resources,
      ignore: options.ignore ?? [],
      teamOf,
      others,
      concurrency: options.concurrency ?? 8,
    };
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
    adoptions(found, resources, options, teamOf);
    return { version: 1, teams };
  } finally {
    await Promise.all(clients.map((c) => c.client.close()));
  }
}
