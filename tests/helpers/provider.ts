/** Helpers for calling resource implementations directly, as the host would. */
import * as pulumi from "@pulumi/pulumi";

/** A ConfigureRequest like the host's: full keys, secrets unwrapped. */
export function configureRequest(values: Record<string, string>): pulumi.dynamic.ConfigureRequest {
  return { config: { get: (k: string) => values[k] } } as pulumi.dynamic.ConfigureRequest;
}

/** Captures pulumi.log.warn messages for the current test (restored by jest.restoreAllMocks). */
export function captureWarnings(): string[] {
  const warnings: string[] = [];
  jest.spyOn(pulumi.log, "warn").mockImplementation(async (m: string) => void warnings.push(m));
  return warnings;
}

/** A dynamic implementation as the host calls it: untyped property bags, like the host's. */
export type HostView = Required<pulumi.dynamic.ResourceProvider> & {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
  route(...args: unknown[]): Promise<unknown>;
};

/** Views a typed implementation the way the host sees it (tests pass partial and wrong inputs). */
export const asHost = (p: object): HostView => p as HostView;
