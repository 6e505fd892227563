/** Runs a Pulumi program under `pulumi.runtime.setMocks` and records what reached the engine. */
import { runInNewContext } from "node:vm";
import * as pulumi from "@pulumi/pulumi";

export interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/**
 * Installs mocks that record every resource; returns the record. `state` is what the engine answers
 * for a resource (default: its inputs); outputs only the API sets (a rule's `teamId`) go there.
 */
export async function installMocks(
  config: Record<string, string> = {},
  state: (inputs: Record<string, unknown>) => Record<string, unknown> = (inputs) => inputs,
): Promise<Registered[]> {
  const seen: Registered[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        seen.push({ type: args.type, name: args.name, inputs: args.inputs });
        return { id: `${args.name}-id`, state: state(args.inputs) };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    false,
  );
  for (const [k, v] of Object.entries(config)) pulumi.runtime.setConfig(k, v);
  return seen;
}

/** Resolves an Output's value under mocks. */
export function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply((v) => resolve(v)));
}

/**
 * Evaluates a serialized dynamic provider (the `__provider` input) as the dynamic-provider host does,
 * in a fresh context whose `require` records each name asked for and answers `implementation`.
 */
export function loadSerializedProvider(
  text: string,
  implementation: unknown,
): { provider: pulumi.dynamic.ResourceProvider; required: string[] } {
  const required: string[] = [];
  const sandbox = {
    exports: {} as { handler?: () => pulumi.dynamic.ResourceProvider },
    require: (name: string) => {
      required.push(name);
      return implementation;
    },
  };
  runInNewContext(text, sandbox);
  return { provider: sandbox.exports.handler!(), required };
}

/**
 * Resolves once the mocks have seen each resource registered (its URN resolves after `newResource`
 * answered) and each Output has a value: an event to wait on, not a guessed delay.
 */
export async function allRegistered(
  ...things: Array<pulumi.Resource | pulumi.Output<unknown>>
): Promise<void> {
  await Promise.all(
    things.map(
      (t) =>
        new Promise<void>((resolve) =>
          (pulumi.Output.isInstance(t) ? t : (t as pulumi.Resource).urn).apply(() => resolve()),
        ),
    ),
  );
}
