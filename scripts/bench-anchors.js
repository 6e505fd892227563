/**
 * The processes the plugin part of `npm run bench` (scripts/bench-plugin.js) measures the plugin
 * against, written into a temp dir at each run and started with the same node as the plugin:
 *
 *   host      the anchor of issue 33: Pulumi's own Node.js provider host, `@pulumi/pulumi/provider`
 *             `main()`, serving this package's schema.json and one trivial resource (check, diff,
 *             create, read, update, delete, invoke); its Configure is the SDK's (it answers accept*).
 *   floor     the platform's floor: @grpc/grpc-js and Pulumi's protocol stubs serving ResourceProvider
 *             (schema, Configure, trivial resource calls and Invoke), bundled into one file with esbuild
 *             as the plugin is.
 *   floorApi  the same, each of whose calls (Invoke, Check, Diff, Create, Read, Update, Delete) first
 *             sends one GET to the API with undici (public entry) and checks the answer with zod: the
 *             parts the plugin stands on, and nothing of its own. undici and zod are in the bundled
 *             file, as in the plugin's, and load on the first call.
 *
 * Each prints its port alone on its first stdout line, as the engine expects of a plugin.
 */
"use strict";
const { writeFileSync } = require("node:fs");
const { dirname, join } = require("node:path");

const ROOT = join(__dirname, "..");
const pulumiBase = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] }));
const { version } = require(join(ROOT, "package.json"));

/** The anchor: a provider object served by the SDK's own host (`sdk/nodejs/provider/server.ts`). */
const HOST = `"use strict";
const { readFileSync } = require("node:fs");
const schema = readFileSync(${JSON.stringify(join(ROOT, "schema.json"))}, "utf8");
let n = 0;
const provider = {
  version: ${JSON.stringify(version)},
  getSchema: async () => schema,
  check: async (urn, olds, news) => ({ inputs: news }),
  diff: async (id, urn, olds, news) => ({ changes: JSON.stringify(olds) !== JSON.stringify(news) }),
  create: async (urn, inputs) => ({ id: "r-" + ++n, outs: { ...inputs, teamId: "t" } }),
  read: async (id, urn, props) => ({ id, props }),
  update: async (id, urn, olds, news) => ({ outs: { ...olds, ...news } }),
  delete: async () => undefined,
  invoke: async () => ({ outputs: {} }),
};
require(${JSON.stringify(require.resolve("@pulumi/pulumi/provider", { paths: [ROOT] }))}).main(provider, process.argv.slice(2));
`;

/**
 * The floor's source. Every resource call converts its Structs as any provider must; with `api`, each
 * call (and Invoke) first sends one GET to the API with undici and checks the answer with zod.
 */
const floorSource = (api) => `"use strict";
const grpc = require("@grpc/grpc-js");
const { ResourceProviderService } = require("@pulumi/pulumi/proto/provider_grpc_pb.js");
const pb = require("@pulumi/pulumi/proto/provider_pb.js");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb.js");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb.js");
const schema = JSON.stringify(require(${JSON.stringify(join(ROOT, "schema.json"))}));
const LIMIT = 400 * 1024 * 1024;
let config = {};
let n = 0;
${
  api
    ? `let identity;
/** One GET of the API's identity, checked by zod (both loaded on the first call). */
function callApi() {
  const { request } = require("undici");
  if (!identity) {
    const { z } = require("zod");
    identity = z.looseObject({ id: z.string(), email: z.string(), teamId: z.string() });
  }
  const key = typeof config.apiKey === "object" ? config.apiKey.value : config.apiKey;
  return request(new URL("/v1/auth/me", config.baseUrl), {
    headers: { authorization: "Bearer " + key, accept: "application/json" },
  })
    .then((res) => res.body.json())
    .then((body) => identity.parse(body));
}`
    : `const callApi = () => Promise.resolve({});`
}
const js = (struct) => struct?.toJavaScript() ?? {};
const st = (value) => Struct.fromJavaScript(value);
/** A handler that calls the API, then answers with make(request, the API's answer). */
const handler = (make) => (call, cb) => callApi().then((answer) => cb(null, make(call.request, answer)), cb);
const server = new grpc.Server({ "grpc.max_receive_message_length": LIMIT, "grpc.max_send_message_length": LIMIT });
server.addService(ResourceProviderService, {
  getSchema: (call, cb) => cb(null, new pb.GetSchemaResponse().setSchema(schema)),
  configure: (call, cb) => {
    config = js(call.request.getArgs());
    cb(null, new pb.ConfigureResponse().setAcceptsecrets(true).setAcceptresources(true));
  },
  invoke: handler((req, answer) => new pb.InvokeResponse().setReturn(st(answer))),
  check: handler((req) => new pb.CheckResponse().setInputs(st(js(req.getNews())))),
  diff: handler((req) => {
    const same = JSON.stringify(js(req.getOlds())) === JSON.stringify(js(req.getNews()));
    return new pb.DiffResponse().setChanges(same ? 1 : 2);
  }),
  create: handler((req) => new pb.CreateResponse().setId("r-" + ++n).setProperties(st(js(req.getProperties())))),
  read: handler((req) =>
    new pb.ReadResponse().setId(req.getId()).setProperties(st(js(req.getProperties()))).setInputs(st(js(req.getInputs()))),
  ),
  update: handler((req) => new pb.UpdateResponse().setProperties(st({ ...js(req.getOlds()), ...js(req.getNews()) }))),
  delete: handler(() => new Empty()),
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(port + "\\n");
});
`;

/** esbuild as scripts/bundle-plugin.js runs it: grpc-js and google-protobuf from @pulumi/pulumi's folder. */
async function bundleFloor(entry, outfile) {
  const esbuild = require(require.resolve("esbuild", { paths: [ROOT] }));
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    keepNames: true,
    legalComments: "none",
    logLevel: "error",
    nodePaths: [join(ROOT, "node_modules")],
    plugins: [
      {
        name: "pulumi-grpc",
        setup(build) {
          build.onResolve({ filter: /^(google-protobuf|@grpc\/grpc-js)(\/|$)/ }, (args) => ({
            path: require.resolve(args.path, { paths: [pulumiBase] }),
          }));
        },
      },
    ],
  });
  return outfile;
}

/** Writes the three into `dir`: `{ host, floor, floorApi }`, paths of scripts run as `node <path>`. */
async function writeAnchors(dir) {
  const host = join(dir, "pulumi-host.js");
  writeFileSync(host, HOST);
  const out = { host };
  for (const [name, api] of [
    ["floor", false],
    ["floorApi", true],
  ]) {
    const src = join(dir, `${name}-src.js`);
    writeFileSync(src, floorSource(api));
    out[name] = await bundleFloor(src, join(dir, `${name}.js`));
  }
  return out;
}

module.exports = { writeAnchors };
