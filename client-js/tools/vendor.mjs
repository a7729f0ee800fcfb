// Refresh client-js/vendor/msgpack/ from node_modules/@msgpack/msgpack (run: npm run vendor).
// Copies the ES-module build (*.mjs only, no maps or typings) and the licence.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "node_modules", "@msgpack", "msgpack");
const out = join(root, "vendor", "msgpack");
const { name, version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(join(pkg, "dist.esm"), out, {
  recursive: true,
  filter: (src) => !/\.(map|d\.ts|tsbuildinfo)$/.test(src),
});
cpSync(join(pkg, "LICENSE"), join(out, "LICENSE"));
writeFileSync(join(out, "VERSION"), `${name}@${version}\n`);
console.log(`vendored ${name}@${version} into vendor/msgpack/`);
