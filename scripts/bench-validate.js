// Measures validation of N full detections against JSON.parse of the same text, in one run.
const { threatIndicatorPageSchema } = require("../dist/client/schemas");
const { detection } = require("../dist/simulator/detections");
const { directoryUsers } = require("../dist/simulator/seed");
const n = Number(process.argv[2] ?? 5000);
const users = directoryUsers(1, "t", 50);
const page = {
  data: Array.from({ length: n }, (_, i) => detection(1, "case-1", "C-1", "t", i, users[i % 50])),
  totalCount: n,
};
const text = JSON.stringify(page);
const time = (f, reps = 5) => {
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    f();
    ts.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ts.sort((a, b) => a - b);
  return ts[Math.floor(reps / 2)];
};
time(() => threatIndicatorPageSchema.parse(JSON.parse(text)), 2);
const parse = time(() => JSON.parse(text));
const obj = JSON.parse(text);
const validate = time(() => threatIndicatorPageSchema.parse(obj));
console.log(
  JSON.stringify({
    detections: n,
    bytes: text.length,
    jsonParseMs: parse,
    validateMs: validate,
    ratio: +(validate / parse).toFixed(2),
  }),
);
