/**
 * What the simulator's server and its control API share: the server context (store, faults,
 * counters) and how a handler's result is written. Both import this module; neither imports the other
 * for it.
 */
import type { ServerResponse } from "node:http";
import type { Result } from "./api";
import type { Faults } from "./faults";
import type { Store } from "./store";

/** Counters served by `/__sim/stats`. */
export interface Stats {
  requests: Record<string, number>;
  writes: number;
  socketsOpened: number;
  faultsInjected: Record<string, number>;
  /** Retries (same x-request-id) that arrived before the Retry-After the simulator had sent. */
  earlyRetries: number;
  /** Requests that named a rule or user of another team than the key's (answered 404, as unknown). */
  crossTeam: number;
}

/** Counters at zero. */
export const emptyStats = (): Stats => ({
  requests: {},
  writes: 0,
  socketsOpened: 0,
  faultsInjected: {},
  earlyRetries: 0,
  crossTeam: 0,
});

/** Server settings. */
export interface ServerContext {
  store: Store;
  faults: Faults;
  strictSpec: boolean;
  /** Threat-indicator paging: the first page's number and the largest page served. */
  paging: { base: 0 | 1; maxPageSize: number };
  controlToken: string;
  stats: Stats;
  /** x-request-id -> the earliest time a retry is allowed (after a 429 with Retry-After). */
  notBefore: Map<string, number>;
}

/** Writes a handler result. */
export function send(res: ServerResponse, result: Result): void {
  if (result.stream) {
    res.writeHead(result.status, { "content-type": result.contentType ?? "application/octet-stream" });
    result.stream.pipe(res);
    return;
  }
  if (result.json === undefined) {
    res.writeHead(result.status);
    res.end();
    return;
  }
  const text = JSON.stringify(result.json);
  res.writeHead(result.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
