/**
 * The serialized provider (STYLE practice 2). Pulumi stores the provider object in state by value;
 * this shim's methods only `require` the implementation by the package's own name at call time, so
 * the serialized text holds that name and nothing else: no client, no schema, no credential.
 *
 * Size: Pulumi wraps every serialized function in about 180 bytes of scaffolding, so seven methods
 * alone pass 2 KB. The host calls configure(req), check(olds, news), create(props) and
 * read(id, props) with distinguishable arguments, so one function serves those four and the
 * implementation routes them ({@link route}); diff, update and delete (whose argument shapes
 * collide) keep their own. The result is about 1.3 KB.
 *
 * Compatibility promise: the module paths passed here (`pulumi-secops/resources/<name>`) stay
 * exported and keep exporting `provider` with these methods, because existing stack state loads them.
 */
import type * as pulumi from "@pulumi/pulumi";

/** What an implementation module's `provider` export offers. */
export interface Implementation {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
  check(olds: unknown, news: unknown): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: unknown, news: unknown): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: unknown): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props: unknown): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, olds: unknown, news: unknown): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, props: unknown): Promise<void>;
  /** Routes the shared shim function (see {@link route}). */
  route(...args: unknown[]): Promise<unknown>;
}

/**
 * Routes a call of the shared shim function by the host's argument shapes:
 * configure(req) has `req.config`; create(props) is the other one-argument call;
 * read(id, props) starts with the id string; check(olds, news) starts with an object.
 */
export function route(impl: Omit<Implementation, "route">, args: unknown[]): Promise<unknown> {
  const [a, b] = args;
  if (args.length === 1) {
    const req = a as pulumi.dynamic.ConfigureRequest;
    return req && typeof req === "object" && req.config && typeof req.config.get === "function"
      ? impl.configure(req)
      : impl.create(a);
  }
  return typeof a === "string" ? impl.read(a, b) : impl.check(a, b);
}

/** Builds the shim for the implementation module `m` (which exports `provider`). */
export function shim(m: string): pulumi.dynamic.ResourceProvider {
  const p = (...a: unknown[]) => require(m).provider.route(...a);
  return {
    configure: p,
    check: p,
    create: p,
    read: p,
    diff: (i, o, n) => require(m).provider.diff(i, o, n),
    update: (i, o, n) => require(m).provider.update(i, o, n),
    delete: (i, o) => require(m).provider.delete(i, o),
  };
}
