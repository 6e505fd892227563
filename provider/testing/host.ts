/**
 * A client of Pulumi's own dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`), the
 * process the engine starts for dynamic resources, spoken to over its gRPC ResourceProvider service
 * with the stubs in `@pulumi/pulumi/proto`, exactly as the engine does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { dirname } from "node:path";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

function pulumiRequire(path: string): Any {
  return require(require.resolve(`@pulumi/pulumi/${path}`));
}
/** A dependency of @pulumi/pulumi, loaded as it loads it (the stubs need the same instances). */
function pulumiDependency(name: string): Any {
  const base = dirname(require.resolve("@pulumi/pulumi/package.json"));
  return require(require.resolve(name, { paths: [base] }));
}
const grpc = () => pulumiDependency("@grpc/grpc-js");

/** Marks a config value as a secret the way the engine does (unwrapped by the host). */
export function secret(value: string): Record<string, string> {
  return { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value };
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

/**
 * Runs the host (argv[1], arguments after it) and ends it when the runner dies. The host holds the API
 * key and serves unauthenticated gRPC on 127.0.0.1, so it must not outlive its runner: the runner keeps
 * this process's stdin open, and the pipe closes when the runner exits for any reason, SIGKILL included.
 */
const WATCHDOG = `
const [entry, ...args] = process.argv.slice(1);
const die = () => process.exit(0);
process.stdin.on("end", die);
process.stdin.on("close", die);
process.stdin.on("error", die);
process.stdin.resume();
process.argv = [process.argv[0], entry, ...args];
require(entry);
`;

const clean = (o: unknown) => JSON.parse(JSON.stringify(o ?? {}));

/** A running host process and a gRPC client of it. */
export class DynamicProviderHost {
  private stderrText = "";
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly client: Any,
  ) {
    child.stderr.on("data", (c) => (this.stderrText += String(c)));
  }

  /** Everything the host wrote to stderr (warnings, errors). */
  get stderr(): string {
    return this.stderrText;
  }

  /**
   * Starts the host with `cwd` as its working directory: the serialized provider's `require`s
   * resolve from there, as they do from a Pulumi program's directory.
   */
  static async start(cwd: string): Promise<DynamicProviderHost> {
    const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
    const child = spawn(process.execPath, ["-e", WATCHDOG, entry, "127.0.0.1:0"], {
      cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let early = "";
    child.stderr.on("data", (c) => (early += String(c)));
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.once("data", (c) => resolve(String(c).trim()));
      child.once("exit", (code) => reject(new Error(`dynamic-provider host exited (${code}): ${early}`)));
    });
    const services = pulumiRequire("proto/provider_grpc_pb.js");
    const g = grpc();
    const client = new services.ResourceProviderClient(`127.0.0.1:${port}`, g.credentials.createInsecure());
    return new DynamicProviderHost(child, client);
  }

  private call<T>(method: string, req: Any): Promise<T> {
    return new Promise((resolve, reject) =>
      this.client[method](req, (err: Any, res: T) => (err ? reject(err) : resolve(res))),
    );
  }

  private struct(o: unknown): Any {
    return pulumiDependency("google-protobuf/google/protobuf/struct_pb").Struct.fromJavaScript(clean(o));
  }

  /** Configure: full keys (`secops:apiKey`), secrets wrapped with {@link secret}. */
  async configure(args: Record<string, unknown>): Promise<void> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.ConfigureRequest();
    req.setArgs(this.struct(args));
    req.setAcceptsecrets(true);
    await this.call("configure", req);
  }

  async check(
    urn: string,
    olds: unknown,
    news: unknown,
  ): Promise<{ inputs: Record<string, unknown>; failures: Array<{ property: string; reason: string }> }> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.CheckRequest();
    req.setUrn(urn);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    const res: Any = await this.call("check", req);
    return {
      inputs: res.getInputs()?.toJavaScript() ?? {},
      failures: res.getFailuresList().map((f: Any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(
    id: string,
    urn: string,
    olds: unknown,
    news: unknown,
  ): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.DiffRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    const res: Any = await this.call("diff", req);
    return {
      changes: res.getChanges() === p.DiffResponse.DiffChanges.DIFF_SOME,
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  }

  /** Create. A partial failure throws {@link InitFailedError} with the id the provider reported. */
  async create(urn: string, props: unknown): Promise<{ id: string; properties: Record<string, unknown> }> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.CreateRequest();
    req.setUrn(urn);
    req.setProperties(this.struct(props));
    try {
      const res: Any = await this.call("create", req);
      return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
    } catch (err) {
      throw this.initFailed(err) ?? err;
    }
  }

  async read(
    id: string,
    urn: string,
    props: unknown,
  ): Promise<{ id: string; properties: Record<string, unknown> }> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.ReadRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(this.struct(props));
    const res: Any = await this.call("read", req);
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  async update(
    id: string,
    urn: string,
    olds: unknown,
    news: unknown,
  ): Promise<{ properties: Record<string, unknown> }> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.UpdateRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    const res: Any = await this.call("update", req);
    return { properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  async delete(id: string, urn: string, props: unknown): Promise<void> {
    const p = pulumiRequire("proto/provider_pb.js");
    const req = new p.DeleteRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(this.struct(props));
    await this.call("delete", req);
  }

  /** Stops the host. */
  async close(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill();
    await exited;
  }

  private initFailed(err: Any): InitFailedError | undefined {
    const bin = err?.metadata?.get?.("grpc-status-details-bin")?.[0];
    if (!bin) return undefined;
    const status = pulumiRequire("proto/status_pb.js").Status.deserializeBinary(new Uint8Array(bin));
    const p = pulumiRequire("proto/provider_pb.js");
    for (const any of status.getDetailsList()) {
      if (!String(any.getTypeUrl()).endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
      const detail = p.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return new InitFailedError(
        status.getMessage(),
        detail.getId(),
        detail.getProperties()?.toJavaScript() ?? {},
        detail.getReasonsList(),
      );
    }
    return undefined;
  }
}
