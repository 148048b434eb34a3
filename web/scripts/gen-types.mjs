// Generates src/lib/api.gen.ts from docs/openapi.yaml: one exported type per schema of
// components/schemas, and `OperationAnswers`, the JSON body of each operation's success.
// `npm run typecheck` and `npm run build` run it first (as `gen:types`), so the dashboard
// is checked against the document as it is; the output is committed for editors.
//
// Why not openapi-typescript: it drives the TypeScript compiler's JavaScript API, which
// the TypeScript 7 this package builds with no longer ships. The document uses a small
// part of JSON Schema (type, enum, const, properties/required, items,
// additionalProperties, oneOf, allOf, $ref), all of which this maps; anything else is
// an error here rather than a silently loose type.
//
// Usage: node scripts/gen-types.mjs [--check]   (--check: fail if the file is stale)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCUMENT = path.resolve(WEB, '..', 'docs', 'openapi.yaml');
const OUTPUT = path.join(WEB, 'src', 'lib', 'api.gen.ts');

const KNOWN = new Set(['type', 'enum', 'const', 'properties', 'required', 'items', 'additionalProperties',
  'oneOf', 'allOf', '$ref', 'description', 'format', 'pattern', 'minimum', 'maximum', 'contentMediaType',
  'unevaluatedProperties']);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const doc = YAML.parse(fs.readFileSync(DOCUMENT, 'utf8'));

function resolve(ref) {
  return ref.split('/').slice(1).reduce((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

const literal = (v) => JSON.stringify(v);
const key = (k) => (IDENT.test(k) ? k : JSON.stringify(k));
const indentOf = (depth) => '  '.repeat(depth);
const union = (parts) => [...new Set(parts)].join(' | ');
const comment = (text, depth) => (text ? `${indentOf(depth)}/** ${String(text).trim().replace(/\*\//g, '* /').replace(/\n+/g, ' ')} */\n` : '');

function primitive(type, schema, depth, where) {
  switch (type) {
    case 'string': return 'string';
    case 'integer':
    case 'number': return 'number';
    case 'boolean': return 'boolean';
    case 'null': return 'null';
    case 'array': return schema.items ? `Array<${typeOf(schema.items, depth, `${where}[]`)}>` : 'unknown[]';
    case 'object': return objectType(schema, depth, where);
    default: throw new Error(`${where}: unsupported type ${type}`);
  }
}

function objectType(schema, depth, where) {
  const props = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (props.length === 0) {
    if (extra && typeof extra === 'object') return `Record<string, ${typeOf(extra, depth, `${where}{}`)}>`;
    return 'Record<string, unknown>';
  }
  const required = new Set(schema.required ?? []);
  let out = '{\n';
  for (const [name, sub] of props) {
    out += comment(sub.description, depth + 1);
    out += `${indentOf(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(sub, depth + 1, `${where}.${name}`)};\n`;
  }
  if (extra === true) out += `${indentOf(depth + 1)}[key: string]: unknown;\n`;
  else if (extra && typeof extra === 'object') out += `${indentOf(depth + 1)}[key: string]: ${typeOf(extra, depth + 1, `${where}{}`)};\n`;
  return `${out}${indentOf(depth)}}`;
}

function typeOf(schema, depth, where) {
  if (schema === true || schema === undefined) return 'unknown';
  for (const k of Object.keys(schema)) {
    if (!KNOWN.has(k) && !k.startsWith('x-')) throw new Error(`${where}: unsupported keyword ${k}`);
  }
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (name === schema.$ref) throw new Error(`${where}: only component schemas may be referenced, not ${schema.$ref}`);
    return name;
  }
  if ('const' in schema) return literal(schema.const);
  if (schema.enum) return union(schema.enum.map(literal));
  if (schema.oneOf) return union(schema.oneOf.map((s, i) => typeOf(s, depth, `${where}|${i}`)));
  if (schema.allOf) return schema.allOf.map((s, i) => typeOf(s, depth, `${where}&${i}`)).join(' & ');
  if (Array.isArray(schema.type)) return union(schema.type.map((t) => primitive(t, schema, depth, where)));
  if (schema.type) return primitive(schema.type, schema, depth, where);
  if (schema.properties) return objectType(schema, depth, where);
  return 'unknown';
}

/// The JSON body of each operation's successful answers (2xx), by operationId.
function operationAnswers() {
  const lines = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const bodies = [];
      for (const [status, answer] of Object.entries(op.responses ?? {})) {
        if (!/^2\d\d$/.test(status)) continue;
        const response = answer.$ref ? resolve(answer.$ref) : answer;
        const schema = response.content?.['application/json']?.schema;
        if (schema) bodies.push(typeOf(schema, 1, `${op.operationId} ${status}`));
      }
      if (bodies.length === 0) continue;
      lines.push(`  /** ${method.toUpperCase()} ${route} */\n  ${JSON.stringify(op.operationId)}: ${union(bodies)};`);
    }
  }
  return `export interface OperationAnswers {\n${lines.join('\n')}\n}\n`;
}

function generate() {
  let out = '// Generated from docs/openapi.yaml by web/scripts/gen-types.mjs (npm run gen:types).\n' +
    '// Do not edit: change the document and regenerate. web/src/lib/types.ts names what the\n' +
    '// dashboard uses.\n\n';
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    out += comment(schema.description, 0);
    out += `export type ${name} = ${typeOf(schema, 0, name)};\n\n`;
  }
  return out + operationAnswers();
}

const text = generate();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(OUTPUT) ? fs.readFileSync(OUTPUT, 'utf8') : '';
  if (current !== text) {
    console.error(`${path.relative(process.cwd(), OUTPUT)} is out of date with docs/openapi.yaml: run npm run gen:types`);
    process.exit(1);
  }
} else if (!fs.existsSync(OUTPUT) || fs.readFileSync(OUTPUT, 'utf8') !== text) {
  fs.writeFileSync(OUTPUT, text);
  console.log(`wrote ${path.relative(process.cwd(), OUTPUT)}`);
}
