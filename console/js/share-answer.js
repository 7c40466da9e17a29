// share-answer.js: what the share page (share.js) says when the answer of
// GET /v1/shared/{secret} is not a report it can check. Apart from the
// page's drawing, so that node's tests read it without a browser
// (tests/browser/results.test.mjs).

// The title and detail for an answer of status (not 200), retryAfter the
// text of its Retry-After header (or null).
export function shareFailure(status, retryAfter) {
  if (status === 404) {
    return {
      title: 'This link does not work',
      detail: 'The service knows no such link: it was mistyped, or the umpire has revoked it.',
    };
  }
  if (status === 429 || status === 503) {
    const secs = Number.parseInt(retryAfter ?? '', 10);
    const when = Number.isInteger(secs) && secs > 0
      ? `in ${secs} second${secs === 1 ? '' : 's'}`
      : 'in a moment';
    return {
      title: 'The service is busy',
      detail: `Many reports are being read from it right now. Try again ${when}.`,
    };
  }
  return { title: 'The report could not be read', detail: `The service answered ${status}.` };
}

// A 200 whose body is not whole JSON: the answer is streamed, and one cut
// short (the service stopped, or the connection broke) ends mid-way.
export function cutShort(message) {
  return {
    title: 'The report could not be read',
    detail: `The answer stopped short (${message}). Try again in a moment.`,
  };
}
