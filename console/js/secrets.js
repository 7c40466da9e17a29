// Secrets shown once (a new campaign's tokens, a side's player token, a
// reissued token): each on a line of its own with a Copy button, and the
// whole set downloadable as a text file, since the service keeps only
// hashes and can never show them again.

import { h, copyText, downloadBlob, announce } from './dom.js';

/**
 * One secret: a label, the value in a <code> (props: its testid and
 * data-*), and a Copy button (data-testid="copy-token").
 */
export function secretLine(label, value, props = {}) {
  const code = h('code', { class: 'token', ...props }, value);
  const copyBtn = h('button', { type: 'button', class: 'button-small', testid: 'copy-token' }, 'Copy');
  copyBtn.addEventListener('click', async () => {
    const ok = await copyText(value);
    copyBtn.textContent = ok ? 'Copied' : 'Copy failed: select it by hand';
    announce(ok ? `${label} copied.` : 'The browser refused to copy.');
    setTimeout(() => {
      copyBtn.textContent = 'Copy';
    }, 2000);
  });
  return h('div', { class: 'secret-line' }, h('span', { class: 'secret-label' }, label), h('span', { class: 'token-line' }, code, copyBtn));
}

/** A file name from free text: "Tannenberg 1914" → "tannenberg-1914". */
export function fileSlug(text) {
  return (
    String(text || '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'campaign'
  );
}

/**
 * A button that saves `text()` as a plain text file named `filename`
 * (data-testid="tokens-download").
 */
export function downloadSecretsButton(label, filename, text) {
  const btn = h('button', { type: 'button', testid: 'tokens-download' }, label);
  btn.addEventListener('click', () => {
    downloadBlob(new Blob([text()], { type: 'text/plain;charset=utf-8' }), filename);
    announce(`Saved ${filename}.`);
  });
  return btn;
}
