export const PRODUCT_NAME = "블루페이지";
export const pageTitle = (t?: string) => (t ? `${t} | ${PRODUCT_NAME}` : PRODUCT_NAME);
/** The title the app's bar shows: the page's own title (the product name alone on pages without one). */
export function appTitle(documentTitle: string): string {
  const suffix = ` | ${PRODUCT_NAME}`;
  return documentTitle.endsWith(suffix) ? documentTitle.slice(0, -suffix.length) : documentTitle || PRODUCT_NAME;
}
