/** The web page at `/`: placeholder until the page lands. */
export function pageHtml(): string {
  return '<!doctype html><title>wiggum</title><p>wiggum</p>';
}
