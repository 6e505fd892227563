/** The URN the engine would give a top-level resource. */
export function urnOfParts(project: string, stack: string, type: string, name: string): string {
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}
