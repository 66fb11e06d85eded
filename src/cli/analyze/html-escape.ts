const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes text for HTML element content and quoted attribute values. Recorded strings (tool
 * names, messages, run ids, file names) come from untrusted traces, so every one goes through
 * this before it is written into the report. Control characters other than tab and line breaks are
 * shown as U+FFFD, so a recorded string cannot smuggle in what a browser would drop or reinterpret.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]).replace(/[^\P{Cc}\t\n\r]/gu, '\ufffd');
}
