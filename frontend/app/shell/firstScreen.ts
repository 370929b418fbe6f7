/**
 * The edge answers the routes readers land on with a drawing of their first
 * screen (<sf-first>, edge/server/pages.go): the same pictures at the same
 * places, painted before this app's JavaScript has arrived. It lies over the
 * page, outside React (React skips unknown tags in <body> when it hydrates);
 * once the app has drawn its own route, the drawing goes.
 */
export function dropFirstScreen(doc: Document = document): void {
  for (const el of Array.from(doc.querySelectorAll("sf-first"))) el.remove();
}
