// A tiny element builder. Text is always set as text (never as HTML), so file names,
// snippets and page content from the server cannot inject markup.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A message line shown in place of a result: role=alert so it is read out. */
export function errorLine(error: unknown): HTMLElement {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  return h("p", { class: "error", role: "alert" }, code ? `${code}: ${text}` : text);
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

/** Proto3 JSON writes 64-bit integers as strings and omits zero values. */
export function int(value: string | number | undefined): number {
  return value === undefined ? 0 : Number(value);
}

/** A snippet with the search engine's `<b>…</b>` highlights as <mark> elements: only those
 * two tags are read as markup, every other character stays text. */
export function highlighted(snippet: string): HTMLElement {
  const quote = h("blockquote", {});
  snippet.split(/(<b>[^<]*<\/b>)/).forEach((part) => {
    const bold = /^<b>([^<]*)<\/b>$/.exec(part);
    append(quote, bold ? h("mark", {}, bold[1] ?? "") : part);
  });
  return quote;
}

/** A timestamp in the reader's local time, the ISO 8601 text the server sent in the tooltip
 * (and in `datetime`, for tests and screen readers). Empty or unparsable: a dash. */
export function when(iso: string | undefined): HTMLElement | string {
  const date = iso ? new Date(iso) : null;
  if (!date || Number.isNaN(date.getTime())) return "—";
  return h("time", { datetime: iso, title: iso }, date.toLocaleString());
}

/** A slice's place in its text, 1-based and inclusive as a reader counts: the slice
 * [start, end) of `total` characters reads "Characters 1–4,000 of 16,626". */
export function charRange(start: number, end: number, total: number): string {
  if (end <= start) return `No characters here (the text has ${total.toLocaleString()})`;
  return `Characters ${(start + 1).toLocaleString()}–${end.toLocaleString()} of ${total.toLocaleString()}`;
}
