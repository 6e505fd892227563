/** Runs a Pulumi program under `pulumi.runtime.setMocks` and records what reached the engine. */
import * as pulumi from "@pulumi/pulumi";

export interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/** Installs mocks that record every resource; returns the record. */
export async function installMocks(config: Record<string, string> = {}): Promise<Registered[]> {
  const seen: Registered[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        seen.push({ type: args.type, name: args.name, inputs: args.inputs });
        return { id: `${args.name}-id`, state: args.inputs };
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
