/**
 * The plugin process gives its C heap's free memory back to the system once its calls stop (issue
 * 22). glibc's malloc returns only the top of its heap: the buffers of a burst of calls (socket reads,
 * HTTP parsers, compiler zones) leave free pages below live ones, which it keeps for good. On Node 26
 * that was 3-6 MB per plugin after 1,000 creates, up to half of what the plugin grew under load.
 * `malloc_trim(0)` gives them back, in about 0.1 ms.
 *
 * When: each second from the first second without an API call to a minute after the last, so that
 * what V8's GCs free in that time is given back too (its memory reducer collected an idle plugin's
 * heap 10-20 s after the last call here); never during a burst of calls, never in a plugin idle longer.
 *
 * How: glibc's `malloc_trim` through `node:ffi` (Node 26, experimental). Where either is missing (Node
 * 22, musl, `--no-experimental-ffi`, the permission model without `--allow-ffi`), or with
 * SECOPS_PLUGIN_TRIM=0, nothing changes. The plugin's entry arms it, and it loads the FFI at the first
 * call that needs the API: a plugin that only answers the handshake never pays for it.
 */

/** Trims happen this long after the last API call at the earliest, then each TICK_MS... */
const TICK_MS = 1_000;
/** ...until this long after it. */
const WINDOW_MS = 60_000;

/** The plugin's trimming of its C heap. */
export interface HeapTrimmer {
  /** True when glibc's malloc_trim was found through node:ffi (false before the first `touch`). */
  readonly available: boolean;
  /** Trims done so far. */
  readonly trims: number;
  /** An API call now: the next trims are counted from it. */
  touch(): void;
}

type Ffi = {
  dlopen(
    path: string,
    symbols: Record<string, { return: string; arguments: string[] }>,
  ): { functions: Record<string, ((...args: unknown[]) => unknown) | undefined> };
};

const FFI_WARNING = "FFI is an experimental feature";

/**
 * glibc's `malloc_trim(0)` through node:ffi, or undefined where it cannot be had. node:ffi's
 * experimental warning, raised as it loads, is kept off stderr (the engine shows a plugin's stderr to
 * the user, and nothing in it is theirs to act on); any other warning passes.
 */
export function mallocTrim(): (() => void) | undefined {
  if (process.env.SECOPS_PLUGIN_TRIM === "0") return undefined;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith(FFI_WARNING)) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const ffi = require("node:ffi") as Ffi;
    const symbols = { malloc_trim: { return: "i32", arguments: ["u64"] } };
    const trim = ffi.dlopen("libc.so.6", symbols).functions.malloc_trim;
    return typeof trim === "function" ? () => void trim(0n) : undefined;
  } catch {
    return undefined; // no node:ffi, no glibc, or not allowed: the heap is simply not trimmed
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * A trimmer; `trim` defaults to `mallocTrim()`, found at the first `touch`. A trim that throws ends
 * the trimming (never the process).
 */
export function heapTrimmer(trim?: () => void): HeapTrimmer {
  let found: (() => void) | undefined | null = trim ?? null;
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  const state = {
    available: trim !== undefined,
    trims: 0,
    touch(): void {
      last = Date.now();
      if (found === null) {
        found = mallocTrim();
        state.available = found !== undefined;
      }
      if (found && !timer) timer = setInterval(tick, TICK_MS).unref();
    },
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const tick = () => {
    const idle = Date.now() - last;
    if (idle < TICK_MS) return; // calls still coming
    try {
      found!();
    } catch {
      // An experimental FFI that changed under us: the plugin serves on, untrimmed, for good.
      found = undefined;
      state.available = false;
      return stop();
    }
    state.trims++;
    if (idle >= WINDOW_MS) stop();
  };
  return state;
}
