/**
 * A client of a Pulumi resource-provider process, spoken to over its gRPC ResourceProvider service
 * with the stubs in `@pulumi/pulumi/proto`, as the engine does: Pulumi's own dynamic-provider host
 * (`@pulumi/pulumi/cmd/dynamic-provider`) or this package's native plugin (`pulumi-resource-secops`).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { ServiceError } from "@grpc/grpc-js";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { fromStruct, proto, secretOf, toStruct } from "../../provider/native/plugin/proto";

/** Marks a config value as a secret the way the engine does. */
export function secret(value: string): Record<string, string> {
  return secretOf(value) as Record<string, string>;
}

/** A failed create that still made something: Pulumi's ErrorResourceInitFailed. */
export class InitFailedError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

type Bag = Record<string, unknown>;
/** A message's fields by setter name without `set` (e.g. `urn`, `olds`); bags become Structs. */
type Fields = Record<string, string | boolean | Bag | undefined>;

/** Builds a request message from its fields: one table-driven helper instead of setter chains. */
function message<T>(Type: new () => T, fields: Fields): T {
  const m = new Type() as unknown as Record<string, (v: unknown) => void>;
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const setter = `set${name[0].toUpperCase()}${name.slice(1)}`;
    m[setter](typeof value === "object" ? toStruct(value) : value);
  }
  return m as unknown as T;
}

/** What one List call asks for besides the type and query (see `ListRequest`). */
export interface ListPageOptions {
  limit?: number;
  pageSize?: number;
  continuation?: string;
}

/** What one List call answered. */
export interface ListAnswer {
  results: Array<{ id: string; name: string }>;
  /** The next page's token; empty when there is none. */
  continuation: string;
  /** True when the provider could not list because the query holds unknown values. */
  computed: boolean;
}

/** The Diff answer the runner uses. */
export interface DiffAnswer {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Property → kind (`UPDATE`, `ADD_REPLACE`, ...), when the provider gave a detailed diff. */
  detailedDiff: Record<string, string>;
}

