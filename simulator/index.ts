/**
 * `secops-sim`: a local stand-in for the Security Operations Service API, for tests,
 * demos and trying the provider without an account.
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Faults, parseFaultSpec, type FaultRule } from "./faults";
import { emptyStats, type Stats } from "./context";
import { createSimServer } from "./server";
import { Store } from "./store";

export { FAULT_KINDS, parseFaultSpec, type FaultKind, type FaultRule } from "./faults";
export { CSV_COLUMNS } from "./csv";

/** Options of {@link createSimulator}. */
export interface SimulatorOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** Answer the routes the spec does not show (assumed routes) as unknown, and ignore hidden names. */
  strictSpec?: boolean;
  /** The number of the first page of threat indicators: 1 (default) or 0 (the spec hides which). */
  pageBase?: 0 | 1;
  /** The largest page of threat indicators served, whatever size is asked. Default 500. */
  maxPageSize?: number;
  /** Seed of the generated data and of fault draws. Default 1. */
  seed?: number;
  /** Persist what changes to this JSON file and load it on start. */
  statePath?: string;
  /** Faults from the start: rules or a spec string (see parseFaultSpec). */
  faults?: FaultRule[] | string;
  /** Adds case `case-big` with this many detections. */
  bigCase?: number;
  /** Makes the CSV export at least this many rows long. */
  csvRows?: number;
  /** A fixed control token (default: random). */
  controlToken?: string;
  /** A big tenant: this many rules made by hand in `team`, on top of the seed's (`bulk-1-*`, ...). */
  rules?: number;
  /** A big tenant: this many more directory users in `team`, generated as the seed's are. */
  users?: number;
  /** The team `rules` and `users` fill. Default team-acme. */
  team?: string;
}

/** The API keys of the simulated tenants. */
export interface SimulatorKeys {
  admin: string;
  analyst: string;
  viewer: string;
  serviceProviderAdmin: string;
  /** ADMIN of team-client-1, a client team of the service provider. */
  client1Admin: string;
  /** ADMIN of team-client-2, a client team of the service provider. */
  client2Admin: string;
}

/** A running simulator. */
export interface Simulator {
  url: string;
  apiKeys: SimulatorKeys;
  controlToken: string;
  /** A client of the control API of this simulator. */
  control: SimulatorControl;
  close(): Promise<void>;
}

/** Threat-indicator paging of the options, checked. */
function pagingOf(options: SimulatorOptions): { base: 0 | 1; maxPageSize: number } {
  const base = options.pageBase ?? 1;
  const maxPageSize = options.maxPageSize ?? 500;
  if (base !== 0 && base !== 1) throw new Error("pageBase must be 0 or 1");
  if (!Number.isInteger(maxPageSize) || maxPageSize < 1)
    throw new Error("maxPageSize must be a positive integer");
  return { base, maxPageSize };
}

/** Starts a simulator. */
export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed ?? 1;
  const store = new Store({ ...options, seed });
  const rules = typeof options.faults === "string" ? parseFaultSpec(options.faults) : (options.faults ?? []);
  if (
    options.controlToken !== undefined &&
    (typeof options.controlToken !== "string" || options.controlToken.trim() === "")
  )
    throw new Error(
      "controlToken must be a non-empty string (an empty token would let anyone change the simulator)",
    );
  const controlToken = options.controlToken ?? randomBytes(16).toString("hex");
  const stats = emptyStats();
  const server = createSimServer({
    store,
    faults: new Faults(seed, rules),
    strictSpec: options.strictSpec ?? false,
    paging: pagingOf(options),
    controlToken,
    stats,
    notBefore: new Map(),
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const byName = (n: string) => store.keys.find((k) => k.userId === `svc-${n}`)!.key;
  return {
    url,
    apiKeys: {
      admin: byName("admin"),
      analyst: byName("analyst"),
      viewer: byName("viewer"),
      serviceProviderAdmin: byName("spadmin"),
      client1Admin: byName("client1admin"),
      client2Admin: byName("client2admin"),
    },
    controlToken,
    control: new SimulatorControl(url, controlToken),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A client of a simulator's control API (works against a simulator in another process too). */
export class SimulatorControl {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/__sim${path}`, {
      method,
      headers: { "x-sim-control": this.token, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T;
    if (!res.ok) {
      // The simulator's own words (`rule hva-1 not found`), else the whole answer.
      const message = (json as { message?: unknown }).message;
      const why = typeof message === "string" ? message : JSON.stringify(json);
      throw new Error(`simulator control ${method} ${path} failed (${res.status}): ${why}`);
    }
    return json;
  }

  /** Requests per route (`"PUT /endpoint/hva/automation"`), writes, sockets opened, faults injected. */
  stats(): Promise<Stats> {
    return this.call("GET", "/stats");
  }
  /** Zeroes the statistics. */
  resetStats(): Promise<void> {
    return this.call("POST", "/stats/reset");
  }
  /** Replaces the fault rules (rules or a spec string). */
  setFaults(faults: FaultRule[] | string): Promise<FaultRule[]> {
    return this.call("PUT", "/faults", typeof faults === "string" ? { spec: faults } : { rules: faults });
  }
  /** The fault rules in force. */
  faults(): Promise<FaultRule[]> {
    return this.call("GET", "/faults");
  }
  /** Removes every fault rule. */
  clearFaults(): Promise<void> {
    return this.call("DELETE", "/faults");
  }
  /** Rules and directory users as stored. */
  state(): Promise<{ rules: Array<Record<string, unknown>>; users: Array<Record<string, unknown>> }> {
    return this.call("GET", "/state");
  }
  /** Makes a rule out of band in any team (by hand, as in the product's console); answers the rule. */
  addRule(rule: { teamId: string; searchField: string; search: string; enabled?: boolean }): Promise<{
    id: string;
    teamId: string;
    searchField: string;
    search: string;
    enabled: boolean;
  }> {
    return this.call("POST", "/hva", rule);
  }
  /** Adds a directory user to a team out of band (the next free id); answers the user. */
  addUser(user: { teamId: string; email?: string; displayName?: string }): Promise<Record<string, unknown>> {
    return this.call("POST", "/directory", user);
  }
  /** Changes a rule out of band. */
  patchRule(
    id: string,
    change: { enabled?: boolean; search?: string; searchField?: string },
  ): Promise<unknown> {
    return this.call("PATCH", `/hva/${encodeURIComponent(id)}`, change);
  }
  /** Deletes a rule out of band; answers the rule as it was. */
  deleteRule(id: string): Promise<unknown> {
    return this.call("DELETE", `/hva/${encodeURIComponent(id)}`);
  }
  /** Changes a directory user out of band. */
  patchUser(id: string, change: Record<string, unknown>): Promise<unknown> {
    return this.call("PATCH", `/directory/${encodeURIComponent(id)}`, change);
  }
  /** Deletes a directory user out of band; answers the user as it was. */
  deleteUser(id: string): Promise<unknown> {
    return this.call("DELETE", `/directory/${encodeURIComponent(id)}`);
  }
}
