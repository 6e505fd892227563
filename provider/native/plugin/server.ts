/**
 * The plugin's gRPC server: the ResourceProvider service on 127.0.0.1, one provider instance per
 * server, on grpc-js and `@pulumi/pulumi/proto` as Pulumi's own Node.js host, with our own handlers.
 */
import type * as grpcTypes from "@grpc/grpc-js";
import { VERSION } from "../../version";
import { checkConfig, configure, diffConfig, handshake } from "./config-rpcs";
import { unary, type Handler } from "./call";
import { ProviderInstance, type PluginLog } from "./instance";
import { invoke } from "./invoke";
import { list } from "./list";
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

/** The engine's message limit (`maxRPCMessageSize`), both ways, as grpc-js channel options. */
const MESSAGE_LIMITS = {
  "grpc.max_send_message_length": 400 * 1024 * 1024,
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
};

/** The package schema GetSchema serves (a static require three levels up, so the bundle carries it). */
export function packageSchema(): string {
  return JSON.stringify(require("../../../schema.json"));
}

/** The ResourceProvider methods the plugin implements; grpc-js answers UNIMPLEMENTED for the others. */
function service(instance: ProviderInstance): grpcTypes.UntypedServiceImplementation {
  const { plugin, provider } = proto();
  const methods: Record<string, Handler> = {
    handshake: (req: never) => handshake(req),
    getPluginInfo: () => new plugin.PluginInfo().setVersion(VERSION),
    getSchema: () => new provider.GetSchemaResponse().setSchema(packageSchema()),
    checkConfig: (req) => checkConfig(req, instance),
    diffConfig: (req) => diffConfig(req, instance),
    configure: (req) => configure(instance, req),
    check: (req) => rpc.check(instance, req),
    diff: (req) => rpc.diff(instance, req),
    create: (req) => rpc.create(instance, req),
    read: (req) => rpc.read(instance, req),
    update: (req) => rpc.update(instance, req),
    delete: (req) => rpc.remove(instance, req),
    invoke: (req) => invoke(instance, req),
    cancel: () => instance.cancel(),
  };
  const unaries = Object.fromEntries(
    Object.entries(methods).map(([name, handler]) => [name, unary(instance, handler)]),
  );
  return { ...unaries, list: list(instance) };
}

/** Messages to the engine's Log service (with the URN), or to stderr without an engine. */
function pluginLog(engineAddress: string | undefined): { log: PluginLog; close(): void } {
  const stderr: PluginLog = (severity, message) => void process.stderr.write(`${severity}: ${message}\n`);
  if (!engineAddress) return { log: stderr, close: () => undefined };
  const { grpc, engine, engineGrpc } = proto();
  const client = new engineGrpc.EngineClient(
    engineAddress,
    grpc.credentials.createInsecure(),
    MESSAGE_LIMITS,
  );
  const log: PluginLog = (severity, message, urn) => {
    const req = new engine.LogRequest()
      .setSeverity(engine.LogSeverity[severity.toUpperCase() as Uppercase<typeof severity>])
      .setMessage(message)
      .setUrn(urn ?? "");
    // A dead or missing engine never crashes the plugin: the message goes to stderr instead.
    client.log(req, (err) => {
      if (err) stderr(severity, message, urn);
    });
  };
  return { log, close: () => client.close() };
}

/** Starts a plugin server on 127.0.0.1 and a free port. */
export async function startPluginServer(options: { engineAddress?: string } = {}): Promise<PluginServer> {
  const { grpc, providerGrpc } = proto();
  const logger = pluginLog(options.engineAddress);
  const instance = new ProviderInstance(logger.log);
  const server = new grpc.Server(MESSAGE_LIMITS);
  server.addService(providerGrpc.ResourceProviderService, service(instance));
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
      instance.stopping = true;
      await instance.cancel(); // requests in flight end now; their calls fail
      server.forceShutdown();
      logger.close();
    },
  };
}
