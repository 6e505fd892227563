/**
 * The plugin's gRPC server: Pulumi's ResourceProvider service on 127.0.0.1, one provider instance
 * per server (the engine starts one plugin process per provider instance). Served on its own HTTP/2 with
 * Pulumi's message classes (./h2-grpc.ts) rather than the SDK's `provider.main`, which ignores provider
 * config, lacks CheckConfig/DiffConfig and fails on an import's id-only Read, and without grpc-js,
 * which would be most of each plugin's start and memory.
 */
import { VERSION } from "../../version";
import { checkConfig, configure, diffConfig } from "./config-rpcs";
import { RpcFailure, toStatus } from "./errors";
import { serveUnary, unaryClient, type UnaryMethod } from "./h2-grpc";
import { currentCall, ProviderInstance, type PluginLog } from "./instance";
import { invoke } from "./invoke";
import { messages } from "./messages";
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

/** A message class's decoder, as the stubs generate it. */
type Decoder = { deserializeBinary(bytes: Uint8Array): unknown };

/** Runs a handler with the URN (if any) as the context of warnings; errors become gRPC statuses. */
function unary(instance: ProviderInstance, name: string, decoder: Decoder, handler: Handler): UnaryMethod {
  return {
    name,
    decode: (bytes) => decoder.deserializeBinary(bytes),
    handle: (request) => {
      const req = request as { getUrn?: () => string };
      const urn = typeof req.getUrn === "function" ? req.getUrn() : "";
      const secrets = new Set<string>();
      const run = async () => {
        if (instance.cancelled)
          throw new RpcFailure("FAILED_PRECONDITION", "secops: the provider was cancelled");
        return ((await handler(req as never)) ?? new (messages().empty.Empty)()) as {
          serializeBinary(): Uint8Array;
        };
      };
      return currentCall.run({ urn, secrets }, run).catch((err: unknown) => toStatus(err, secrets));
    },
  };
}

/** The ResourceProvider methods the plugin implements, by path; any other is UNIMPLEMENTED. */
function service(instance: ProviderInstance): Map<string, UnaryMethod> {
  const { plugin, provider, empty } = messages();
  const methods: Record<string, [Decoder, Handler]> = {
    GetPluginInfo: [empty.Empty, () => new plugin.PluginInfo().setVersion(VERSION)],
    GetSchema: [provider.GetSchemaRequest, () => new provider.GetSchemaResponse().setSchema(packageSchema())],
    CheckConfig: [provider.CheckRequest, (req) => checkConfig(req)],
    DiffConfig: [provider.DiffRequest, (req) => diffConfig(req)],
    Configure: [provider.ConfigureRequest, (req) => configure(instance, req)],
    Check: [provider.CheckRequest, (req) => rpc.check(instance, req)],
    Diff: [provider.DiffRequest, (req) => rpc.diff(instance, req)],
    Create: [provider.CreateRequest, (req) => rpc.create(instance, req)],
    Read: [provider.ReadRequest, (req) => rpc.read(instance, req)],
    Update: [provider.UpdateRequest, (req) => rpc.update(instance, req)],
    Delete: [provider.DeleteRequest, (req) => rpc.remove(instance, req)],
    Invoke: [provider.InvokeRequest, (req) => invoke(instance, req)],
    Cancel: [empty.Empty, () => instance.cancel()],
  };
  return new Map(
    Object.entries(methods).map(([name, [decoder, handler]]) => [
      `/pulumirpc.ResourceProvider/${name}`,
      unary(instance, name[0].toLowerCase() + name.slice(1), decoder, handler),
    ]),
  );
}

/** Messages to the engine's Log service (with the URN), or to stderr without an engine. */
function pluginLog(engineAddress: string | undefined): { log: PluginLog; close(): void } {
  if (!engineAddress)
    return {
      log: (severity, message) => void process.stderr.write(`${severity}: ${message}\n`),
      close: () => undefined,
    };
  const client = unaryClient(engineAddress);
  const { engine } = messages();
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
    client
      .call("/pulumirpc.Engine/Log", req.serializeBinary())
      .catch(() => void process.stderr.write(`${severity}: ${message}\n`));
  };
  return { log, close: () => client.close() };
}

/**
 * Starts a plugin server on 127.0.0.1 and a free port. `onApiUse` runs at each call that needs the
 * API.
 */
export async function startPluginServer(
  options: { engineAddress?: string; onApiUse?: () => void } = {},
): Promise<PluginServer> {
  const logger = pluginLog(options.engineAddress);
  const instance = new ProviderInstance(logger.log, options.onApiUse);
  const server = await serveUnary(service(instance));
  return {
    port: server.port,
    close: async () => {
      await server.close();
      await instance.close();
      logger.close();
    },
    stop: async () => {
      await instance.cancel(); // requests in flight end now; their calls fail
      server.destroy();
      logger.close();
    },
  };
}
