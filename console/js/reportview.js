// A report to share: "Copy Markdown" (to paste into Discord), "Download
// HTML" (the standalone page, fetched with the token and saved as a file),
// and the Markdown source itself folded away in a <details>: people read
// the report drawn from its JSON (results.js), not this source.

import { h, replace, copyText, downloadBlob, announce } from './dom.js';
import { getText, getBlob } from './api.js';
import { errorBox } from './forms.js';

/**
 * path: the document's URL without a query (a combat, a battle, the
 * campaign report). filename: the base name for the HTML download.
 */
export function reportPanel(path, { filename = 'report', heading = 'Report' } = {}) {
  const pre = h('pre', { class: 'report', testid: 'report-view', tabindex: '0', 'aria-label': `${heading} as Markdown` }, 'Loading…');
  const status = h('span', { class: 'inline-status', role: 'status' });
  let markdown = null;

  const copyBtn = h(
    'button',
    {
      type: 'button',
      testid: 'copy-markdown',
      disabled: true,
      onclick: async () => {
        if (markdown === null) return;
        const ok = await copyText(markdown);
        if (ok) {
          status.textContent = 'Markdown copied.';
        } else {
          // Select the text so that Ctrl+C / long-press copies it.
          const range = document.createRange();
          range.selectNodeContents(pre);
          const sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          status.textContent = 'The browser refused to copy: the text is selected, copy it by hand.';
        }
        announce(status.textContent);
      },
    },
    'Copy Markdown',
  );

  const htmlBtn = h(
    'button',
    {
      type: 'button',
      testid: 'download-html',
      onclick: async () => {
        htmlBtn.disabled = true;
        status.textContent = 'Fetching the HTML page…';
        try {
          const blob = await getBlob(path, { format: 'html' });
          downloadBlob(new Blob([blob], { type: 'text/html' }), `${filename}.html`);
          status.textContent = `Saved ${filename}.html.`;
        } catch (err) {
          status.textContent = '';
          panel.append(errorBox(err));
        } finally {
          htmlBtn.disabled = false;
        }
        announce(status.textContent);
      },
    },
    'Download HTML',
  );

  const panel = h(
    'section',
    { class: 'report-panel', 'aria-label': heading },
    h('div', { class: 'actions' }, copyBtn, htmlBtn, status),
    h('details', { class: 'markdown-source' }, h('summary', { testid: 'show-markdown' }, 'The Markdown, as it will be pasted'), pre),
  );

  async function load() {
    try {
      markdown = await getText(path, { format: 'md' });
      replace(pre, markdown);
      copyBtn.disabled = false;
    } catch (err) {
      replace(pre, '');
      pre.hidden = true;
      panel.append(errorBox(err));
    }
  }
  load();
  return panel;
}
