/**
 * Node 26 has an experimental built-in module, `node:ffi`. Pulumi's closure serializer
 * (`@pulumi/pulumi` runtime/closure/createClosure.js, `computeBuiltInModules`, as of 3.270) requires
 * every built-in module to recognise them in captured values, so every program with a dynamic
 * resource printed "ExperimentalWarning: FFI is an experimental feature" on Node 26 although nothing
 * uses FFI. That warning is dropped when, and only when, it is raised from inside that function; any
 * other warning, and FFI's own warning for code that uses it, still reach stderr.
 */
const INSTALLED = Symbol.for("pulumi-secops.quiet-ffi");

type EmitWarning = typeof process.emitWarning;

/** True when called from Pulumi's scan of the built-in modules (the require chain is deep: look far). */
function fromPulumiScan(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  try {
    return /computeBuiltInModules/.test(new Error().stack ?? "");
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Installs the filter once per process. */
export function quietPulumiFfiScan(): void {
  const host = process as unknown as Record<symbol, boolean>;
  if (host[INSTALLED]) return;
  host[INSTALLED] = true;
  const emit: EmitWarning = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith("FFI is an experimental feature") && fromPulumiScan())
      return;
    return (emit as (...a: unknown[]) => void)(warning, ...rest);
  }) as EmitWarning;
}
