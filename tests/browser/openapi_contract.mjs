// The OpenAPI document (docs/openapi.yaml) as a checker of real answers: it finds the
// operation a request went to, validates the answer's status and body against the
// document with ajv (JSON Schema 2020-12, which OpenAPI 3.1 uses), remembers which
// operations were exercised, and lists the routes the daemon's router declares so a
// route missing from the document fails the test.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { SOURCE_DIR } from './harness.mjs';

export const DOCUMENT = path.join(SOURCE_DIR, 'docs', 'openapi.yaml');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/// Rewrites every local `$ref` to name the document by its id, so a schema compiled on
/// its own (one response's) still resolves the shared components. It also closes every
/// object schema that lists its `properties` and says nothing of others
/// (`unevaluatedProperties: false`), so a field the daemon sends that the document does
/// not describe fails the test as a missing one does. The members of an `allOf` stay
/// open (the `allOf` itself is closed): a `$ref` there names the component's open
/// variant, `<name>__open`.
function prepare(node, { inAllOf = false } = {}) {
  if (Array.isArray(node)) return node.map((n) => prepare(n));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#')) {
      out[k] = `openapi${v}${inAllOf && v.startsWith('#/components/schemas/') ? '__open' : ''}`;
    } else if (k === 'allOf') {
      out[k] = v.map((member) => prepare(member, { inAllOf: true }));
    } else {
      out[k] = prepare(v);
    }
  }
  const closable = (node.properties && !('additionalProperties' in node)) || node.allOf;
  if (closable && !inAllOf && !('unevaluatedProperties' in node)) out.unevaluatedProperties = false;
  return out;
}

function prepareComponents(components) {
  const schemas = {};
  for (const [name, schema] of Object.entries(components.schemas ?? {})) {
    schemas[name] = prepare(schema);
    schemas[`${name}__open`] = prepare(schema, { inAllOf: true });
  }
  return { ...components, schemas };
}

/// The routes the router declares (host/src/api/*.cpp): `METHOD /path/{param}`. The
/// dashboard's shell (`/`) and MCP (`/mcp`, JSON-RPC; docs/mcp.md) are not part of
/// this document.
export function declaredRoutes() {
  const dir = path.join(SOURCE_DIR, 'host', 'src', 'api');
  const routes = new Set();
  const patterns = [
    /\{\s*"(GET|POST|PUT|PATCH|DELETE)"\s*,\s*"(\/[^"]*)"/g,
    /router\.add\(\s*"(GET|POST|PUT|PATCH|DELETE)"\s*,\s*"(\/[^"]*)"/g,
  ];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpp'))) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const pattern of patterns) {
      for (const [, method, route] of text.matchAll(pattern)) {
        if (route === '/' || route === '/mcp') continue;
        routes.add(`${method} ${route.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
  }
  return routes;
}

export class Contract {
  constructor(file = DOCUMENT) {
    this.doc = YAML.parse(fs.readFileSync(file, 'utf8'));
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: prepareComponents(this.doc.components ?? {}) }, 'openapi');
    this.validators = new Map();
    this.exercised = new Map(); // operationId -> Set of statuses seen
    this.operations = [];
    for (const [template, item] of Object.entries(this.doc.paths)) {
      const regex = new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, '[^/]+') + '$');
      for (const method of METHODS) {
        if (item[method]) this.operations.push({ template, method, regex, op: item[method] });
      }
    }
  }

  /// Every `METHOD /path` the document describes.
  documentedRoutes() {
    return new Set(this.operations.map((o) => `${o.method.toUpperCase()} ${o.template}`));
  }

  /// The operation `method route` (route without its query) goes to. Literal segments
  /// win over parameters (`/api/runs/init` is not `/api/runs/{runId}`).
  find(method, route) {
    const pathname = route.split('?')[0];
    const matches = this.operations.filter((o) => o.method === method.toLowerCase() && o.regex.test(pathname));
    matches.sort((a, b) => (a.template.match(/\{/g) ?? []).length - (b.template.match(/\{/g) ?? []).length);
    return matches[0] ?? null;
  }

  #validator(operationId, status, schema) {
    const key = `${operationId} ${status}`;
    if (!this.validators.has(key)) this.validators.set(key, this.ajv.compile(prepare(schema)));
    return this.validators.get(key);
  }

  #resolve(node) {
    // A response given as `$ref: '#/components/responses/X'`.
    while (node?.$ref) node = node.$ref.split('/').slice(1).reduce((n, k) => n[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    return node;
  }

  /// Checks one answer, and the JSON body sent (`sent`) when the daemon accepted it: a
  /// list of problems (empty when both match the document).
  check(method, route, { status, contentType, body }, sent) {
    const found = this.find(method, route);
    if (!found) return [`${method} ${route}: no operation in the document`];
    const { op } = found;
    const id = op.operationId;
    if (!this.exercised.has(id)) this.exercised.set(id, new Set());
    this.exercised.get(id).add(status);
    const request = this.#resolve(op.requestBody)?.content?.['application/json']?.schema;
    if (sent !== undefined && status < 300 && request) {
      const validate = this.#validator(id, 'request', request);
      if (!validate(sent)) {
        return [`${id}: the daemon accepted a body the document refuses: ${this.ajv.errorsText(validate.errors)}: ${JSON.stringify(sent).slice(0, 300)}`];
      }
    }
    const response = this.#resolve(op.responses?.[String(status)]);
    if (!response) return [`${id}: status ${status} is not documented (body ${JSON.stringify(body).slice(0, 300)})`];
    const problems = [];
    const media = Object.keys(response.content ?? {});
    if (media.length === 0) return problems;
    const type = (contentType ?? '').split(';')[0].trim();
    const mediaType = media.find((m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))) || m === '*/*');
    if (!mediaType) return [`${id} ${status}: content type ${type} is not one of ${media.join(', ')}`];
    const schema = response.content[mediaType].schema;
    if (mediaType === 'text/event-stream' && op['x-sse-data']) {
      // Each frame's data (its `data:` lines joined) against the operation's x-sse-data.
      const validate = this.#validator(id, 'sse', op['x-sse-data']);
      for (const frame of String(body).split('\n\n')) {
        const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
        if (!data) continue;
        const event = JSON.parse(data);
        if (!validate(event)) problems.push(`${id}: a frame's data does not match x-sse-data: ${this.ajv.errorsText(validate.errors)}: ${data.slice(0, 400)}`);
      }
    }
    if (mediaType === 'application/json' && schema) {
      const validate = this.#validator(id, status, schema);
      if (!validate(body)) {
        problems.push(`${id} ${status}: the body does not match the document:\n    ` +
          validate.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('\n    ') +
          `\n  body: ${JSON.stringify(body).slice(0, 1500)}`);
      }
    }
    return problems;
  }

  /// Checks `body` against components/schemas/`name` (an answer no operation owns,
  /// such as an unknown route's 404): a list of problems.
  checkSchema(name, body, what) {
    const validate = this.#validator(`schema ${name}`, '', { $ref: `#/components/schemas/${name}` });
    if (validate(body)) return [];
    return [`${what}: the body is not a ${name}: ${this.ajv.errorsText(validate.errors)}`];
  }

  /// Operations of the document no request reached.
  unexercised() {
    return this.operations.map((o) => o.op.operationId).filter((id) => !this.exercised.has(id));
  }
}
