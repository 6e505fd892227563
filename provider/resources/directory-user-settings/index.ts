/**
 * DirectoryUserSettings' implementation, shared by both front-ends: only the flags set are managed
 * (written and diffed). `provider` is what the dynamic shim loads.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, SecOpsApiError, isSecOpsError } from "../../client/errors";
import type { DirectoryUser } from "../../client/types";
import type { ResourceContext, ResourceImplementation } from "../framework/context";
import { checkResult, diffInputs, fromApi } from "../framework/definition";
import {
  assertTeam,
  cannotImport,
  explainForbidden,
  isPendingId,
  isUnknown,
  sameTeamIfKnown,
} from "../framework/runtime";
import { Declarations } from "../framework/declarations";
import { dynamicImplementation } from "../framework/shim-target";
import {
  definition,
  USER_FLAGS,
  type DirectoryUserSettingsInputs,
  type DirectoryUserSettingsOutputs,
  type UserFlag,
} from "./definition";

export {
  definition,
  USER_FLAGS,
  type DirectoryUserSettingsInputs,
  type DirectoryUserSettingsOutputs,
  type UserFlag,
} from "./definition";

/** The flags the inputs set: the managed ones. */
const managed = (inputs: Partial<Record<UserFlag, unknown>>) =>
  USER_FLAGS.filter((f) => inputs[f] !== undefined && inputs[f] !== null);

/** The outputs: the user's values as the API answered them, and what this resource keeps itself. */
const outputs = (
  user: DirectoryUser,
  previousValues: DirectoryUserSettingsOutputs["previousValues"],
  restoreOnDelete: boolean,
): DirectoryUserSettingsOutputs => ({ ...fromApi(definition, user), previousValues, restoreOnDelete });

/** Reads the user, or undefined when this API offers no read route (strict-spec). */
const readUser = (client: SecOpsClient, id: string): Promise<DirectoryUser | undefined> =>
  client.getDirectoryUser(id).catch((err: unknown) => {
    if (isSecOpsError(err, ErrorCodes.UNSUPPORTED)) return undefined;
    throw err;
  });

/** PATCHes the flags; a 403 says the key's role. */
const patch = (client: SecOpsClient, id: string, flags: Partial<Record<UserFlag, boolean>>) =>
  client.updateDirectoryUser(id, flags).catch(async (err: unknown) => {
    throw await explainForbidden(client, err);
  });

const pick = (from: Partial<Record<UserFlag, unknown>>, flags: readonly UserFlag[]) =>
  Object.fromEntries(flags.map((f) => [f, from[f]])) as Partial<Record<UserFlag, boolean>>;

/** Why a second resource managing one directory user is refused. */
export const duplicateUserReason = (other: string, user: string) =>
  `directory user ${JSON.stringify(user)} is already managed by ${other} under the same secops ` +
  "provider: two resources setting one user's flags undo each other on every up. Manage each user " +
  "in one DirectoryUserSettings (a renamed resource keeps its user with the aliases option: " +
  "aliases: [its old URN])";

/** The implementation for one provider instance. */
export class DirectoryUserSettingsImpl implements ResourceImplementation<
  DirectoryUserSettingsInputs,
  DirectoryUserSettingsOutputs
