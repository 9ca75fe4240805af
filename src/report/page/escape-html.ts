// Text and attribute values of the report pages, escaped for HTML, and their tables of labelled figures.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** A figure's cell: its text, with its key and exact value for a reader of the page. */
export function cell(key: string, value: number | string, text: string): string {
  return `<td data-key="${escapeHtml(key)}" data-value="${escapeHtml(String(value))}">${escapeHtml(text)}</td>`
}

/** A row of a two-column table: its label, and the key, exact value and text of its figure. */
export type FigureRow = [label: string, key: string, value: number | string, text: string]

/** A table of labelled figures (`caption` is HTML); `id` names it on the page. */
export function rowsTable(id: string | undefined, caption: string, rows: FigureRow[]): string {
  return `<table${id === undefined ? '' : ` id="${id}"`} class="numbers"><caption>${caption}</caption><tbody>${rows
    .map(
      ([label, key, value, text]) =>
        `<tr><th scope="row">${escapeHtml(label)}</th>${cell(key, value, text)}</tr>`,
    )
    .join('')}</tbody></table>`
}
