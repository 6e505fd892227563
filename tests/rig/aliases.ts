/**
 * The `aliases` resource option, as the engine resolves it: Pulumi's mocks drop the aliases a program
 * registers, so the runner reads them off the RegisterResource requests on their way to the mocks and
 * turns each into the URN it names (a full URN as given; a spec's name, type, stack and project
 * defaulting to the resource's own). Parents are not modelled: the runner's URNs are top-level ones.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Alias } from "@pulumi/pulumi/proto/alias_pb";
import { urnOfParts } from "./urns";

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getAliasesList?(): Alias[];
}

/** The URNs an alias list names, for a resource of `type` and `name` in `project`/`stack`. */
function aliasUrns(aliases: Alias[], project: string, stack: string, type: string, name: string): string[] {
  return aliases.map((a) => {
    if (a.hasUrn()) return a.getUrn();
    const spec = a.getSpec();
    return urnOfParts(
      spec?.getProject() || project,
      spec?.getStack() || stack,
      spec?.getType() || type,
      spec?.getName() || name,
    );
  });
}

/**
 * Starts recording the aliases of every resource the program registers from now on (call right after
 * `setMocks`); returns a lookup by type and name.
 */
export function recordAliases(project: string, stack: string): (type: string, name: string) => string[] {
  const seen = new Map<string, string[]>();
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: RegisterRequest, cb: unknown): unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) => {
    const aliases = req.getAliasesList?.() ?? [];
    const [type, name] = [req.getType(), req.getName()];
    if (aliases.length) seen.set(`${type}::${name}`, aliasUrns(aliases, project, stack, type, name));
    return register(req, cb);
  };
  return (type, name) => seen.get(`${type}::${name}`) ?? [];
}
