// Talking to the service: the token, fetch, problem documents, and
// idempotent requests for everything that rolls dice.
//
// Every answer that is not 2xx is an RFC 9457 problem document
// (application/problem+json) and becomes an ApiError carrying its
// `detail`, `code` and, for a bad value, the `field` it names.

const TOKEN_KEY = 'umpire.console.token';

/** The token lives in sessionStorage only: gone when the tab is closed. */
export function getToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken() {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage unavailable: nothing to clear */
  }
}

/** An answer from the service that is an error (a problem document). */
export class ApiError extends Error {
  constructor(status, problem) {
    const detail = (problem && problem.detail) || `the service answered ${status}`;
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || null;
    this.field = this.problem.field || null;
    this.title = this.problem.title || null;
    this.detail = detail;
  }
}

/** No answer at all: the request may or may not have reached the service. */
export class NetworkError extends Error {
  constructor(cause) {
    super('no answer from the service (network error)');
    this.name = 'NetworkError';
    this.cause = cause;
  }
}

let unauthorizedHandler = null;

/** Called with the ApiError whenever the service answers 401. */
export function onUnauthorized(fn) {
  unauthorizedHandler = fn;
}

function buildUrl(path, query) {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function readProblem(res) {
  const type = res.headers.get('Content-Type') || '';
  try {
    if (type.includes('json')) return await res.json();
    const text = await res.text();
    return { detail: text ? text.slice(0, 300) : `the service answered ${res.status}` };
  } catch {
    return { detail: `the service answered ${res.status}` };
  }
}

/**
 * One HTTP request. `payload` is the request body already serialised (so a
 * retry sends exactly the same bytes). Resolves to the Response when it is
 * 2xx, rejects with ApiError or NetworkError otherwise.
 */
async function send(method, path, { query, payload, accept, idempotencyKey, anonymous = false } = {}) {
  const headers = {};
  const token = anonymous ? null : getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (accept) headers.Accept = accept;
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let res;
  try {
    res = await fetch(buildUrl(path, query), {
      method,
      headers,
      body: payload,
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (err) {
    throw new NetworkError(err);
  }
  if (!res.ok) {
    const error = new ApiError(res.status, await readProblem(res));
    if (res.status === 401 && unauthorizedHandler) unauthorizedHandler(error);
    throw error;
  }
  return res;
}

/** GET a JSON document. */
export async function getJSON(path, query) {
  const res = await send('GET', path, { query, accept: 'application/json' });
  return res.json();
}

/**
 * GET every item of a paged list (sides, units, combats, battles, tables:
 * see "Lists and pages" in api-spec/openapi.yaml), page after page of the
 * largest size, following `next_cursor` until it is null. `query` holds
 * the list's filters (and `order`). Resolves to the items, in order.
 */
export async function getAll(path, query) {
  const items = [];
  let cursor;
  for (;;) {
    const page = await getJSON(path, { ...query, limit: 200, cursor });
    items.push(...page.items);
    if (!page.next_cursor) return items;
    cursor = page.next_cursor;
  }
}

/** GET a document as text, e.g. a report with {format: 'md'}. */
export async function getText(path, query) {
  const res = await send('GET', path, { query });
  return res.text();
}

/** GET a document as a Blob, e.g. a report with {format: 'html'}. */
export async function getBlob(path, query) {
  const res = await send('GET', path, { query });
  return res.blob();
}

/**
 * A request that rolls no dice (create a side or unit, correct a unit,
 * resupply, replay). Answers the JSON body, or null for an empty one.
 * `anonymous`: send no token (creating a campaign needs none).
 */
export async function sendJSON(method, path, body, { anonymous = false } = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await send(method, path, { payload, accept: 'application/json', anonymous });
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/** A fresh Idempotency-Key (a UUID v4), also outside secure contexts. */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') {
    try {
      return crypto.randomUUID();
    } catch {
      /* not a secure context: build one below */
    }
  }
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers worth retrying with the same key: no answer, still in flight, stopping. */
function retriable(err) {
  if (err instanceof NetworkError) return true;
  return err instanceof ApiError && (err.code === 'idempotency_in_flight' || err.status === 503);
}

/**
 * A sender for the requests of one form that roll dice.
 *
 * Each submission gets one Idempotency-Key, made when it is first sent.
 * The request is retried automatically with the same key after a network
 * error, a 409 idempotency_in_flight or a 503. If it still has no answer,
 * the key is kept: submitting the same request again (same method, path
 * and body) reuses it, so the service answers the first result instead of
 * rolling again. Once the service has answered, success or refusal, the
 * next submission gets a new key.
 */
export function createRoller({ retries = 3, backoffMs = 600 } = {}) {
  let pending = null; // {signature, key} of a submission with no answer yet

  return async function roll(method, path, body) {
    const payload = JSON.stringify(body);
    const signature = `${method} ${path} ${payload}`;
    if (!pending || pending.signature !== signature) {
      pending = { signature, key: newIdempotencyKey() };
    }
    const { key } = pending;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const res = await send(method, path, { payload, accept: 'application/json', idempotencyKey: key });
        pending = null;
        return {
          data: await res.json(),
          replayed: res.headers.get('Idempotent-Replayed') === 'true',
          key,
        };
      } catch (err) {
        if (retriable(err) && attempt < retries) {
          await sleep(backoffMs * 2 ** attempt);
          continue;
        }
        if (!retriable(err)) pending = null;
        err.idempotencyKey = key;
        throw err;
      }
    }
  };
}
