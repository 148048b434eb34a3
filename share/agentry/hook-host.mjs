// agentry's host for hooks written as JavaScript modules (docs/definitions.md
// "Module hooks"). The daemon starts one `node hook-host.mjs` per hook call and writes
// one JSON line to its stdin:
//
//   {"module": "/abs/path/hook.mjs", "phase": "beforeAttempt", "context": {...}}
//
// This script imports the module, calls its default export's function named after the
// phase with the context, awaits it, and writes one JSON line to stdout:
//
//   {"ok": true, "result": <what the function returned, or null>}
//   {"ok": false, "error": "why"}
//
// A phase the module has no function for answers {"ok": true, "result": null} (the
// daemon reads that as continue / accept). Anything the module prints with console.log
// goes to stderr, so that stdout carries only the answer.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const answer = process.stdout.write.bind(process.stdout);
// Keep the module's own output off the answer channel.
console.log = console.info = console.debug = (...args) => console.error(...args);

function reply(value) {
  return new Promise((resolve) => answer(JSON.stringify(value) + "\n", resolve));
}

function describe(error) {
  if (error instanceof Error) return error.stack || `${error.name}: ${error.message}`;
  return String(error);
}

async function readRequest() {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return JSON.parse(text);
}

// jiti beside this script, else from NODE_PATH: an ES module's import() does not look
// there, CommonJS resolution does.
async function importJiti() {
  try {
    return await import("jiti");
  } catch {
    return await import(pathToFileURL(createRequire(import.meta.url).resolve("jiti")).href);
  }
}

async function importModule(path) {
  if (/\.m?ts$/.test(path)) {
    // TypeScript: node's own type stripping when it has it, else jiti when installed.
    try {
      return await import(pathToFileURL(path).href);
    } catch (native) {
      let jiti;
      try {
        jiti = await importJiti();
      } catch {
        throw new Error(
          `cannot load the TypeScript hook ${path}: this node (${process.version}) cannot strip types ` +
            `(${native.message}); use a node that strips types by default (22.18, 23.6 or later), or install the npm package jiti in a directory ` +
            `on NODE_PATH`,
        );
      }
      const load = (jiti.createJiti ?? jiti.default)(import.meta.url, { interopDefault: false });
      return await load.import(path);
    }
  }
  return await import(pathToFileURL(path).href);
}

async function main() {
  let request;
  try {
    request = await readRequest();
  } catch (error) {
    return reply({ ok: false, error: `agentry sent no valid request: ${describe(error)}` });
  }
  const { module: path, phase, context } = request;
  let imported;
  try {
    imported = await importModule(path);
  } catch (error) {
    return reply({ ok: false, error: `cannot import ${path}: ${describe(error)}` });
  }
  const hook = imported && imported.default ? imported.default : imported;
  if (!hook || typeof hook !== "object" || typeof hook.name !== "string") {
    return reply({ ok: false, error: `${path} must export a default object with a string 'name'` });
  }
  const fn = hook[phase];
  if (fn === undefined) return reply({ ok: true, result: null });
  if (typeof fn !== "function") {
    return reply({ ok: false, error: `${path}: '${phase}' is not a function` });
  }
  try {
    const result = await fn.call(hook, context);
    return reply({ ok: true, result: result === undefined ? null : result });
  } catch (error) {
    return reply({ ok: false, error: `the ${phase} function threw: ${describe(error)}` });
  }
}

await main();