/** A running provider process and a gRPC client of it. */
export class ProviderProcess {
  #stderr = "";
  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly client: ResourceProviderClient,
  ) {
    child.stderr.on("data", (c) => (this.#stderr += String(c)));
  }

  /** Everything the provider wrote to stderr (warnings, errors). */
  get stderr(): string {
    return this.#stderr;
  }

  /** The process id (tests check it ends with its runner). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The address the provider serves on (`127.0.0.1:<port>`). */
  get address(): string {
    return (this.client as unknown as { getChannel(): { getTarget(): string } })
      .getChannel()
      .getTarget()
      .replace(/^dns:/, "");
  }

  /** Resolves with the exit code or signal once the process has ended. */
  exited(): Promise<number | string | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null)
      return Promise.resolve(this.child.exitCode ?? this.child.signalCode);
    return new Promise((resolve) => this.child.once("exit", (code, signal) => resolve(code ?? signal)));
  }

  private call<Res>(method: string, req: unknown): Promise<Res> {
    type Unary = (req: unknown, cb: (err: ServiceError | null, res: Res) => void) => void;
    const fn = (this.client as unknown as Record<string, Unary>)[method].bind(this.client);
    return new Promise((resolve, reject) =>
      fn(req, (err: ServiceError | null, res: Res) =>
        err ? reject(this.initFailed(err) ?? err) : resolve(res),
      ),
    );
  }

  private get pb(): typeof providerPb {
    return proto().provider;
  }

  async getPluginInfo(): Promise<string> {
    const res = await this.call<{ getVersion(): string }>("getPluginInfo", new (proto().empty.Empty)());
    return res.getVersion();
  }

  async getSchema(): Promise<string> {
    return (
      await this.call<providerPb.GetSchemaResponse>("getSchema", message(this.pb.GetSchemaRequest, {}))
    ).getSchema();
  }

  /** CheckConfig: the provider's config properties, unqualified (`apiKey`), secrets wrapped. */
  async checkConfig(urn: string, olds: Bag, news: Bag): Promise<{ inputs: Bag; failures: CheckFailure[] }> {
    const res = await this.call<providerPb.CheckResponse>(
      "checkConfig",
      message(this.pb.CheckRequest, { urn, olds, news }),
    );
    return { inputs: fromStruct(res.getInputs()), failures: failures(res) };
  }

  async diffConfig(urn: string, olds: Bag, news: Bag): Promise<DiffAnswer> {
    return diffAnswer(
      await this.call("diffConfig", message(this.pb.DiffRequest, { urn, olds, news, oldInputs: olds })),
    );
  }

  /**
   * Configure. `args` carries config with secrets wrapped ({@link secret}); `variables` (full keys,
   * e.g. `secops:config:apiKey`, secrets unwrapped) is what the engine sends besides.
   */
  async configure(args: Bag, variables: Record<string, string> = {}): Promise<void> {
    const req = message(this.pb.ConfigureRequest, { args, acceptsecrets: true, acceptresources: true });
    for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
    await this.call("configure", req);
  }

  async check(urn: string, olds: unknown, news: unknown): Promise<{ inputs: Bag; failures: CheckFailure[] }> {
    const res = await this.call<providerPb.CheckResponse>(
      "check",
      message(this.pb.CheckRequest, { urn, olds: olds as Bag, news: news as Bag }),
    );
    return { inputs: fromStruct(res.getInputs()), failures: failures(res) };
  }

  async diff(id: string, urn: string, olds: unknown, news: unknown, oldInputs?: Bag): Promise<DiffAnswer> {
    return diffAnswer(
      await this.call(
        "diff",
        message(this.pb.DiffRequest, { id, urn, olds: olds as Bag, news: news as Bag, oldInputs }),
      ),
    );
  }

  /** Create. A partial failure throws {@link InitFailedError} with the id the provider reported. */
  async create(urn: string, props: unknown, preview = false): Promise<{ id: string; properties: Bag }> {
    const res = await this.call<providerPb.CreateResponse>(
      "create",
      message(this.pb.CreateRequest, { urn, properties: props as Bag, preview }),
    );
    return { id: res.getId(), properties: fromStruct(res.getProperties()) };
  }

  /** Read: refresh (properties, inputs) or import (an id alone). */
  async read(
    id: string,
    urn: string,
    props: unknown,
    inputs?: Bag,
  ): Promise<{ id: string; properties: Bag; inputs: Bag }> {
    const res = await this.call<providerPb.ReadResponse>(
      "read",
      message(this.pb.ReadRequest, { id, urn, properties: props as Bag, inputs }),
    );
    return {
      id: res.getId(),
      properties: fromStruct(res.getProperties()),
      inputs: fromStruct(res.getInputs()),
    };
  }

  async update(
    id: string,
    urn: string,
    olds: unknown,
    news: unknown,
    preview = false,
  ): Promise<{ properties: Bag }> {
    const res = await this.call<providerPb.UpdateResponse>(
      "update",
      message(this.pb.UpdateRequest, { id, urn, olds: olds as Bag, news: news as Bag, preview }),
    );
    return { properties: fromStruct(res.getProperties()) };
  }

  async delete(id: string, urn: string, props: unknown): Promise<void> {
    await this.call("delete", message(this.pb.DeleteRequest, { id, urn, properties: props as Bag }));
  }

  async invoke(tok: string, args: Bag): Promise<{ result: Bag; failures: CheckFailure[] }> {
    const res = await this.call<providerPb.InvokeResponse>(
      "invoke",
      message(this.pb.InvokeRequest, { tok, args }),
    );
    return { result: fromStruct(res.getReturn()), failures: failures(res) };
  }

  /**
   * One List call (server streaming), as the engine makes it: the results the provider streams, and
   * the token of the next page (empty when none), or `computed` when the query holds unknown values.
   */
  async list(token: string, query: Bag = {}, page: ListPageOptions = {}): Promise<ListAnswer> {
    const req = new this.pb.ListRequest()
      .setToken(token)
      .setQuery(toStruct(query))
      .setLimit(page.limit ?? 0)
      .setPageSize(page.pageSize ?? 0)
      .setContinuationToken(page.continuation ?? "");
    const answer: ListAnswer = { results: [], continuation: "", computed: false };
    return new Promise((resolve, reject) => {
      const stream = this.client.list(req);
      stream.on("data", (res: providerPb.ListResponse) => {
        const result = res.getResult();
        if (result) answer.results.push({ id: result.getId(), name: result.getName() });
        if (res.hasContinuation()) answer.continuation = res.getContinuation()!.getContinuationToken();
        if (res.hasComputed()) answer.computed = true;
      });
      stream.on("error", reject);
      stream.on("end", () => resolve(answer));
    });
  }

  async cancel(): Promise<void> {
    await this.call("cancel", new (proto().empty.Empty)());
  }

  /** Stops the process. */
  async close(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill();
    await exited;
  }

  private initFailed(err: ServiceError): InitFailedError | undefined {
    const bin = err.metadata?.get("grpc-status-details-bin")?.[0];
    if (!bin || typeof bin === "string") return undefined;
    const status = proto().status.Status.deserializeBinary(new Uint8Array(bin));
    for (const any of status.getDetailsList()) {
      if (!any.getTypeUrl().endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
      const detail = this.pb.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return new InitFailedError(
        status.getMessage(),
        detail.getId(),
        fromStruct(detail.getProperties()),
        detail.getReasonsList(),
      );
    }
    return undefined;
  }
}

/** One Check failure. */
export interface CheckFailure {
  property: string;
  reason: string;
}

function failures(res: { getFailuresList(): providerPb.CheckFailure[] }): CheckFailure[] {
  return res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
}

function diffAnswer(res: providerPb.DiffResponse): DiffAnswer {
  const { provider } = proto();
  const kinds = Object.fromEntries(Object.entries(provider.PropertyDiff.Kind).map(([k, v]) => [v, k]));
  const detailedDiff: Record<string, string> = {};
  res.getDetaileddiffMap().forEach((d, k) => (detailedDiff[k] = kinds[d.getKind()]));
  return {
    changes: res.getChanges() === provider.DiffResponse.DiffChanges.DIFF_SOME,
    replaces: res.getReplacesList(),
    deleteBeforeReplace: res.getDeletebeforereplace(),
    detailedDiff,
  };
}
