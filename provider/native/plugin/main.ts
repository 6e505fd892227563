/**
 * The plugin's main: serves the ResourceProvider service on 127.0.0.1 and prints its port alone on
 * stdout's line 1. One provider instance per server, on grpc-js and `@pulumi/pulumi/proto` as Pulumi's
 * own Node.js host, with our own handlers.
 */
import { setEngineRun } from "../../resources/framework/team-scope";
import type * as grpcTypes from "@grpc/grpc-js";
import { VERSION } from "../../version";
import { checkConfig, configure, diffConfig, handshake } from "./config-rpcs";
import { runCall, type CallError, type Message } from "./call";
import { ProviderInstance, type PluginLog } from "./instance";
import { invoke } from "./invoke";
import { proto } from "./proto";
import * as rpc from "./resource-rpcs";

/** Flags the engine passes that take a value (`buildPluginArguments` in the engine's plugin.go). */
const WITH_VALUE = new Set(["--tracing", "-tracing"]);

/** How long SIGTERM waits for calls in flight before the process ends anyway. */
const STOP_GRACE_MS = 2_000;

/** The plugin's `--help`. */
export const USAGE = `usage: pulumi-resource-secops [--logtostderr] [-v=N] [--tracing <endpoint>] [engine-address]

The secops resource provider plugin for Pulumi. The Pulumi engine starts it: it serves Pulumi's
ResourceProvider gRPC service on 127.0.0.1 and prints its port on the first line of stdout.
  --version  print the version and exit
  --help     print this and exit
`;

/** The engine's address: the last argument that is neither a flag nor a flag's value. */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  let address: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (WITH_VALUE.has(a)) i++;
    else if (!a.startsWith("-")) address = a;
  }
  return address;
}

/** How often the plugin looks for its parent (the engine) gone. */
const ORPHAN_CHECK_MS = 500;

/** The engine's message limit (`maxRPCMessageSize`), both ways, as grpc-js channel options. */
const MESSAGE_LIMITS = {
  "grpc.max_send_message_length": 400 * 1024 * 1024,
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
};

/** The ResourceProvider methods the plugin implements; grpc-js answers UNIMPLEMENTED for the others. */
function service(instance: ProviderInstance): grpcTypes.UntypedServiceImplementation {
  const { plugin, provider } = proto();
  const methods: Record<string, (req: never) => unknown> = {
    handshake: (req: never) => handshake(req),
    getPluginInfo: () => new plugin.PluginInfo().setVersion(VERSION),
    // The package schema: a static require three levels up, so the bundle carries it.
    getSchema: () =>
      new provider.GetSchemaResponse().setSchema(JSON.stringify(require("../../../schema.json"))),
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
  // A unary call answers its handler's message (Empty for none), or fails with its status.
  const unary =
    (handler: (req: never) => unknown): grpcTypes.handleUnaryCall<unknown, Message> =>
    (call, callback) =>
      void runCall(instance, call, handler).then(
        (res) => callback(null, (res ?? new (proto().empty.Empty)()) as Message),
        (err: CallError) => callback(err, null),
      );
  const unaries = Object.fromEntries(Object.entries(methods).map(([name, h]) => [name, unary(h)]));
  return { ...unaries, list: rpc.list(instance) };
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

/** Runs the plugin with the engine's arguments until SIGTERM, SIGINT or its engine is gone. */
export async function main(argv: string[]): Promise<void> {
  if (argv.includes("--version")) return void process.stdout.write(`${VERSION}\n`);
  if (argv.includes("--help") || argv.includes("-h")) return void process.stdout.write(USAGE);
  const engineAddress = engineAddressOf(argv);
  setEngineRun(engineAddress);
  const { grpc, providerGrpc } = proto();
  const logger = pluginLog(engineAddress);
  const instance = new ProviderInstance(logger.log);
  const server = new grpc.Server(MESSAGE_LIMITS);
  server.addService(providerGrpc.ResourceProviderService, service(instance));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  process.stdout.write(`${port}\n`);
  // Calls in flight are ended (an unknown create outcome stays journaled for the next run to settle).
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    instance.stopping = true;
    try {
      await instance.cancel(); // requests in flight end now; their calls fail
      server.forceShutdown();
      logger.close();
    } finally {
      process.exit(0);
    }
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // An orphan (its engine killed) would keep its journal entries live, so the next run could not adopt
  // what its creates made: it stops once its parent is gone. Not in attach mode (no engine address).
  if (!engineAddress) return;
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    void stop();
  }, ORPHAN_CHECK_MS).unref();
}
