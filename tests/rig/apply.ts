/**
 * Applying a planned step to the state through its provider process: create (its intent journaled
 * before the request), update, replace (honouring deleteBeforeReplace), delete and import; and a
 * partial failure recorded so nothing is orphaned.
 */
import { heldMessage, holderOf } from "./conflicts";
import { InitFailedError, type ProviderProcess } from "./host";
import { describe, type Planned } from "./plan";
import type { DeclaredResource } from "./program";
import { isNative, type ProviderRef } from "./providers";
import type { Journal } from "./journal";
import { upsert, type PendingCreate, type State, type StateResource } from "./state";

/** What applying needs from the runner. */
export interface ApplyContext {
  state: State;
  provider(ref: ProviderRef): Promise<ProviderProcess>;
  /** Where each change goes before the next request. */
  journal: Journal;
}

/** Where a resource in the state is served. */
export const refOf = (r: StateResource): ProviderRef => ({ type: r.type, provider: r.providerUrn });
/** The explicit provider of a declared native resource, as stored in the state. */
export const providerOf = (d: DeclaredResource) =>
  d.provider && isNative(d.type) ? { providerUrn: d.provider } : {};

const remove = (state: State, urn: string) => {
  state.resources = state.resources.filter((r) => r.urn !== urn);
};

/** Creates with the intent written first: a runner killed mid-create leaves it for the next run. */
async function create(
  ctx: ApplyContext,
  d: DeclaredResource,
  inputs: Record<string, unknown>,
): Promise<void> {
  const { state } = ctx;
  const host = await ctx.provider(d);
  const intent: PendingCreate = { ...describe(d), ...providerOf(d), inputs, at: new Date().toISOString() };
  (state.pending ??= []).push(intent);
  ctx.journal.intent(intent);
  let made: StateResource | undefined;
  try {
    const res = await host.create(d.urn, inputs);
    made = { ...describe(d), ...providerOf(d), id: res.id, inputs, outputs: res.properties };
  } catch (err) {
    // Partial failure: the object exists; track it so it is never orphaned.
    if (err instanceof InitFailedError)
      made = { ...describe(d), ...providerOf(d), id: err.id, inputs, outputs: err.properties };
    throw err;
  } finally {
    // Answered (success or an error the provider settled itself): the outcome is known.
    if (made) upsert(state, made);
    state.pending = state.pending?.filter((x) => x !== intent);
    if (state.pending?.length === 0) delete state.pending;
    ctx.journal.answered(intent, made);
  }
}

async function destroyOld(ctx: ApplyContext, old: StateResource): Promise<void> {
  await (await ctx.provider(refOf(old))).delete(old.id, old.urn, old.outputs);
  remove(ctx.state, old.urn);
  ctx.journal.resource(ctx.state, old.urn);
}

/** Puts `r` in the state and the journal; `was`, the URN an alias found it by, leaves the state. */
function record(ctx: ApplyContext, urn: string, r: StateResource, was = urn): void {
  if (was !== urn) {
    remove(ctx.state, was);
    ctx.journal.resource(ctx.state, was);
  }
  upsert(ctx.state, r);
  ctx.journal.resource(ctx.state, urn);
}

/** Applies one planned step (a step with nothing to do returns at once). */
export async function applyPlanned(ctx: ApplyContext, p: Planned): Promise<void> {
  switch (p.op) {
    case "same":
      if (p.moved) {
        const { declared, inputs, old } = p.moved;
        return record(
          ctx,
          declared.urn,
          { ...old, ...describe(declared), ...providerOf(declared), inputs },
          old.urn,
        );
      }
      return;
    case "refused":
      return;
    case "import":
      return record(ctx, p.declared.urn, {
        ...describe(p.declared),
        ...providerOf(p.declared),
        id: p.imported.id,
        inputs: p.inputs,
        outputs: p.imported.outputs,
      });
    case "create":
      return create(ctx, p.declared, p.inputs);
    case "update": {
      const res = await (
        await ctx.provider(p.declared)
      ).update(p.old.id, p.declared.urn, p.old.outputs, p.inputs);
      const updated = { ...p.old, ...describe(p.declared), ...providerOf(p.declared) };
      return record(
        ctx,
        p.declared.urn,
        { ...updated, inputs: p.inputs, outputs: res.properties },
        p.old.urn,
      );
    }
    case "delete":
      return destroyOld(ctx, p.old);
    case "replace":
      return replace(ctx, p);
  }
}

/** Replaces: delete first when the provider asks, else create, then delete the old object. */
async function replace(ctx: ApplyContext, p: Extract<Planned, { op: "replace" }>): Promise<void> {
  if (p.deleteBeforeReplace) {
    await destroyOld(ctx, p.old);
    return create(ctx, p.declared, p.inputs);
  }
  await create(ctx, p.declared, p.inputs);
  // The replacement is in the state under the new URN: only the old object goes. Until its
  // delete succeeds it stays in the state, marked for deletion, as the engine keeps it.
  (ctx.state.pendingDeletes ??= []).push(p.old);
  if (p.old.urn !== p.declared.urn) {
    const made = ctx.state.resources.find((r) => r.urn === p.declared.urn)!;
    record(ctx, p.declared.urn, made, p.old.urn);
  }
  await (await ctx.provider(refOf(p.old))).delete(p.old.id, p.old.urn, p.old.outputs);
  ctx.state.pendingDeletes = ctx.state.pendingDeletes.filter((x) => x !== p.old);
  if (!ctx.state.pendingDeletes.length) delete ctx.state.pendingDeletes;
}

/** Adopts an object by id (`pulumi import`): Read with the id alone returns inputs and properties. */
export async function importById(
  ctx: ApplyContext,
  target: { urn: string; type: string; name: string; id: string; providerUrn?: string },
): Promise<string | undefined> {
  const { urn, type, name, id, providerUrn } = target;
  if (!isNative(type)) return `${type} cannot be imported: only native resources can (secops:index:*)`;
  if (ctx.state.resources.some((r) => r.urn === urn)) return `${urn} is already in the state`;
  const holder = holderOf(ctx.state, type, id, urn);
  if (holder) return heldMessage(urn, id, holder); // before the Read: nothing is sent
  const read = await (await ctx.provider({ type, provider: providerUrn })).read(id, urn, {}, {});
  if (!read.id) return `import: no ${type} with id ${id} exists`;
  upsert(ctx.state, {
    urn,
    type,
    name,
    id: read.id,
    inputs: read.inputs,
    outputs: read.properties,
    ...(providerUrn ? { providerUrn } : {}),
  });
  return undefined;
}
