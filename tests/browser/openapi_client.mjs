// An HTTP client for the OpenAPI test: every answer it gets is checked against the
// document (openapi_contract.mjs) and must have the status the test expects. Problems
// are collected, so one run of the test reports every mismatch at once.
// OPENAPI_DUMP=<file> also writes every answer there (for writing the document).
import fs from 'node:fs';

export class CheckedClient {
  constructor(daemon, contract) {
    this.daemon = daemon;
    this.contract = contract;
    this.problems = [];
    this.dump = [];
  }

  /// One request: `{ status, headers, body }`. `body` is sent as JSON unless `raw`
  /// (bytes, with `headers` saying what they are). `expect`: the status it must answer.
  /// `stream: { frames, during }` reads an event stream until `frames` data frames came
  /// (within 10 s; `during()` runs once it is open, to cause them), then closes it.
  async call(method, route, { body, raw, headers = {}, expect = 200, stream = null } = {}) {
    const init = { method, headers: { ...headers } };
    if (raw !== undefined) init.body = raw;
    else if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const controller = new AbortController();
    init.signal = controller.signal;
    const response = await fetch(this.daemon.baseUrl + route, init);
    const contentType = response.headers.get('content-type') ?? '';
    let parsed;
    if (stream && contentType.startsWith('text/event-stream')) {
      parsed = await this.#readFrames(response, controller, stream, `${method} ${route}`);
    } else if (contentType.startsWith('application/json')) {
      const text = await response.text();
      try { parsed = JSON.parse(text); } catch { parsed = text; }
    } else {
      parsed = Buffer.from(await response.arrayBuffer());
    }
    const answer = { status: response.status, headers: response.headers, contentType, body: parsed };
    if (process.env.OPENAPI_DUMP) {
      this.dump.push({ method, route, status: answer.status, contentType, body: Buffer.isBuffer(parsed) ? `<${parsed.length} bytes>` : parsed });
    }
    if (answer.status !== expect) {
      this.problems.push(`${method} ${route}: answered ${answer.status}, the test expected ${expect}: ${JSON.stringify(Buffer.isBuffer(parsed) ? '<bytes>' : parsed).slice(0, 600)}`);
    }
    const sent = raw === undefined && body !== undefined && String(init.headers['content-type']).startsWith('application/json') ? body : undefined;
    this.problems.push(...this.contract.check(method, route, answer, sent));
    return answer;
  }

  // An event stream never ends: the complete frames that came until `frames` data frames
  // did (or 10 s passed, a problem), as text; then the connection is closed.
  async #readFrames(response, controller, { frames = 1, during }, what) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const dataFrames = () => text.split('\n\n').slice(0, -1).filter((f) => /^data:/m.test(f)).length;
    const deadline = setTimeout(() => controller.abort(), 10_000);
    const caused = during?.();
    try {
      while (dataFrames() < frames) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      // aborted at the deadline
    } finally {
      clearTimeout(deadline);
      controller.abort();
    }
    await caused;
    if (dataFrames() < frames) this.problems.push(`${what}: ${dataFrames()} data frames in 10 s, the test expected ${frames}`);
    return text.slice(0, text.lastIndexOf('\n\n') + 2);
  }

  get = (route, options) => this.call('GET', route, options);
  post = (route, body, options = {}) => this.call('POST', route, { body, ...options });

  /// Writes the dump (OPENAPI_DUMP), if asked for.
  flush() {
    if (process.env.OPENAPI_DUMP) fs.writeFileSync(process.env.OPENAPI_DUMP, JSON.stringify(this.dump, null, 1));
  }
}
