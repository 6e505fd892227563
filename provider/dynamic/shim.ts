/**
 * The serialized provider. Pulumi stores the provider object in state by value;
 * this shim's methods only `require` the implementation by the package's own name at call time, so
 * the serialized text holds that name and nothing else: no client, no schema, no credential.
 *
 * Size: Pulumi wraps every serialized function in about 180 bytes of scaffolding, so seven methods
 * alone pass 2 KB. configure, check, create and read share one function that the implementation
 * routes by argument shapes (protocol v1, see `resources/framework/shim-target.ts`); diff, update and delete,
 * whose shapes collide, keep their own. The result is about 1.5 KB (`npm run bench` prints it).
 */
import type * as pulumi from "@pulumi/pulumi";

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
