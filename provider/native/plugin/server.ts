/**
 * The plugin's gRPC server: Pulumi's ResourceProvider service on 127.0.0.1, one provider instance
 * per server (the engine starts one plugin process per provider instance). Written on grpc-js with
 * Pulumi's stubs rather than the SDK's `provider.main`, which ignores provider config, lacks
 * CheckConfig/DiffConfig and fails on an import's id-only Read.
 */
import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from "@grpc/grpc-js";
import { VERSION } from "../../version";
import { checkConfig, configure, diffConfig } from "./config-rpcs";
import { RpcFailure, toServiceError } from "./errors";
import { currentCall, ProviderInstance, type PluginLog } from "./instance";
import { invoke } from "./invoke";
import { proto } from "./proto";
import * as rpc from "./resource-rpcs";

/** A running plugin server. */
export interface PluginServer {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** Stops serving and closes the instance's pool. */
  close(): Promise<void>;
  /** SIGTERM: ends the calls in flight (aborting their requests) and stops at once. */
  stop(): Promise<void>;
}

/**
 * The package schema served by GetSchema: `schema.json` at the package root (three levels up from
 * both `provider/native/plugin/` and `dist/native/plugin/`; a static require, so the bundle carries it).
 */
export function packageSchema(): string {
  return JSON.stringify(require("../../../schema.json"));
}

type Handler = (req: never) => unknown;

/** What a request deserializer returns for bytes that are not a valid message. */
class Malformed {
  constructor(readonly reason: string) {}
}

/**
 * The service definition with deserializers that never throw: a malformed request becomes a
 * {@link Malformed} that the handler answers with INVALID_ARGUMENT (grpc-js would answer INTERNAL).
 */
function tolerant<S extends object>(definition: S): S {
  type Method = { requestDeserialize: (b: Buffer) => unknown };
  return Object.fromEntries(
    Object.entries(definition).map(([name, m]: [string, Method]) => [
      name,
      {
        ...m,
        requestDeserialize: (bytes: Buffer) => {
          try {
            return m.requestDeserialize(bytes);
          } catch (err) {
            return new Malformed((err as Error).message);
          }
        },
      },
    ]),
  ) as S;
}

/** Adapts an async handler: the URN (if any) is the context of warnings; errors become gRPC errors. */
function unary(instance: ProviderInstance, name: string, handler: Handler) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    const req = call.request as { getUrn?: () => string };
    if (req instanceof Malformed)
      return callback(
        toServiceError(
          new RpcFailure("INVALID_ARGUMENT", `secops: malformed ${name} request: ${req.reason}`),
        ),
      );
    const urn = typeof req.getUrn === "function" ? req.getUrn() : "";
    const run = async () => {
      if (instance.cancelled)
        throw new RpcFailure("FAILED_PRECONDITION", "secops: the provider was cancelled");
      return handler(req as never);
    };
    const secrets = new Set<string>();
    currentCall.run({ urn, secrets }, run).then(
      (res) => callback(null, res ?? new (proto().empty.Empty)()),
      (err: unknown) => callback(toServiceError(err, secrets)),
    );
  };
}

function service(instance: ProviderInstance, onCancel: () => void): UntypedServiceImplementation {
  const { plugin, provider } = proto();
  const handlers: Record<string, Handler> = {
    getPluginInfo: () => new plugin.PluginInfo().setVersion(VERSION),
    getSchema: () => new provider.GetSchemaResponse().setSchema(packageSchema()),
    checkConfig: (req) => checkConfig(req),
    diffConfig: (req) => diffConfig(req),
    configure: (req) => configure(instance, req),
    check: (req) => rpc.check(instance, req),
    diff: (req) => rpc.diff(instance, req),
    create: (req) => rpc.create(instance, req),
    read: (req) => rpc.read(instance, req),
    update: (req) => rpc.update(instance, req),
    delete: (req) => rpc.remove(instance, req),
    invoke: (req) => invoke(instance, req),
    cancel: async () => {
      onCancel();
      await instance.cancel();
    },
  };
  return Object.fromEntries(Object.entries(handlers).map(([name, h]) => [name, unary(instance, name, h)]));
}

/** Messages to the engine's Log service (with the URN), or to stderr without an engine. */
function pluginLog(engineAddress: string | undefined): { log: PluginLog; close(): void } {
  const { grpc, engine, engineGrpc } = proto();
  if (!engineAddress)
    return {
      log: (severity, message) => void process.stderr.write(`${severity}: ${message}\n`),
      close: () => undefined,
    };
  const client = new engineGrpc.EngineClient(engineAddress, grpc.credentials.createInsecure());
  const severities = {
    info: engine.LogSeverity.INFO,
    warning: engine.LogSeverity.WARNING,
    error: engine.LogSeverity.ERROR,
  };
  const log: PluginLog = (severity, message, urn) => {
    const req = new engine.LogRequest()
      .setSeverity(severities[severity])
      .setMessage(message)
      .setUrn(urn ?? "");
    // A dead or missing engine never crashes the plugin: the message also goes to stderr.
    client.log(req, (err) => {
      if (err) process.stderr.write(`${severity}: ${message}\n`);
    });
  };
  return { log, close: () => client.close() };
}

/** Starts a plugin server on 127.0.0.1 and a free port. */
export async function startPluginServer(options: { engineAddress?: string } = {}): Promise<PluginServer> {
  const { grpc, providerGrpc } = proto();
  const logger = pluginLog(options.engineAddress);
  const instance = new ProviderInstance(logger.log);
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(
    tolerant(providerGrpc.ResourceProviderService),
    service(instance, () => undefined),
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port,
    close: async () => {
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await instance.close();
      logger.close();
    },
    stop: async () => {
      await instance.cancel(); // requests in flight end now; their calls fail
      server.forceShutdown();
      logger.close();
    },
  };
}