> {
  /** Which resource manages which user in this run. */
  readonly #declared = new Declarations("directoryUserId", duplicateUserReason);
  /** Users taken over or shown held in this run, with the URN if known: another's delete restores nothing. */
  readonly #imported = new Map<string, string | undefined>();

  constructor(private readonly ctx: ResourceContext) {}

  /** Checks the inputs; a second resource of this provider managing the same user is refused. */
  async check(
    _olds: unknown,
    news: unknown,
    urn = this.ctx.urn?.(),
  ): Promise<pulumi.dynamic.CheckResult<DirectoryUserSettingsInputs>> {
    const checked = checkResult<DirectoryUserSettingsInputs>(definition, news);
    // Without failures, directoryUserId is a string (perhaps not known yet in preview).
    const user = checked.inputs.directoryUserId;
    return this.#declared.checked(checked, isUnknown(user) ? undefined : user, urn);
  }

  async diff(
    id: string,
    olds: DirectoryUserSettingsOutputs,
    news: DirectoryUserSettingsInputs,
  ): Promise<pulumi.dynamic.DiffResult> {
    await sameTeamIfKnown(this.ctx, olds?.teamId, `directory user ${id}`);
    const diff = diffInputs(definition, olds, news);
    // The old user is restored (if asked) before the new one is taken over.
    if (diff.replaces.length) return { ...diff, deleteBeforeReplace: true };
    // A resource that keeps its user holds it (a create's mark from this run stays).
    const urn = this.ctx.urn?.();
    if (urn && !isPendingId(id) && !this.#imported.has(id)) this.#imported.set(id, urn);
    // A flag no longer set is no longer managed: a change too (the values to restore shrink).
    const was = Object.keys(olds.previousValues ?? {}).sort();
    return { ...diff, changes: diff.changes || managed(news).sort().join() !== was.join() };
  }

  async create(
    inputs: DirectoryUserSettingsInputs,
  ): Promise<pulumi.dynamic.CreateResult<DirectoryUserSettingsOutputs>> {
    // Asked again before the PATCH: the engine checks resources while creates already run.
    const alone = () => this.#declared.refuseContender(inputs.directoryUserId, this.ctx.urn?.());
    alone();
    // Every create takes the flags over: a resource leaving in this run (renamed without aliases) must
    // not restore them afterwards. Without a URN (the dynamic host) the two cannot be told apart.
    const urn = this.ctx.urn?.();
    if (urn) this.#imported.set(inputs.directoryUserId, urn);
    const client = await this.ctx.client();
    const flags = managed(inputs);
    const before = await readUser(client, inputs.directoryUserId);
    if (!before && inputs.restoreOnDelete) {
      throw new SecOpsApiError(
        ErrorCodes.UNSUPPORTED,
        `restoreOnDelete needs the values ${inputs.directoryUserId} has now, but this API offers no way to read a directory user (GET /v1/directory/{id}); remove restoreOnDelete or use an API that has the route`,
        { field: "restoreOnDelete" },
      );
    }
    const previousValues = Object.fromEntries(flags.map((f) => [f, before ? (before[f] ?? null) : null]));
    alone();
    const user = await patch(client, inputs.directoryUserId, pick(inputs, flags));
    return { id: user.id, outs: outputs(user, previousValues, inputs.restoreOnDelete) };
  }

  /** Refresh, or import (`props` undefined): all three flags managed, at current values (also restored). */
  async read(
    id: string,
    props?: DirectoryUserSettingsOutputs,
  ): Promise<pulumi.dynamic.ReadResult<DirectoryUserSettingsOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `directory user ${id}`);
    const user = await readUser(client, id).catch((err: unknown) => {
      if (isSecOpsError(err, ErrorCodes.NOT_FOUND)) return null;
      throw err;
    });
    if (user === null) return {};
    if (!user && !props) throw cannotImport(`directory user ${id}`, undefined);
    if (!user) {
      this.ctx.warn(
        "user-read",
        "secops: the API offers no route to read directory users; state was kept as it is and drift detection is unavailable for DirectoryUserSettings",
      );
      return { id, props };
    }
    if (!props) {
      this.#imported.set(id, this.ctx.urn?.());
      const current = Object.fromEntries(USER_FLAGS.map((f) => [f, user[f] ?? null]));
      return { id, props: outputs(user, current, false) };
    }
    return { id, props: outputs(user, props.previousValues ?? {}, props.restoreOnDelete ?? false) };
  }

  async update(
    id: string,
    olds: DirectoryUserSettingsOutputs,
    news: DirectoryUserSettingsInputs,
  ): Promise<pulumi.dynamic.UpdateResult<DirectoryUserSettingsOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, olds?.teamId, `directory user ${id}`);
    const flags = managed(news);
    // A newly managed flag's previous value is the last value seen before we took it over.
    const previousValues = Object.fromEntries(
      flags.map((f) => [f, f in (olds.previousValues ?? {}) ? olds.previousValues[f] : (olds[f] ?? null)]),
    );
    const changed = flags.filter((f) => news[f] !== olds[f]);
    if (changed.length === 0)
      return { outs: { ...olds, previousValues, restoreOnDelete: news.restoreOnDelete ?? false } };
    const user = await patch(client, id, pick(news, changed));
    return { outs: outputs(user, previousValues, news.restoreOnDelete ?? false) };
  }

  async delete(id: string, props: DirectoryUserSettingsOutputs): Promise<void> {
    // An interrupted create only PATCHed flags (idempotent): nothing to remove, the next create re-sends it.
    if (isPendingId(id) || !props.restoreOnDelete) return;
    if (this.#imported.has(id) && (this.#imported.get(id) ?? "") !== (this.ctx.urn?.() ?? "-")) {
      this.ctx.warn(
        `user-kept-${id}`,
        `secops: directory user ${id}'s flags were not restored: another resource of this stack took the user over in this run and manages it now; only this resource left the stack`,
      );
      return;
    }
    const restore = Object.fromEntries(
      Object.entries(props.previousValues ?? {}).filter(([, v]) => typeof v === "boolean"),
    );
    if (Object.keys(restore).length === 0) return;
    const client = await this.ctx.client();
    await assertTeam(client, props.teamId, `directory user ${id}`);
    await patch(client, id, restore).catch((err: unknown) => {
      if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
    });
  }
}

/** The implementation the dynamic shim loads (`pulumi-secops/resources/directory-user-settings`). */
export const provider = dynamicImplementation((ctx) => new DirectoryUserSettingsImpl(ctx));
